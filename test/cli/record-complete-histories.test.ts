import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { longHistory } from '../support/long-history.ts';
import { buildInflateCounter, countingEnv, readInflateCount } from '../support/inflate-counter.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';

/**
 * `record --complete` on histories shaped like the commands it once failed on (git-internals §8.3):
 * one function's history through `log -L`, and `blame` of a build file edited across hundreds of
 * commits. Where the recorded reads after a place are cache hits at a limit, a trace line there can
 * be a hidden read or a later read; the completion must align both runs anyway, and its replay must
 * be real git's at every limit it completed (trace lines and inflations), and bounded around real
 * git at the others.
 */
const COMPLETE = [16 << 10, 64 << 10, 256 << 10, 1 << 20];
const OTHERS = [0, 4 << 10, 32 << 10, 128 << 10, 96 << 20];

interface Cell {
  limit: number;
  logged: number;
  inflations: number;
  exact: boolean;
  exactness: string;
  bounds: { logged: [number, number]; inflations: [number, number] } | null;
}

describe('record --complete on long histories against real git', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let shim: string;
  let cacheDir: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-complete-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, longHistory(Number(process.env.H_COMMITS ?? 360), Number(process.env.H_SEED ?? 3)));
    sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    shim = buildInflateCounter(sandbox.root);
    cacheDir = path.join(sandbox.root, 'model-cache');
  });

  function packscope(args: string[]): { status: number | null; stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
      maxBuffer: 1 << 30,
    });
    return { status: result.status, stdout: result.stdout.toString(), stderr: result.stderr.toString() };
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

  test('a trace line that looks like a hidden read but is a later recorded read: aligned, exact', () => {
    // X (3,000 bytes) ← Y ← Z and B ← W ← V (500 bytes each); reads Z V Y W X. At a 2,000-byte
    // limit Z leaves only Y (X is evicted), V adds B and W, so Y and W are hits and X misses: git
    // logs Z V X. At limit 0 it logs all five. After Y the limit-0 cache holds X, so the X git logs
    // at 2,000 could be a read hidden there; it is the recorded X two reads later (no read of this
    // run is hidden). A scan that takes the first reading stops on it.
    const text = (seed: string, length: number): Buffer =>
      Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));
    const X = text('the big base of a chain ', 3000);
    const Y = Buffer.concat([X.subarray(0, 490), Buffer.from('Y!Y!Y!Y!Y!')]);
    const B = text('another family root ', 500);
    const W = Buffer.concat([B.subarray(0, 490), Buffer.from('W!W!W!W!W!')]);
    const entries: ChosenEntry[] = [
      { content: X },
      { base: 0, content: Y },
      { base: 1, content: Buffer.concat([Y.subarray(0, 490), Buffer.from('Z:Z:Z:Z:Z:')]) },
      { content: B },
      { base: 3, content: W },
      { base: 4, content: Buffer.concat([W.subarray(0, 490), Buffer.from('V:V:V:V:V:')]) },
    ];
    const trapRepo = sandbox.init('trap');
    const packDir = path.join(trapRepo, '.git', 'objects', 'pack');
    fs.writeFileSync(path.join(packDir, 'pack-trap.pack'), writeChosenPack(entries));
    sandbox.git(packDir, ['index-pack', 'pack-trap.pack']);
    const [x, y, z, , w, v] = entries.map((entry) => blobId(entry.content).toString('hex'));
    const input = [z, v, y, w, x].join('\n') + '\n';
    const args = ['cat-file', '--batch=%(objectname)'];
    const traceAt = (limit: number): string[] => {
      const trace = path.join(sandbox.root, `trap-${process.hrtime.bigint()}.trace`);
      sandbox.git(trapRepo, ['-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
        input,
        env: { GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1' },
      });
      return fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean);
    };
    // Git's own traces, as described above.
    assert.equal(traceAt(0).length, 5);
    const at2000 = traceAt(2000);
    assert.equal(at2000.length, 3);
    assert.equal(at2000[2], traceAt(0)[4], 'the third line at 2,000 is the read of X');
    const output = path.join(sandbox.root, 'trap.psrec');
    const result = spawnSync(
      process.execPath,
      [
        cliPath,
        'record',
        '--exact',
        '--complete=2000',
        '-o',
        output,
        '-C',
        trapRepo,
        '--cache-dir',
        cacheDir,
        '--',
        ...args,
      ],
      { env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' }, input },
    );
    assert.equal(result.status, 0, result.stderr.toString());
    const header = JSON.parse(
      fs
        .readFileSync(output, 'utf8')
        .split('\n')[0]!
        .replace(/^#packscope-recording 1 /, ''),
    ) as { hiddenReads: [number, number][]; ambiguousReads?: number[] };
    assert.deepEqual(header.hiddenReads, []);
    assert.equal(header.ambiguousReads, undefined, 'one reading explains both runs');
    const cell = (
      JSON.parse(packscope(['simulate', '--json', '--limit', '2000', '--cache-dir', cacheDir, output]).stdout) as {
        results: Cell[];
      }
    ).results[0]!;
    assert.equal(cell.exact, true);
    assert.equal(cell.logged, at2000.length);
  });

  const commands: [string, string[]][] = [
    ['log -L of one function', ['log', '-L', '/^int cmd_repack/,+20:builtin/repack.c', '-n', '50']],
    ['blame of the build file', ['blame', 'Makefile']],
  ];
  for (const [name, args] of commands) {
    test(`${name}: record --complete aligns, and is git's at every limit it completed`, (t) => {
      const output = path.join(sandbox.root, `${name.replace(/\W+/g, '-')}.psrec`);
      const recorded = packscope([
        'record',
        '--exact',
        `--complete=${COMPLETE.join(',')}`,
        '-o',
        output,
        '-C',
        repo,
        '--cache-dir',
        cacheDir,
        '--',
        ...args,
      ]);
      assert.equal(recorded.status, 0, recorded.stderr);
      const header = JSON.parse(
        fs
          .readFileSync(output, 'utf8')
          .split('\n')[0]!
          .replace(/^#packscope-recording 1 /, ''),
      ) as { completeAt: number[]; hiddenReads: [number, number][]; ambiguousReads?: number[] };
      assert.deepEqual(header.completeAt, COMPLETE);
      const sweep = packscope([
        'sweep',
        '--json',
        '--threads',
        '1',
        '--policies',
        'git',
        '--limits',
        [...COMPLETE, ...OTHERS].join(','),
        '--cache-dir',
        cacheDir,
        output,
      ]);
      assert.equal(sweep.status, 0, sweep.stderr);
      const cells = (JSON.parse(sweep.stdout) as { results: Cell[] }).results;
      const zero = realRun(args, 0);
      const atZero = cells.find((cell) => cell.limit === 0)!;
      // Inflations outside unpack_entry (§1.8) are the same at every limit: measured at limit 0,
      // where the recording is exact.
      assert.equal(atZero.exact, true);
      const outside = zero.inflations - atZero.inflations;
      const table: string[] = [];
      for (const cell of cells) {
        const real = realRun(args, cell.limit);
        const realInflations = real.inflations - outside;
        table.push(
          `${cell.limit}: lines real ${real.lines} predicted ${cell.logged} bounds ${cell.bounds?.logged.join('–')}; inflations real ${realInflations} predicted ${cell.inflations}; ${cell.exactness}`,
        );
        const message = `${name}:\n${table.join('\n')}`;
        if (COMPLETE.includes(cell.limit) && (header.ambiguousReads ?? []).length === 0)
          assert.equal(cell.exact, true, `exact where completed: ${message}`);
        assert.ok(cell.bounds, message);
        assert.ok(cell.bounds.logged[0] <= real.lines && real.lines <= cell.bounds.logged[1], `lines: ${message}`);
        assert.ok(
          cell.bounds.inflations[0] <= realInflations && realInflations <= cell.bounds.inflations[1],
          `inflations: ${message}`,
        );
        if (cell.exact) {
          assert.equal(cell.logged, real.lines, `exact lines: ${message}`);
          assert.equal(cell.inflations, realInflations, `exact inflations: ${message}`);
        }
      }
      t.diagnostic(
        `${name}: ${header.hiddenReads.reduce((sum, [, n]) => sum + n, 0)} hidden reads at ${header.hiddenReads.length} places, ${(header.ambiguousReads ?? []).length} ambiguous\n${table.join('\n')}`,
      );
    });
  }
});
