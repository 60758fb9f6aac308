import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { applyRecordingVariables, recordingVariables } from '../../src/common/recording-environment.ts';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { SeededRandom } from '../support/seeded-random.ts';

/**
 * Commands whose reads depend on threads are never called exact (git-internals §1.11, §8.3):
 * recorded single-threaded by default and said so beside every number, checked by a second run,
 * and a threaded run's recording (or a raw trace of one) gets no exact cell and a true reason.
 * Every count is compared with real git's GIT_TRACE_PACK_ACCESS lines.
 */
const LIMITS = [0, 16 << 10, 64 << 10, 1 << 20, 96 << 20];

interface Cell {
  limit: number;
  logged: number;
  exact: boolean;
  exactness: string;
  bounds: { logged: [number, number] } | null;
}

describe('threaded readers against real git', () => {
  let sandbox: GitSandbox;
  let repo: string;
  let cacheDir: string;
  let revisions: string[];

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-threads-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, history(120, 11));
    sandbox.git(repo, ['repack', '-adf', '--depth=50', '--window=50']);
    sandbox.git(repo, ['reset', '-q', '--hard', 'main']);
    cacheDir = path.join(sandbox.root, 'model-cache');
    revisions = sandbox.gitText(repo, ['rev-list', '-n', '25', 'main']).trim().split('\n');
  });

  function packscope(args: string[], input?: string): { stdout: string; stderr: string } {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
      maxBuffer: 1 << 30,
      input,
    });
    assert.equal(result.status, 0, result.stderr.toString());
    return { stdout: result.stdout.toString(), stderr: result.stderr.toString() };
  }

  function record(
    name: string,
    args: string[],
    extra: string[] = [],
    input?: string,
  ): { file: string; stderr: string } {
    const file = path.join(sandbox.root, `${name}.psrec`);
    const { stderr } = packscope(
      ['record', ...extra, '-o', file, '-C', repo, '--cache-dir', cacheDir, '--', ...args],
      input,
    );
    return { file, stderr };
  }

  function header(file: string): { singleThreaded?: string; check?: { identical: boolean; lines: [number, number] } } {
    return JSON.parse(
      fs
        .readFileSync(file, 'utf8')
        .split('\n')[0]!
        .replace(/^#packscope-recording 1 /, ''),
    ) as {
      singleThreaded?: string;
      check?: { identical: boolean; lines: [number, number] };
    };
  }

  function sweep(file: string): Cell[] {
    const out = packscope([
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
      file,
    ]);
    return (JSON.parse(out.stdout) as { results: Cell[] }).results;
  }

  /** Real git's trace lines of the command at `limit`, with extra config (`grep.threads=1`). */
  function realLines(args: string[], limit: number, config: string[] = [], input?: string): number {
    const trace = path.join(sandbox.root, `real-${process.hrtime.bigint()}.trace`);
    sandbox.git(repo, [...config.flatMap((c) => ['-c', c]), '-c', `core.deltaBaseCacheLimit=${limit}`, ...args], {
      env: { GIT_TRACE_PACK_ACCESS: trace },
      ...(input !== undefined ? { input } : {}),
    });
    return fs.existsSync(trace) ? fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length : 0;
  }

  /** Every cell exact or bounded around real git run as recorded, and saying it was single-threaded. */
  function checkSingleThreaded(cells: Cell[], args: string[], config: string, input?: string): string[] {
    const table: string[] = [];
    for (const cell of cells) {
      const real = realLines(args, cell.limit, [config], input);
      table.push(
        `${cell.limit}: real ${real} predicted ${cell.logged} bounds ${cell.bounds?.logged.join('–')} (${cell.exactness})`,
      );
      const message = table.join('\n');
      assert.ok(cell.exactness.includes(`single-threaded (${config})`), message);
      assert.ok(cell.bounds && cell.bounds.logged[0] <= real && real <= cell.bounds.logged[1], message);
      if (cell.exact) assert.equal(cell.logged, real, message);
      if (cell.limit === 0) assert.equal(cell.exact, true, message);
    }
    return table;
  }

  test('git grep over revisions: recorded with grep.threads=1, checked, exact or bounded and said so', (t) => {
    const args = ['grep', '-c', 'statement', ...revisions];
    const { file, stderr } = record('grep', args);
    const h = header(file);
    assert.equal(h.singleThreaded, 'grep.threads=1');
    assert.equal(h.check?.identical, true, 'single-threaded, a second run reads alike');
    assert.match(stderr, /recorded single-threaded \(grep\.threads=1\)/);
    t.diagnostic(checkSingleThreaded(sweep(file), args, 'grep.threads=1').join('\n'));
  });

  test('pack-objects with a delta search: recorded with pack.threads=1, exact or bounded and said so', (t) => {
    const args = ['pack-objects', '--revs', '--stdout', '--no-reuse-delta'];
    const input = 'main\n';
    const { file } = record('pack-objects', args, [], input);
    const h = header(file);
    assert.equal(h.singleThreaded, 'pack.threads=1');
    assert.equal(h.check?.identical, true);
    t.diagnostic(checkSingleThreaded(sweep(file), args, 'pack.threads=1', input).join('\n'));
  });

  test('git grep recorded with its threads: never exact, no bounds, the true reason', (t) => {
    const args = ['grep', '-c', 'statement', ...revisions];
    const { file, stderr } = record('grep-threads', args, ['--threads-as-is']);
    const h = header(file);
    assert.equal(h.singleThreaded, undefined);
    assert.ok(h.check, 'a threaded reader is checked');
    assert.match(stderr, /reads the blobs it searches in several threads/);
    // Real threaded runs at limit 0, for the record: how far apart they are here.
    const counts = [1, 2, 3, 4].map(() => realLines(args, 0));
    for (const cell of sweep(file)) {
      assert.equal(cell.exact, false, `${cell.limit}: ${cell.exactness}`);
      assert.equal(cell.bounds, null);
      assert.match(cell.exactness, /^not deterministic: /);
      assert.doesNotMatch(cell.exactness, /not a limit-0 recording/);
    }
    t.diagnostic(`check: ${JSON.stringify(h.check)}; threaded runs at 0 logged ${counts.join(', ')} lines`);
  });

  test('a raw trace of a threaded grep is not exact either, named by its process', () => {
    const trace = path.join(sandbox.root, 'terminal-grep.trace');
    const base = gitEnv(sandbox.home);
    const env = applyRecordingVariables(base, recordingVariables(base, trace, 'exact'));
    execFileSync('git', ['grep', '-c', 'statement', ...revisions.slice(0, 10)], { cwd: repo, env, stdio: 'ignore' });
    const cell = (
      JSON.parse(
        packscope(['simulate', '--json', '--limit', '0', '--cache-dir', cacheDir, '-C', repo, trace]).stdout,
      ) as { results: Cell[] }
    ).results[0]!;
    assert.equal(cell.exact, false);
    assert.match(cell.exactness, /^not deterministic: git grep reads the blobs .*\(git grep -c statement/);
  });

  test('record --check on commands that read in one thread: both runs alike, exact at the recorded limit', () => {
    for (const [name, args] of [
      ['log', ['log', '--raw', '-n', '60']],
      ['status', ['status']],
      ['diff', ['diff', '--stat', revisions[20]!, 'main']],
    ] as [string, string[]][]) {
      const { file, stderr } = record(`check-${name}`, args, ['--check']);
      const h = header(file);
      assert.equal(h.check?.identical, true, `${name}: ${stderr}`);
      assert.equal(h.singleThreaded, undefined);
      const cell = (
        JSON.parse(packscope(['simulate', '--json', '--limit', '0', '--cache-dir', cacheDir, file]).stdout) as {
          results: Cell[];
        }
      ).results[0]!;
      assert.equal(cell.exact, true, `${name}: ${cell.exactness}`);
      assert.equal(cell.exactness, 'recorded at this limit');
    }
  });
});

/** Source files edited over many commits: grep over revisions and pack-objects read their blobs. */
function history(commits: number, seed: number): Buffer {
  const random = new SeededRandom(seed);
  const files = Array.from({ length: 30 }, (_, i) => `src/module-${i}.c`);
  const contents = files.map((name) =>
    Array.from({ length: 120 }, (_, l) => `\tstatement_${l}(${JSON.stringify(name)});`),
  );
  const chunks: string[] = [];
  for (let c = 0; c < commits; c++) {
    chunks.push(
      `commit refs/heads/main\nmark :${c + 1}\ncommitter A <a@example.com> ${1_600_000_000 + c * 60} +0000\ndata 9\ncommit ${c % 10}\n`,
    );
    if (c > 0) chunks.push(`from :${c}\n`);
    const touched = c === 0 ? files.map((_, i) => i) : [0, 1, 2].map(() => Math.floor(random.next() * files.length));
    for (const i of new Set(touched)) {
      const lines = contents[i]!;
      if (c > 0) lines[Math.floor(random.next() * lines.length)] = `\tedited_${c}();`;
      const data = lines.join('\n') + '\n';
      chunks.push(`M 100644 inline ${files[i]}\ndata ${Buffer.byteLength(data)}\n${data}`);
    }
    chunks.push('\n');
  }
  chunks.push('done\n');
  return Buffer.from(chunks.join(''));
}
