import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { SeededRandom } from '../support/seeded-random.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';

/**
 * git-internals §8.1 on a history whose blame and log -p hide reads at small limits: a limit-0
 * recording replayed elsewhere is exact or has bounds that contain real git (trace lines from
 * GIT_TRACE_PACK_ACCESS, inflations from an LD_PRELOAD count), and the bounds are narrow.
 */
const LIMITS = [0, 4 << 10, 16 << 10, 32 << 10, 64 << 10, 256 << 10, 1 << 20, 96 << 20];

interface Cell {
  limit: number;
  logged: number;
  inflations: number;
  exact: boolean;
  bounds: { logged: [number, number]; inflations: [number, number] } | null;
  hiddenReads: { places: number; placesThatMiss: number } | null;
}

describe('limit-0 recordings against real git: exact or bounded', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let shim: string;
  let cacheDir: string;
  let blamed: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-bounds-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(
      repo,
      wideTreeHistory(
        Number(process.env.W_FILES ?? 400),
        Number(process.env.W_COMMITS ?? 200),
        Number(process.env.W_SEED ?? 7),
      ),
    );
    sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    shim = buildInflateCounter(sandbox.root);
    cacheDir = path.join(sandbox.root, 'model-cache');
    blamed = 'Makefile';
  });

  function packscope(args: string[], input?: string): string {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
      maxBuffer: 1 << 30,
      input,
    });
    assert.equal(result.status, 0, result.stderr.toString());
    return result.stdout.toString();
  }

  function record(args: string[], extra: string[] = [], where = repo, input?: string): string {
    const output = path.join(sandbox.root, `rec-${args[0]}-${process.hrtime.bigint()}.psrec`);
    packscope(
      ['record', '--exact', ...extra, '-o', output, '-C', where, '--cache-dir', cacheDir, '--', ...args],
      input,
    );
    return output;
  }

  function realRun(args: string[], limit: number): { lines: number; inflations: number } {
    const trace = path.join(sandbox.root, `real-${process.hrtime.bigint()}.trace`);
    const counts = `${trace}.count`;
    sandbox.git(repo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
      env: { GIT_TRACE_PACK_ACCESS: trace, ...countingEnv(shim, counts) },
    });
    const lines = fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
    return { lines, inflations: readInflateCount(counts) };
  }

  function sweep(recording: string): Cell[] {
    const document = JSON.parse(
      packscope([
        'sweep',
        '--json',
        '--threads',
        '1',
        '--policies',
        'git',
        '--limits',
        LIMITS.join(','),
        '--cache-dir',
        cacheDir,
        recording,
      ]),
    ) as { results: Cell[] };
    return document.results;
  }

  /** Checks every cell against real git; returns the table and how many cells were not exact. */
  function check(name: string, args: string[], cells: Cell[]): { table: string[]; inexact: number; missed: number } {
    const table: string[] = [];
    let inexact = 0;
    let missed = 0;
    let outside: number | undefined;
    for (const cell of cells) {
      const real = realRun(args, cell.limit);
      // Inflations outside unpack_entry (§1.8) are the same at every limit: measured at 0, where the
      // recording is exact (its hidden reads are hits there).
      if (cell.limit === 0) {
        assert.equal(cell.exact, true, `${name}: exact at its own limit`);
        outside = real.inflations - cell.inflations;
      }
      const realInflations = real.inflations - outside!;
      const bounds = cell.bounds!;
      assert.ok(bounds, `${name} at ${cell.limit}: bounds`);
      table.push(
        `${cell.limit}: lines real ${real.lines} predicted ${cell.logged} bounds ${bounds.logged.join('–')}; inflations real ${realInflations} predicted ${cell.inflations} bounds ${bounds.inflations.join('–')}; places ${cell.hiddenReads?.placesThatMiss ?? 0}/${cell.hiddenReads?.places ?? '-'}`,
      );
      const message = `${name} at ${cell.limit}:\n${table.join('\n')}`;
      assert.ok(bounds.logged[0] <= real.lines && real.lines <= bounds.logged[1], `lines within bounds: ${message}`);
      assert.ok(
        bounds.inflations[0] <= realInflations && realInflations <= bounds.inflations[1],
        `inflations within bounds: ${message}`,
      );
      if (cell.exact) {
        assert.equal(cell.logged, real.lines, `exact lines: ${message}`);
        assert.equal(cell.inflations, realInflations, `exact inflations: ${message}`);
      } else {
        inexact++;
        // Not trivially wide: at most one line per place that misses at this limit.
        assert.ok(
          bounds.logged[1] - bounds.logged[0] <= 2 * cell.hiddenReads!.placesThatMiss,
          `logged width: ${message}`,
        );
      }
      if (cell.logged !== real.lines) missed++;
    }
    return { table, inexact, missed };
  }

  const commands: [string, () => string[]][] = [
    ['git blame', () => ['blame', blamed]],
    ['git log -p', () => ['log', '-p', '-n', '120']],
  ];
  test('§8.1 four-read case: --complete=4390 finds the hidden read of X and is exact there', () => {
    const text = (seed: string, length: number): Buffer =>
      Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));
    const X = text('the base of a chain ', 2000);
    const G = text('another family root ', 2000);
    const entries: ChosenEntry[] = [
      { content: X },
      { base: 0, content: Buffer.concat([X.subarray(0, 1990), Buffer.from('Y!Y!Y!Y!Y!')]) },
      { content: G },
    ];
    entries.push({
      base: 1,
      content: Buffer.concat([entries[1]!.content.subarray(0, 1990), Buffer.from('Z:Z:Z:Z:Z:')]),
    });
    entries.push({ base: 2, content: Buffer.concat([G.subarray(0, 1990), Buffer.from('G1G1G1G1G1')]) });
    const four = sandbox.init('four');
    const packDir = path.join(four, '.git', 'objects', 'pack');
    fs.writeFileSync(path.join(packDir, 'pack-test.pack'), writeChosenPack(entries));
    sandbox.git(packDir, ['index-pack', 'pack-test.pack']);
    const [x, y, , z, g1] = entries.map((entry) => blobId(entry.content).toString('hex')) as [
      string,
      string,
      string,
      string,
      string,
    ];
    const input = [z, g1, y, x].join('\n') + '\n';
    const args = ['cat-file', '--batch=%(objectname)'];
    const plain = record(args, [], four, input);
    const complete = record(args, ['--complete=4390'], four, input);
    const header = JSON.parse(
      fs
        .readFileSync(complete, 'utf8')
        .split('\n')[0]!
        .replace(/^#packscope-recording 1 /, ''),
    ) as { completeAt: number[]; hiddenReads: [number, number][] };
    assert.deepEqual(header.completeAt, [4390]);
    assert.deepEqual(header.hiddenReads, [[2, 1]], 'one read of X hidden after the third trace read (Y)');
    const realLines = (limit: number): number => {
      const trace = path.join(sandbox.root, `four-${process.hrtime.bigint()}.trace`);
      sandbox.git(four, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
        input,
        env: { GIT_TRACE_PACK_ACCESS: trace },
      });
      return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
    };
    const at = (recording: string, limit: number): Cell =>
      (
        JSON.parse(packscope(['simulate', '--json', '--limit', String(limit), '--cache-dir', cacheDir, recording])) as {
          results: Cell[];
        }
      ).results[0]!;
    assert.equal(realLines(4390), 3);
    const before = at(plain, 4390);
    assert.equal(before.exact, false);
    assert.deepEqual(before.bounds!.logged, [2, 3]);
    const after = at(complete, 4390);
    assert.equal(after.exact, true);
    assert.equal(after.logged, 3, "the complete recording predicts git's three lines");
    for (const limit of [0, 1000, 4000, 6000, 96 << 20]) {
      const cell = at(complete, limit);
      const real = realLines(limit);
      assert.ok(
        cell.bounds!.logged[0] <= real && real <= cell.bounds!.logged[1],
        `complete recording at ${limit}: ${real} within ${cell.bounds!.logged.join('–')}`,
      );
      if (cell.exact) assert.equal(cell.logged, real);
    }
  });

  const COMPLETE = [32 << 10, 64 << 10];
  for (const [name, args] of commands) {
    test(`${name}: a limit-0 recording is exact or bounded at every limit`, (t) => {
      const cells = sweep(record(args()));
      const { table, inexact, missed } = check(name, args(), cells);
      t.diagnostic(
        `${name}: ${inexact} of ${cells.length} cells not exact, ${missed} where the plain replay misses git\n${table.join('\n')}`,
      );
    });
    test(`${name}: record --complete=32k,64k is exact at 32k and 64k, bounded elsewhere`, (t) => {
      const recording = record(args(), [`--complete=${COMPLETE.join(',')}`]);
      const header = JSON.parse(
        fs
          .readFileSync(recording, 'utf8')
          .split('\n')[0]!
          .replace(/^#packscope-recording 1 /, ''),
      ) as { completeAt: number[]; hiddenReads: [number, number][]; cacheLimit: number };
      assert.deepEqual(header.completeAt, COMPLETE, 'the header says where it is complete');
      assert.equal(header.cacheLimit, 0);
      const cells = sweep(recording);
      for (const cell of cells)
        if (COMPLETE.includes(cell.limit)) assert.equal(cell.exact, true, `${name}: exact at ${cell.limit}`);
      const { table, inexact } = check(`${name} --complete`, args(), cells);
      t.diagnostic(
        `${name} --complete: ${header.hiddenReads.length} places with hidden reads found; ${inexact} of ${cells.length} cells not exact\n${table.join('\n')}`,
      );
    });
  }
});

/**
 * One directory of `files` files with long names (a tree of ~`files` × 60 bytes: 9–22 KB trees were
 * what git.git hid, §8.1), each commit editing a few of them and often the blamed file.
 */
function wideTreeHistory(files: number, commits: number, seed: number): Buffer {
  const random = new SeededRandom(seed);
  const chunks: string[] = [];
  const names = Array.from(
    { length: files },
    (_, i) => `module-${String(i).padStart(4, '0')}-with-a-rather-long-descriptive-name.c`,
  );
  names.push('Makefile');
  const contents = names.map((name) => Array.from({ length: 8 }, (_, l) => `${name} line ${l}`));
  const alive = names.map((_, i) => i);
  for (let c = 0; c < commits; c++) {
    chunks.push(
      `commit refs/heads/main\nmark :${c + 1}\ncommitter A <a@example.com> ${1_600_000_000 + c * 60} +0000\ndata 8\ncommit ${c % 10}\n`,
    );
    if (c > 0) chunks.push(`from :${c}\n`);
    const touched = new Set<number>(c === 0 ? names.map((_, i) => i) : []);
    for (let e = 0; e < 3; e++) touched.add(alive[Math.floor(random.next() * alive.length)]!);
    if (random.next() < 0.5) touched.add(names.length - 1);
    // The tree shrinks: a newer, smaller tree is stored as a delta on the older one (pack-objects
    // tries larger objects as bases first), so diff_tree reads a delta, then its base (§8.1).
    if (c > 0 && random.next() < 0.6 && alive.length > 2) {
      const gone = alive.splice(Math.floor(random.next() * (alive.length - 1)), 1)[0]!;
      touched.delete(gone);
      chunks.push(`D ${names[gone]}\n`);
    }
    for (const i of touched) {
      const lines = contents[i]!;
      if (c > 0) lines[Math.floor(random.next() * lines.length)] = `${names[i]} edit ${c}`;
      const data = lines.join('\n') + '\n';
      chunks.push(`M 100644 inline ${names[i]}\ndata ${Buffer.byteLength(data)}\n${data}`);
    }
    chunks.push('\n');
  }
  chunks.push('done\n');
  return Buffer.from(chunks.join(''));
}
