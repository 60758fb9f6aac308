/**
 * Who names `packscope stats`' objects: git rev-list in a repository, the walk for a lone pack file,
 * when PACKSCOPE_NAMES_FROM=walk, or when git fails (with a warning naming git's words); the
 * documents agree but for who named them. Ctrl+C while git names them stops git and exits 130.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { StatsDocument } from '../../src/core/documents/stats-document.ts';
import { cliPath, GitSandbox, packStems, runCli, tempDir } from '../support/git.ts';
import { pathsRepository } from '../support/paths-repository.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;

before(() => {
  root = tempDir(undefined, 'packscope-names-from-');
  sandbox = new GitSandbox(root);
  repo = pathsRepository(sandbox, 'repo', 60);
});

after(() => fs.rmSync(root, { recursive: true, force: true }));

function stats(
  target: string,
  env: Record<string, string> = {},
  json = true,
): { document?: StatsDocument; stderr: string; stdout: string } {
  const result = runCli(['stats', ...(json ? ['--json'] : []), '--no-cache', target], { env });
  assert.equal(result.status, 0, result.stderr);
  const stdout = result.stdout.toString('utf8');
  return { ...(json ? { document: JSON.parse(stdout) as StatsDocument } : {}), stderr: result.stderr, stdout };
}

/** The document without who named the objects and what naming cost. */
function withoutSource(document: StatsDocument): unknown {
  const { namesFrom: _from, bytesRebuilt: _bytes, ...pathWalk } = document.pathWalk!;
  return { ...document, pathWalk };
}

describe('who names the objects of packscope stats', () => {
  test('git rev-list in a repository, the walk when asked: the same document otherwise', () => {
    const fromGit = stats(repo);
    assert.equal(fromGit.document!.pathWalk?.namesFrom, 'git rev-list');
    assert.equal(fromGit.stderr, '');
    const walked = stats(repo, { PACKSCOPE_NAMES_FROM: 'walk' });
    assert.equal(walked.document!.pathWalk?.namesFrom, 'walk');
    assert.deepEqual(withoutSource(fromGit.document!), withoutSource(walked.document!));
    assert.match(stats(repo, {}, false).stdout, /names of the objects listed \(.*; git rev-list named them\):/);
  });

  test('the walk for a lone pack file', () => {
    const pack = `${packStems(path.join(repo, '.git', 'objects'))[0]!}.pack`;
    assert.equal(stats(pack).document!.pathWalk?.namesFrom, 'walk');
  });

  test('the walk, with a warning in git’s words, when git fails', () => {
    const broken = path.join(root, 'broken');
    sandbox.git(root, ['clone', '-q', '--mirror', repo, broken]);
    fs.writeFileSync(path.join(broken, 'refs', 'heads', 'gone'), `${'e'.repeat(40)}\n`);
    const { document, stderr } = stats(broken);
    assert.equal(document!.pathWalk?.namesFrom, 'walk');
    assert.equal(document!.pathWalk?.complete, false);
    assert.match(
      stderr,
      /^packscope: warning: git did not name the objects, the walk did: git rev-list failed \(exit status 128\): fatal: /m,
    );
  });

  test('Ctrl+C while git names them stops git: exit 130, no git left', async (t) => {
    // A git first on PATH that records its process id and waits, as a slow rev-list would.
    const bin = tempDir(t, 'packscope-names-from-bin-');
    const pidFile = path.join(bin, 'pid');
    fs.writeFileSync(path.join(bin, 'git'), `#!/bin/sh\necho $$ > '${pidFile}'\nexec sleep 60\n`, { mode: 0o755 });
    const child = spawn(process.execPath, [cliPath, 'stats', '--json', '--no-cache', repo], {
      env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1', PATH: `${bin}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.on('close', (status) => resolve(status)));
    for (let i = 0; i < 600 && (!fs.existsSync(pidFile) || fs.readFileSync(pidFile, 'utf8').trim() === ''); i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    const pid = Number(fs.readFileSync(pidFile, 'utf8').trim());
    child.kill('SIGINT');
    assert.equal(await exited, 130, stderr);
    assert.throws(() => process.kill(pid, 0), { code: 'ESRCH' }, `git stand-in ${pid} still runs`);
  });
});
