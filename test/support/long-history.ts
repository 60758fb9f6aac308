import { SeededRandom } from './seeded-random.ts';

/**
 * A C file of many functions, one of them (`cmd_repack`) edited often, beside a build file edited
 * in most commits and a tree of other files touched now and then; lines are inserted and deleted as
 * well as changed, so that blame and log -L follow moving lines through deep delta chains.
 */
export function longHistory(commits: number, seed: number): Buffer {
  const random = new SeededRandom(seed);
  const pick = (n: number): number => Math.floor(random.next() * n);
  const functions = Array.from({ length: 60 }, (_, f) =>
    Array.from({ length: 14 }, (_, l) => `\tstatement_${f}_${l}(argument, "a string to make lines longer ${f}/${l}");`),
  );
  const names = Array.from({ length: 60 }, (_, f) => (f === 30 ? 'cmd_repack' : `helper_function_number_${f}`));
  const makefile = Array.from({ length: 400 }, (_, l) => `OBJECTS += object-file-${l}.o # build line ${l}`);
  const others = Array.from({ length: 120 }, (_, i) => `dir-${i % 12}/file-with-a-long-name-${i}.txt`);
  const otherContent = others.map((name) => `${name}\n`.repeat(20));
  const chunks: string[] = [];
  const file = (name: string, data: string): void => {
    chunks.push(`M 100644 inline ${name}\ndata ${Buffer.byteLength(data)}\n${data}`);
  };
  const source = (): string =>
    functions.map((body, f) => `int ${names[f]}(int argc, const char **argv)\n{\n${body.join('\n')}\n}\n`).join('\n');
  for (let c = 0; c < commits; c++) {
    chunks.push(
      `commit refs/heads/main\nmark :${c + 1}\ncommitter A <a@example.com> ${1_600_000_000 + c * 60} +0000\ndata 9\ncommit ${c % 10}\n`,
    );
    if (c > 0) chunks.push(`from :${c}\n`);
    const edits = 1 + pick(3);
    for (let e = 0; e < edits; e++) {
      const f = random.next() < 0.4 ? 30 : pick(functions.length);
      const body = functions[f]!;
      const at = pick(body.length);
      const kind = random.next();
      if (kind < 0.2 && body.length > 6) body.splice(at, 1);
      else if (kind < 0.4) body.splice(at, 0, `\tinserted_${c}_${e}(argument);`);
      else body[at] = `\tchanged_${c}_${e}(argument, "${body[at]!.length}");`;
    }
    if (c === 0 || random.next() < 0.85) {
      for (let e = 1 + pick(4); e > 0; e--) {
        const at = pick(makefile.length);
        if (random.next() < 0.3) makefile.splice(at, 0, `OBJECTS += added-in-${c}-${e}.o`);
        else makefile[at] = `OBJECTS += changed-in-${c}-${e}.o # was line ${at}`;
      }
      file('Makefile', makefile.join('\n') + '\n');
    }
    file('builtin/repack.c', source());
    const touched = c === 0 ? others.map((_, i) => i) : random.next() < 0.5 ? [pick(others.length)] : [];
    for (const i of touched) {
      if (c > 0) otherContent[i] += `edit ${c}\n`;
      file(others[i]!, otherContent[i]!);
    }
    chunks.push('\n');
  }
  chunks.push('done\n');
  return Buffer.from(chunks.join(''));
}
