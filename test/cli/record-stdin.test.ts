import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { keptInput } from '../../src/core/trace/record-git.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { blobId, writeChosenPack, type ChosenEntry } from '../support/chosen-delta-pack.ts';

/**
 * `record` of a command that reads standard input (`cat-file --batch` fed object names) keeps the
 * input beside the recording, and the completion `simulate` advises runs the command again on it:
 * the completed recording is exact where the limit-0 one was bounded, as real git. The pack is
 * git-internals §8.1's minimal case: Z→Y→X and G1→G, read Z G1 Y X; at 4,390 bytes the read of X
 * that limit 0 hides misses.
 */

const text = (seed: string, length: number): Buffer =>
  Buffer.from(seed.repeat(Math.ceil(length / seed.length)).slice(0, length));

function minimalCase(sandbox: GitSandbox): { repo: string; input: string } {
  const X = text('the base of a chain ', 2000);
  const G = text('another family root ', 2000);
  const entries: ChosenEntry[] = [
    { content: X },
    { base: 0, content: Buffer.concat([X.subarray(0, 1990), Buffer.from('Y!Y!Y!Y!Y!')]) },
    { content: G },
  ];
  entries.push({ base: 1, content: Buffer.concat([entries[1]!.content.subarray(0, 1990), Buffer.from('Z:Z:Z:Z:Z:')]) });
  entries.push({ base: 2, content: Buffer.concat([G.subarray(0, 1990), Buffer.from('G1G1G1G1G1')]) });
  const repo = sandbox.init('repo');
  const packDir = path.join(repo, '.git', 'objects', 'pack');
  fs.writeFileSync(path.join(packDir, 'pack-test.pack'), writeChosenPack(entries));
  sandbox.git(packDir, ['index-pack', 'pack-test.pack']);
  const [x, y, , z, g1] = entries.map((entry) => blobId(entry.content).toString('hex'));
  return { repo, input: [z, g1, y, x].join('\n') + '\n' };
}

const ARGS = ['cat-file', '--batch=%(objectname)'];

test('record keeps the input of cat-file --batch; the completion simulate prints runs on it and is exact, as git', (t) => {
  const root = tempDir(t);
  const sandbox = new GitSandbox(root);
  const { repo, input } = minimalCase(sandbox);
  const env = gitEnv(sandbox.home) as Record<string, string>;
  const recordings = path.join(root, 'recordings');
  const recording = path.join(recordings, 'batch.psrec');

  const recorded = runCli(['record', '-o', recording, '-C', repo, '--', ...ARGS], { env, input });
  assert.equal(recorded.status, 0, recorded.stderr);
  for (const name of input.trim().split('\n'))
    assert.ok(
      recorded.stdout.toString().includes(`${name}\n`),
      `git's own output names ${name}: it was given the input`,
    );
  assert.equal(fs.readFileSync(`${recording}.input`, 'utf8'), input, 'the input kept beside the recording');
  const header = JSON.parse(
    fs
      .readFileSync(recording, 'utf8')
      .split('\n')[0]!
      .replace(/^#packscope-recording 1 /, ''),
  ) as {
    input?: { bytes: number; sha256: string };
  };
  assert.deepEqual(header.input, {
    bytes: Buffer.byteLength(input),
    sha256: createHash('sha256').update(input).digest('hex'),
  });
  assert.equal(keptInput(recording, header.input!).toString(), input);

  const bounded = runCli(['simulate', recording, '--limit', '4390'], { env });
  assert.equal(bounded.status, 0, bounded.stderr);
  assert.match(bounded.stdout.toString(), /^logged +2–3 /m, 'bounded: the read of X limit 0 hides may miss');
  const advice = bounded.stdout
    .toString()
    .split('\n')
    .find((line) => line.startsWith('  packscope record --complete='));
  assert.ok(advice, `completion advised:\n${bounded.stdout.toString()}`);
  assert.ok(advice.endsWith(`< ${recording}.input`), `given the kept input: ${advice}`);

  // The advice as a user pastes it, with the CLI built for the tests in place of `packscope`.
  const completedDir = path.join(root, 'completed');
  const shell = spawnSync('sh', ['-c', advice.trim().replace(/^packscope /, `"${process.execPath}" "$CLI" `)], {
    env: {
      ...process.env,
      ...env,
      CLI: path.resolve('dist/cli.js'),
      PACKSCOPE_RECORDINGS_DIR: completedDir,
      PACKSCOPE_NO_PROGRESS: '1',
    },
  });
  assert.equal(shell.status, 0, shell.stderr.toString());
  const [completed] = fs.readdirSync(completedDir).filter((name) => !name.endsWith('.input'));
  assert.ok(completed, 'a completed recording');
  const exact = runCli(['simulate', path.join(completedDir, completed), '--limit', '4390', '--json'], { env });
  assert.equal(exact.status, 0, exact.stderr);
  const result = (JSON.parse(exact.stdout.toString()) as { results: { exact: boolean; logged: number }[] }).results[0]!;
  const trace = path.join(root, 'real.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=4390', ...ARGS], {
    input,
    env: { GIT_TRACE_PACK_ACCESS: trace, GIT_TRACE_BARE: '1' },
  });
  const real = fs.readFileSync(trace, 'utf8').split('\n').filter(Boolean).length;
  assert.equal(real, 3, 'git at 4390 logs Z G1 X');
  assert.deepEqual({ exact: result.exact, logged: result.logged }, { exact: true, logged: real });
  // Its one hidden read comes after the last trace read: locality counts the trace's reads (git's
  // pack accesses at limit 0), not the hidden ones (it read past its reads' arrays before).
  const locality = runCli(['locality', path.join(completedDir, completed)], { env });
  assert.equal(locality.status, 0, locality.stderr);
  assert.match(locality.stdout.toString(), /^ {2}3 reads, /m);
});

test('the input is given to git and kept byte for byte, binary or not', (t) => {
  const root = tempDir(t);
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('repo');
  // Not text in any encoding: every byte value, twice.
  const bytes = Buffer.from([
    ...Array.from({ length: 256 }, (_, i) => i),
    ...Array.from({ length: 256 }, (_, i) => 255 - i),
  ]);
  const recording = path.join(root, 'hash.psrec');
  const spawned = spawnSync(
    process.execPath,
    [path.resolve('dist/cli.js'), 'record', '-o', recording, '-C', repo, '--', 'hash-object', '--stdin'],
    {
      input: bytes,
      env: { ...process.env, ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
    },
  );
  assert.equal(spawned.status, 0, spawned.stderr.toString());
  const direct = sandbox.git(repo, ['hash-object', '--stdin'], { input: bytes }).toString();
  assert.equal(spawned.stdout.toString(), direct, 'git hashed the very bytes given');
  assert.deepEqual(fs.readFileSync(`${recording}.input`), bytes, 'and they are kept as given');
});

test('a kept input that is missing or changed is refused by name, never given to the command', (t) => {
  const root = tempDir(t);
  const sandbox = new GitSandbox(root);
  const { repo, input } = minimalCase(sandbox);
  const recording = path.join(root, 'batch.psrec');
  assert.equal(
    runCli(['record', '-o', recording, '-C', repo, '--', ...ARGS], {
      env: gitEnv(sandbox.home) as Record<string, string>,
      input,
    }).status,
    0,
  );
  const kept = { bytes: Buffer.byteLength(input), sha256: createHash('sha256').update(input).digest('hex') };
  fs.writeFileSync(
    `${recording}.input`,
    input.replace(/^./, (c) => (c === 'a' ? 'b' : 'a')),
  );
  assert.throws(() => keptInput(recording, kept), /SHA-256 differs/);
  fs.writeFileSync(`${recording}.input`, input + input);
  assert.throws(() => keptInput(recording, kept), /not the \d+-byte standard input/);
  fs.rmSync(`${recording}.input`);
  assert.throws(() => keptInput(recording, kept), /is not beside it: completing it needs that input/);
});
