/**
 * Deterministic repository histories for tests and benchmarks, written as a `git fast-import`
 * stream so that thousands of commits take a second: text files edited a few lines at a time
 * (long delta chains), renames, deletions, binary files that change in place, and merges of
 * nothing fancy. A seeded generator makes every run produce the same objects.
 */
import { SeededRandom } from './seeded-random.ts';

export interface HistoryOptions {
  commits: number;
  seed?: number;
  /** Number of text files alive at any time (roughly). */
  files?: number;
  /** Lines in a new text file. */
  linesPerFile?: number;
  /** Probability per commit of adding a binary file or rewriting one. */
  binaryRate?: number;
  /** Probability per commit of renaming a file. */
  renameRate?: number;
  /** Number of lines each commit edits. */
  editsPerCommit?: number;
}

const WORDS = [
  'pack',
  'delta',
  'chain',
  'base',
  'cache',
  'inflate',
  'object',
  'tree',
  'blob',
  'commit',
  'offset',
  'window',
  'depth',
  'family',
  'limit',
  'read',
];

class Random extends SeededRandom {
  word(): string {
    return this.pick(WORDS);
  }
  line(): string {
    const n = 3 + this.int(8);
    const parts: string[] = [];
    for (let i = 0; i < n; i++) parts.push(this.word());
    return parts.join(' ');
  }
}

export function historyStream(options: HistoryOptions): Buffer {
  const random = new Random(options.seed ?? 42);
  const fileTarget = options.files ?? 12;
  const linesPerFile = options.linesPerFile ?? 40;
  const binaryRate = options.binaryRate ?? 0.1;
  const renameRate = options.renameRate ?? 0.05;
  const editsPerCommit = options.editsPerCommit ?? 3;
  const texts = new Map<string, string[]>();
  const binaries = new Map<string, Buffer>();
  const chunks: Buffer[] = [];
  const emit = (text: string): void => {
    chunks.push(Buffer.from(text, 'utf8'));
  };
  const data = (content: Buffer): void => {
    emit(`data ${content.length}\n`);
    chunks.push(content);
    emit('\n');
  };
  let serial = 0;
  for (let c = 0; c < options.commits; c++) {
    const when = 1700000000 + c * 60;
    emit(`commit refs/heads/main\nmark :${c + 1}\n`);
    emit(
      `author A U Thor <author@example.com> ${when} +0000\ncommitter C O Mitter <committer@example.com> ${when} +0000\n`,
    );
    data(Buffer.from(`commit ${c}: ${random.line()}\n`));
    if (c > 0) emit(`from :${c}\n`);
    const changed = new Set<string>();
    const created = new Set<string>();
    if (texts.size < fileTarget || random.next() < 0.1) {
      const name = `src/${random.word()}/${random.word()}-${serial++}.txt`;
      const lines: string[] = [];
      for (let i = 0; i < linesPerFile; i++) lines.push(random.line());
      texts.set(name, lines);
      changed.add(name);
      created.add(name);
    }
    const names = [...texts.keys()];
    for (let e = 0; e < editsPerCommit && names.length > 0; e++) {
      const name = names[random.int(names.length)]!;
      const lines = texts.get(name)!;
      const at = random.int(lines.length + 1);
      if (random.next() < 0.7 || lines.length < 5) lines.splice(at, 0, random.line());
      else lines.splice(at, 1);
      changed.add(name);
    }
    // Only a file that existed before this commit can be renamed in it (fast-import applies R
    // before the M lines below).
    const renamable = names.filter((name) => !created.has(name));
    if (renamable.length > 3 && random.next() < renameRate) {
      const from = renamable[random.int(renamable.length)]!;
      const to = `moved/${random.word()}-${serial++}.txt`;
      emit(`R ${from} ${to}\n`);
      texts.set(to, texts.get(from)!);
      texts.delete(from);
      changed.delete(from);
    }
    if (random.next() < binaryRate) {
      const existing = [...binaries.keys()];
      if (existing.length > 0 && random.next() < 0.6) {
        const name = existing[random.int(existing.length)]!;
        const content = Buffer.from(binaries.get(name)!);
        // Patch a few bytes in place: binary deltas.
        for (let i = 0; i < 8; i++) content[random.int(content.length)] = random.int(256);
        binaries.set(name, content);
        emit(`M 100644 inline ${name}\n`);
        data(content);
      } else {
        const name = `assets/blob-${serial++}.bin`;
        const content = random.bytes(2048 + random.int(8192));
        binaries.set(name, content);
        emit(`M 100644 inline ${name}\n`);
        data(content);
      }
    }
    if (texts.size > fileTarget * 2 && random.next() < 0.2) {
      const victim = [...texts.keys()][random.int(texts.size)]!;
      emit(`D ${victim}\n`);
      texts.delete(victim);
      changed.delete(victim);
    }
    for (const name of changed) {
      emit(`M 100644 inline ${name}\n`);
      data(Buffer.from(texts.get(name)!.join('\n') + '\n'));
    }
    emit('\n');
    if (c % 50 === 49) {
      emit(`tag v${c}\nfrom :${c + 1}\ntagger C O Mitter <committer@example.com> ${when} +0000\n`);
      data(Buffer.from(`release ${c}\n`));
    }
  }
  emit('done\n');
  return Buffer.concat(chunks);
}
