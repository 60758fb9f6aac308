import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GitCommandError } from '../../src/core/errors.ts';
import { MAX_STDERR_BYTES, runGit, runGitCapture } from '../../src/core/git/run-git.ts';
import { tempDir } from '../support/git.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Sets an environment variable of this process until the test ends. */
function setForTest(t: TestContext, name: string, value: string): void {
  const before = process.env[name];
  process.env[name] = value;
  t.after(() => {
    if (before === undefined) delete process.env[name];
    else process.env[name] = before;
  });
}

test("a failing git: one error in git's own words; a missing git: says which", async (t) => {
  const outside = tempDir(t);
  await assert.rejects(
    runGitCapture('git', ['rev-parse', '--verify', 'HEAD'], {
      cwd: outside,
      env: { GIT_CEILING_DIRECTORIES: path.dirname(outside) },
    }),
    (error: unknown) => {
      assert.ok(error instanceof GitCommandError);
      assert.equal(error.exitStatus, 128);
      assert.match(error.message, /^git rev-parse failed \(exit status 128\): fatal: /);
      return true;
    },
  );
  const missing = path.join(outside, 'no-such-git');
  await assert.rejects(
    runGit(missing, ['--version']),
    (error: unknown) => error instanceof GitCommandError && error.message.startsWith(`cannot run git (${missing}): `),
  );
});

test('the clean environment drops GIT_* variables; the inherited one keeps them', async (t) => {
  setForTest(t, 'GIT_CONFIG_PARAMETERS', "'packscope.probe=inherited'");
  const cwd = tempDir(t);
  const clean = await runGit('git', ['config', '--get', 'packscope.probe'], { cwd });
  assert.equal(clean.status, 1);
  const inherited = await runGit('git', ['config', '--get', 'packscope.probe'], { cwd, environment: 'inherited' });
  assert.equal(inherited.stdout.toString().trim(), 'inherited');
});

test('bufferedOutput sets GIT_FLUSH=0 (git then writes full buffers), over an inherited GIT_FLUSH=1; the bytes are the same', async (t) => {
  setForTest(t, 'GIT_FLUSH', '1');
  const cwd = tempDir(t);
  // A shell stands in for git: what matters is the environment it is given.
  const flushOf = async (options: Parameters<typeof runGit>[2]): Promise<string> =>
    (await runGitCapture('sh', ['-c', 'printf %s "${GIT_FLUSH-unset}"'], { cwd, ...options })).toString();
  assert.equal(await flushOf({ bufferedOutput: true }), '0');
  assert.equal(await flushOf({}), 'unset', 'the clean environment drops the inherited one');
  assert.equal(await flushOf({ environment: 'inherited' }), '1');
  assert.equal(await flushOf({ environment: 'inherited', bufferedOutput: true }), '0');
  // A real rev-list: the same lines either way.
  const repo = path.join(cwd, 'repo');
  await runGitCapture('git', ['init', '-q', repo]);
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(path.join(repo, `f${i}`), `${i}\n`);
    await runGitCapture('git', ['-C', repo, 'add', '.']);
    await runGitCapture('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', `${i}`]);
  }
  const listing = (bufferedOutput: boolean): Promise<Buffer> =>
    runGitCapture('git', ['-C', repo, 'rev-list', '--objects', '--all'], { bufferedOutput });
  const [flushed, buffered] = await Promise.all([listing(false), listing(true)]);
  assert.ok(flushed.length > 0);
  assert.deepEqual(buffered, flushed);
});

test('stderr is kept up to MAX_STDERR_BYTES, and every chunk still reaches onStderr', async (t) => {
  let seen = 0;
  const flood = await runGit(
    'git',
    ['-c', `alias.flood=!head -c ${4 * MAX_STDERR_BYTES} /dev/zero | tr '\\0' e >&2; exit 3`, 'flood'],
    { cwd: tempDir(t), onStderr: (chunk) => (seen += chunk.length) },
  );
  assert.equal(flood.status, 3);
  assert.equal(flood.stderr.length, MAX_STDERR_BYTES);
  assert.equal(seen, 4 * MAX_STDERR_BYTES);
});

test('an abort stops git and the children it started (its process group), then rejects', async (t) => {
  const dir = tempDir(t);
  const pidFile = path.join(dir, 'child.pid');
  const controller = new AbortController();
  const run = runGit('git', ['-c', `alias.sleepy=!sleep 60 & echo $! > '${pidFile}'; wait`, 'sleepy'], {
    cwd: dir,
    processGroup: true,
    signal: controller.signal,
  });
  for (let i = 0; i < 500 && (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === ''); i++)
    await sleep(20);
  const grandchild = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.ok(alive(grandchild));
  controller.abort();
  await assert.rejects(run, { name: 'AbortError' });
  for (let i = 0; i < 100 && alive(grandchild); i++) await sleep(20);
  assert.ok(!alive(grandchild), 'the sleep git started is gone too');
});
