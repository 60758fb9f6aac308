/**
 * Hostile input through the CLI: crafted model-cache files, cache directories that
 * are files, hang on a pseudo file system or lie in another repository, `record -o` into another
 * repository, and a trace that must be counted and copied without being read into one string.
 */
import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { countAccessLines } from '../../src/core/trace/record-git.ts';
import { cliPath, directorySnapshot, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { modelFileIn, readModelFile, sealWithCacheKey, writeModelFile } from '../support/model-file.ts';

const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

describe('the CLI against a hostile model cache and cache directory', () => {
  let sandbox: GitSandbox;
  let repo: string;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-hostile-record-'));
    process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
    repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 60, seed: 7 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=10']);
  });

  function cli(
    args: string[],
    env: NodeJS.ProcessEnv = gitEnv(sandbox.home),
    timeout = 60_000,
  ): { status: number | null; stdout: string; stderr: string; timedOut: boolean } {
    const result = spawnSync(process.execPath, [cliPath, ...args], {
      cwd: repo,
      env: { ...env, PACKSCOPE_NO_PROGRESS: '1' },
      maxBuffer: 1 << 30,
      timeout,
      killSignal: 'SIGKILL',
    });
    return {
      status: result.status,
      stdout: result.stdout.toString(),
      stderr: result.stderr.toString(),
      timedOut: result.error !== undefined,
    };
  }

  test('a model file with a depth of 0xFFFFFFFF, wrong types and bases, sealed with the key: the output is the fresh build’s', () => {
    const cacheDir = path.join(sandbox.root, 'crafted-cache');
    const expected = {
      stats: cli(['stats', '--no-cache', '--json', repo]).stdout,
      objects: cli(['objects', '--no-cache', repo]).stdout,
    };
    assert.equal(cli(['stats', '--cache-dir', cacheDir, repo]).status, 0);
    const file = modelFileIn(cacheDir);
    const model = readModelFile(fs.readFileSync(file));
    const deltas = model.inPackType.flatMap((t, n) => (t === OBJ_OFS_DELTA || t === OBJ_REF_DELTA ? [n] : []));
    model.header.depthBytes = 4;
    model.depth[deltas[0]!] = 0xffffffff;
    model.type[deltas[1]!] = model.type[deltas[1]!] === 1 ? 3 : 1;
    model.base[deltas[2]!] = deltas[3]!;
    model.size[deltas[4]!] = 7;
    fs.writeFileSync(file, writeModelFile(model, sealWithCacheKey(cacheDir, model.version)));

    for (const [command, args] of [
      ['stats', ['stats', '--json', '--cache-dir', cacheDir, repo]],
      ['objects', ['objects', '--cache-dir', cacheDir, repo]],
    ] as const) {
      const run = cli([...args]);
      assert.equal(run.status, 0, `${command}: ${run.stderr.slice(0, 2000)}`);
      assert.equal(run.stdout, expected[command], `${command} printed what the crafted model file said`);
    }
  });

  test('a --cache-dir that is a file is refused by name, not an internal error', () => {
    const file = path.join(sandbox.root, 'cache-file');
    fs.writeFileSync(file, 'x');
    const run = cli(['stats', '--cache-dir', file, repo]);
    assert.equal(run.status, 1);
    assert.doesNotMatch(run.stderr, /internal error/);
    assert.match(run.stderr, /cache-file: the model cache must be a directory/);
    const below = cli(['stats', '--cache-dir', path.join(file, 'models'), repo]);
    assert.equal(below.status, 1);
    assert.match(below.stderr, /the model cache must be a directory, and .*cache-file is not one/);
  });

  test(
    'a --cache-dir under /proc/1 does not hang: the save fails with a warning, the answer is printed',
    { skip: !fs.existsSync('/proc/1') },
    () => {
      const expected = cli(['stats', '--no-cache', repo]).stdout;
      const run = cli(['stats', '--cache-dir', '/proc/1/packscope-models', repo], gitEnv(sandbox.home), 30_000);
      assert.equal(run.timedOut, false, 'stats hung on a cache directory under /proc');
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stdout, expected);
      assert.match(run.stderr, /warning: could not save the model of .* in \/proc\/1\/packscope-models/);
    },
  );

  test('a default cache inside the repository at HOME: nothing written there, a warning, the same answer', (t) => {
    const home = sandbox.init(`home-${process.hrtime.bigint()}`);
    t.after(() => fs.rmSync(home, { recursive: true, force: true }));
    const before = directorySnapshot(home);
    const env = gitEnv(home);
    delete env.XDG_CACHE_HOME;
    delete env.PACKSCOPE_CACHE_DIR;
    const run = cli(['stats', repo], env);
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stdout, cli(['stats', '--no-cache', repo]).stdout);
    assert.match(run.stderr, /warning: the model cache .* is inside the repository .*home-/);
    assert.deepEqual(directorySnapshot(home), before, 'the CLI wrote inside the repository at HOME');
  });

  test('record -o inside another repository is refused before anything is created there', () => {
    const other = sandbox.init(`other-${process.hrtime.bigint()}`);
    const before = directorySnapshot(other);
    const output = path.join(other, 'new', 'dir', 'x.psrec');
    const run = cli(['record', '-o', output, '-C', repo, '--no-cache', '--', 'rev-parse', 'HEAD']);
    assert.equal(run.status, 1);
    assert.match(run.stderr, /the recording must be written outside the repository/);
    assert.deepEqual(directorySnapshot(other), before, 'record created files inside the other repository');

    const inside = cli([
      'record',
      '-o',
      path.join(repo, 'sub', 'x.psrec'),
      '-C',
      repo,
      '--no-cache',
      '--',
      'rev-parse',
      'HEAD',
    ]);
    assert.equal(inside.status, 1);
    assert.equal(fs.existsSync(path.join(repo, 'sub')), false);
  });

  test('record counts and copies the trace without reading it into one string', () => {
    // The limit was V8's longest string (512 MiB): no test writes that much. Instead every
    // whole-file read of the trace or the recording fails, so that only chunked reads succeed.
    const guard = path.join(sandbox.root, 'no-whole-reads.cjs');
    fs.writeFileSync(
      guard,
      `const fs = require('node:fs');
const refuse = (original) => function (file, ...rest) {
  if (/\\.(trace|psrec)$/.test(String(file))) throw new Error('whole-file read of ' + file);
  return original.call(this, file, ...rest);
};
fs.readFileSync = refuse(fs.readFileSync);
fs.promises.readFile = refuse(fs.promises.readFile);
`,
    );
    const output = path.join(sandbox.root, `log-${process.hrtime.bigint()}.psrec`);
    const result = spawnSync(
      process.execPath,
      ['--require', guard, cliPath, 'record', '-o', output, '-C', repo, '--no-cache', '--', 'log', '--raw', '-n', '30'],
      {
        cwd: repo,
        env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
        maxBuffer: 1 << 30,
      },
    );
    const stderr = result.stderr.toString();
    assert.equal(result.status, 0, stderr);
    const lines = fs
      .readFileSync(output, 'utf8')
      .split('\n')
      .filter((line) => /\.pack \d+$/.test(line)).length;
    assert.ok(lines > 0);
    assert.match(stderr, new RegExp(`recorded ${lines} pack reads`));
  });
});

test('countAccessLines: lines cut by chunk boundaries, a last line without a newline', (t) => {
  const dir = tempDir(t);
  const file = path.join(dir, 'big.trace');
  const pack = '/repo/.git/objects/pack/pack-0123456789abcdef0123456789abcdef01234567.pack';
  const parts: string[] = [];
  let expected = 0;
  // Over 3 MiB of mixed lines, so that many lines straddle the 1 MiB chunks.
  for (let k = 0; k < 40_000; k++) {
    if (k % 7 === 0) parts.push(`12:00:00.000000 trace.c:1 trace: built-in: git log --raw ${'x'.repeat(k % 50)}\n`);
    else {
      parts.push(`12:00:00.${String(k).padStart(6, '0')} packfile.c:1 ${pack} ${k * 13}\n`);
      expected++;
    }
  }
  parts.push(`12:00:00.999999 packfile.c:1 ${pack} 42`);
  expected++;
  fs.writeFileSync(file, parts.join(''));
  assert.ok(fs.statSync(file).size > 3 << 20);
  assert.equal(countAccessLines(file), expected);
});
