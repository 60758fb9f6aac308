/**
 * Every row of the table that keeps git from running what a repository configures
 * (src/core/git/no-programs.ts), each in a real repository whose configuration names a program that
 * leaves a marker file, run through PackScope's runner (runGit, or runWithUsage for a timed git):
 * the marker never appears. A row without a case here fails the first test, so that the table and
 * its proof stay together.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { NO_PROGRAM_RULES } from '../../src/core/git/no-programs.ts';
import { runGit, type GitRunOptions } from '../../src/core/git/run-git.ts';
import { runWithUsage } from '../../src/core/git/child-usage.ts';
import { gitEnv, GitSandbox, tempDir } from '../support/git.ts';

interface Case {
  /** What git is made to do: repository set up, then the run PackScope makes. */
  run: (world: World) => Promise<void>;
}

interface World {
  sandbox: GitSandbox;
  repo: string;
  root: string;
  /** A shell command that leaves the marker file (and then does what `then` says). */
  marking: (then?: string) => string;
  marker: string;
  /** runGit with the sandbox's environment (no user or system configuration), as the runner gives it. */
  git: (args: string[], options?: GitRunOptions) => ReturnType<typeof runGit>;
}

function makeWorld(t: { after: (fn: () => void) => void }, name: string): World {
  const root = tempDir(undefined, `packscope-no-programs-${name}-`);
  t.after(() => fs.rmSync(root, { recursive: true, force: true }));
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('repo');
  fs.writeFileSync(path.join(repo, 'file.txt'), 'one\n');
  sandbox.git(repo, ['add', 'file.txt']);
  sandbox.git(repo, ['commit', '-qm', 'one']);
  fs.writeFileSync(path.join(repo, 'file.txt'), 'one\ntwo\n');
  sandbox.git(repo, ['commit', '-qam', 'two']);
  const marker = path.join(root, 'marker');
  return {
    sandbox,
    repo,
    root,
    marker,
    marking: (then = 'true') => `touch '${marker}'; ${then}`,
    git: (args, options = {}) => runGit('git', args, { cwd: repo, environment: gitEnv(sandbox.home), ...options }),
  };
}

function config(world: World, key: string, value: string): void {
  world.sandbox.git(world.repo, ['config', key, value]);
}

/** A driver for file.txt, named in .gitattributes as a repository would. */
function attributes(world: World, line: string): void {
  fs.writeFileSync(path.join(world.repo, '.gitattributes'), `file.txt ${line}\n`);
}

/** A partial clone of `world.repo` (no blobs), whose promisor remote is reached through `setup`. */
function partialClone(world: World): string {
  config(world, 'uploadpack.allowFilter', 'true');
  const clone = path.join(world.root, 'partial');
  world.sandbox.git(world.root, [
    'clone',
    '-q',
    '--no-local',
    '--no-checkout',
    '--filter=blob:none',
    `file://${world.repo}`,
    clone,
  ]);
  return clone;
}

function missingBlob(world: World, clone: string): string {
  const listed = world.sandbox.gitText(clone, ['rev-list', '--objects', '--all', '--missing=print']);
  const missing = listed.split('\n').find((line) => line.startsWith('?'));
  assert.ok(missing, 'the partial clone misses a blob');
  return missing.slice(1);
}

/** A commit whose signature header is of the kind `armor` names (PGP, SSH or X.509), for the commands that check one. */
function signedCommit(world: World, armor: string): string {
  const tree = world.sandbox.gitText(world.repo, ['rev-parse', 'HEAD^{tree}']).trim();
  const body = [
    `tree ${tree}`,
    'author A <a@example.com> 1700000000 +0000',
    'committer A <a@example.com> 1700000000 +0000',
    `gpgsig -----BEGIN ${armor}-----`,
    ' ',
    ' iQEzBAABCAAdFiEE',
    ` -----END ${armor}-----`,
    '',
    'signed',
    '',
  ].join('\n');
  return world.sandbox.gitText(world.repo, ['hash-object', '-t', 'commit', '-w', '--stdin'], { input: body }).trim();
}

/** An executable that leaves the marker, for the keys git runs as a program rather than through the shell. */
function markingProgram(world: World): string {
  const program = path.join(world.root, 'marking-program');
  fs.writeFileSync(program, `#!/bin/sh\n${world.marking('exit 1')}\n`, { mode: 0o755 });
  return program;
}

/** A hook of the repository's own that leaves the marker. */
function hook(world: World, name: string): void {
  fs.writeFileSync(path.join(world.repo, '.git', 'hooks', name), `#!/bin/sh\n${world.marking()}\n`, { mode: 0o755 });
}

/** `count` loose blobs, written by git. */
function looseObjects(world: World, count: number): void {
  const input = Array.from({ length: count }, (_, i) => `blob ${i}`).join('\n');
  const dir = path.join(world.root, 'blobs');
  fs.mkdirSync(dir, { recursive: true });
  const files = input.split('\n').map((content, i) => {
    const file = path.join(dir, String(i));
    fs.writeFileSync(file, content);
    return file;
  });
  world.sandbox.git(world.repo, ['hash-object', '-w', '--stdin-paths'], { input: files.join('\n') });
}

const CASES: Record<string, Case> = {
  'core.fsmonitor': {
    // pack-objects reads the index for --indexed-objects, as a repack preview runs it.
    run: async (w) => {
      config(w, 'core.fsmonitor', w.marking());
      await w.git(['pack-objects', '--all', '--indexed-objects', '--stdout'], { stdout: 'ignore' });
      await w.git(['rev-list', '--objects', '--all', '--indexed-objects'], { stdout: 'ignore' });
    },
  },
  'core.hooksPath': {
    // A stat-dirty file: diff refreshes the index, which fires post-index-change (the repository's own hook).
    run: async (w) => {
      const hooks = path.join(w.root, 'hooks');
      fs.mkdirSync(hooks);
      fs.writeFileSync(path.join(hooks, 'post-index-change'), `#!/bin/sh\n${w.marking()}\n`, { mode: 0o755 });
      config(w, 'core.hooksPath', hooks);
      fs.writeFileSync(path.join(w.repo, '.git', 'hooks', 'post-index-change'), `#!/bin/sh\n${w.marking()}\n`, {
        mode: 0o755,
      });
      fs.utimesSync(path.join(w.repo, 'file.txt'), new Date(), new Date(Date.now() + 5000));
      await w.git(['diff'], { stdout: 'ignore' });
      await w.git(['status', '--porcelain'], { stdout: 'ignore' });
    },
  },
  'protocol.allow': {
    // A missing blob of a partial clone: git would fetch it through the remote's upload-pack.
    run: async (w) => {
      const clone = partialClone(w);
      w.sandbox.git(clone, ['config', 'remote.origin.uploadpack', w.marking('git-upload-pack "$@"')]);
      const blob = missingBlob(w, clone);
      const run = await w.git(['cat-file', '-p', blob], { cwd: clone });
      assert.notEqual(run.status, 0, 'the missing blob stays missing');
      // And over ssh, through the repository's ssh command.
      w.sandbox.git(clone, ['config', 'remote.origin.url', 'ssh://example.invalid/repo']);
      w.sandbox.git(clone, ['config', 'core.sshCommand', w.marking('false')]);
      await w.git(['cat-file', '-p', blob], { cwd: clone });
    },
  },
  'credential.helper': {
    run: async (w) => {
      config(w, 'credential.helper', `!${w.marking('echo username=u; echo password=p')}`);
      await w.git(['credential', 'fill'], { input: 'protocol=https\nhost=example.invalid\n\n' });
    },
  },
  'core.askPass': {
    run: async (w) => {
      const askpass = path.join(w.root, 'askpass');
      fs.writeFileSync(askpass, `#!/bin/sh\n${w.marking('echo secret')}\n`, { mode: 0o755 });
      config(w, 'core.askPass', askpass);
      await w.git(['credential', 'fill'], { input: 'protocol=https\nhost=example.invalid\n\n' });
    },
  },
  'core.alternateRefsCommand': {
    run: async (w) => {
      const borrower = path.join(w.root, 'borrower');
      w.sandbox.git(w.root, ['clone', '-q', '--shared', w.repo, borrower]);
      w.sandbox.git(borrower, ['config', 'core.alternateRefsCommand', w.marking()]);
      await w.git(['rev-list', '--alternate-refs', '--all'], { cwd: borrower, stdout: 'ignore' });
    },
  },
  'diff.external': {
    run: async (w) => {
      config(w, 'diff.external', w.marking());
      await w.git(['log', '-p', '-1'], { stdout: 'ignore' });
      await w.git(['diff', 'HEAD~1', 'HEAD'], { stdout: 'ignore' });
    },
  },
  'gpg.program': {
    // git runs gpg.program itself (no shell), so the marker is an executable's path.
    run: async (w) => {
      config(w, 'gpg.program', markingProgram(w));
      const signed = signedCommit(w, 'PGP SIGNATURE');
      await w.git(['log', '-1', '--format=%G?', signed], { stdout: 'ignore' });
      await w.git(['log', '-1', '--show-signature', signed], { stdout: 'ignore' });
    },
  },
  'gpg.ssh.program': {
    run: async (w) => {
      config(w, 'gpg.ssh.program', markingProgram(w));
      fs.writeFileSync(path.join(w.root, 'allowed'), '');
      config(w, 'gpg.ssh.allowedSignersFile', path.join(w.root, 'allowed'));
      await w.git(['log', '-1', '--show-signature', signedCommit(w, 'SSH SIGNATURE')], { stdout: 'ignore' });
    },
  },
  'gpg.x509.program': {
    run: async (w) => {
      config(w, 'gpg.x509.program', markingProgram(w));
      await w.git(['log', '-1', '--show-signature', signedCommit(w, 'SIGNED MESSAGE')], { stdout: 'ignore' });
    },
  },
  'gpg.ssh.defaultKeyCommand': {
    // Asked for the key when signing in the SSH format without user.signingKey.
    run: async (w) => {
      config(w, 'gpg.format', 'ssh');
      config(w, 'gpg.ssh.defaultKeyCommand', markingProgram(w));
      await w.git(['commit-tree', '-S', '-m', 'signed', 'HEAD^{tree}'], { stdout: 'ignore' });
    },
  },
  'log.showSignature': {
    run: async (w) => {
      config(w, 'log.showSignature', 'true');
      config(w, 'gpg.program', markingProgram(w));
      await w.git(['log', '-1', signedCommit(w, 'PGP SIGNATURE')], { stdout: 'ignore' });
    },
  },
  'gc.auto': {
    // Enough loose objects for `gc --auto` at gc.auto=1; gc would start the repository's pre-auto-gc hook.
    run: async (w) => {
      config(w, 'gc.auto', '1');
      looseObjects(w, 2000);
      hook(w, 'pre-auto-gc');
      await w.git(['gc', '--auto'], { stdout: 'ignore' });
    },
  },
  'maintenance.auto': {
    // A commit starts `maintenance run --auto` after its work, and with it gc --auto and its hook.
    run: async (w) => {
      config(w, 'maintenance.auto', 'true');
      config(w, 'gc.auto', '1');
      looseObjects(w, 2000);
      hook(w, 'pre-auto-gc');
      await w.git(['commit', '-q', '--allow-empty', '-m', 'one more'], { stdout: 'ignore' });
    },
  },
  GIT_OPTIONAL_LOCKS: {
    run: async (w) => {
      const index = path.join(w.repo, '.git', 'index');
      const before = fs.statSync(index).mtimeMs;
      fs.utimesSync(path.join(w.repo, 'file.txt'), new Date(), new Date(Date.now() + 5000));
      await w.git(['status', '--porcelain'], { stdout: 'ignore' });
      assert.equal(fs.statSync(index).mtimeMs, before, 'status left the index as it was');
    },
  },
  GIT_NO_LAZY_FETCH: {
    // Both rows keep a missing object missing; this one names the fetch itself, through the timed runner.
    run: async (w) => {
      const clone = partialClone(w);
      w.sandbox.git(clone, ['config', 'remote.origin.uploadpack', w.marking('git-upload-pack "$@"')]);
      const blob = missingBlob(w, clone);
      const run = await runWithUsage('git', ['cat-file', '-p', blob], {
        cwd: clone,
        environment: gitEnv(w.sandbox.home),
      });
      assert.notEqual(run.status, 0, 'the missing blob stays missing');
    },
  },
  GIT_PAGER: {
    // git chooses its pager (GIT_PAGER, pager.<cmd>, core.pager) as `git var GIT_PAGER` prints it; on a terminal it runs that.
    run: async (w) => {
      config(w, 'core.pager', w.marking('cat'));
      config(w, 'pager.var', w.marking('cat'));
      const run = await w.git(['var', 'GIT_PAGER']);
      assert.equal(run.stdout.toString().trim(), 'cat');
    },
  },
  GIT_EDITOR: {
    run: async (w) => {
      config(w, 'core.editor', w.marking());
      const run = await w.git(['var', 'GIT_EDITOR']);
      assert.equal(run.stdout.toString().trim(), ':');
      await w.git(['commit', '--allow-empty', '-e', '-m', 'edited'], { stdout: 'ignore' });
    },
  },
  GIT_SEQUENCE_EDITOR: {
    run: async (w) => {
      config(w, 'sequence.editor', w.marking());
      await w.git(['rebase', '-i', 'HEAD~1'], { stdout: 'ignore' });
    },
  },
  GIT_ASKPASS: {
    run: async (w) => {
      const askpass = path.join(w.root, 'askpass');
      fs.writeFileSync(askpass, `#!/bin/sh\n${w.marking('echo secret')}\n`, { mode: 0o755 });
      await w.git(['credential', 'fill'], {
        input: 'protocol=https\nhost=example.invalid\n\n',
        env: { GIT_ASKPASS: askpass },
      });
    },
  },
  SSH_ASKPASS: {
    run: async (w) => {
      const askpass = path.join(w.root, 'askpass');
      fs.writeFileSync(askpass, `#!/bin/sh\n${w.marking('echo secret')}\n`, { mode: 0o755 });
      await w.git(['credential', 'fill'], {
        input: 'protocol=https\nhost=example.invalid\n\n',
        env: { SSH_ASKPASS: askpass },
      });
    },
  },
  GIT_TERMINAL_PROMPT: {
    // With no helper and no askpass, git would prompt; refused, credential fill fails at once.
    run: async (w) => {
      const run = await w.git(['credential', 'fill'], { input: 'protocol=https\nhost=example.invalid\n\n' });
      assert.notEqual(run.status, 0);
      assert.match(run.stderr, /terminal prompts disabled/);
    },
  },
  'diff.<driver>.textconv': {
    run: async (w) => {
      attributes(w, 'diff=conv');
      config(w, 'diff.conv.textconv', w.marking('cat'));
      const configuredKeys = ['diff.conv.textconv'];
      await w.git(['log', '-p', '-2'], { stdout: 'ignore', configuredKeys });
      await w.git(['show', 'HEAD'], { stdout: 'ignore', configuredKeys });
    },
  },
  'diff.<driver>.command': {
    run: async (w) => {
      attributes(w, 'diff=external');
      config(w, 'diff.external.command', w.marking());
      await w.git(['diff', 'HEAD~1', 'HEAD'], { stdout: 'ignore', configuredKeys: ['diff.external.command'] });
    },
  },
  'filter.<driver>.clean, .smudge, .process': {
    run: async (w) => {
      attributes(w, 'filter=f');
      const keys = ['filter.f.clean', 'filter.f.smudge', 'filter.f.process'];
      config(w, 'filter.f.clean', w.marking('cat'));
      config(w, 'filter.f.smudge', w.marking('cat'));
      fs.writeFileSync(path.join(w.repo, 'file.txt'), 'one\ntwo\nthree\n');
      await w.git(['diff'], { stdout: 'ignore', configuredKeys: keys });
      await w.git(['cat-file', '--filters', 'HEAD:file.txt'], { stdout: 'ignore', configuredKeys: keys });
      config(w, 'filter.f.process', w.marking('false'));
      await w.git(['cat-file', '--filters', 'HEAD:file.txt'], { stdout: 'ignore', configuredKeys: keys });
    },
  },
};

function rowName(rule: (typeof NO_PROGRAM_RULES)[number]): string | undefined {
  switch (rule.kind) {
    case 'config':
      return rule.key;
    case 'environment':
      return rule.name;
    case 'per-name':
      return rule.shape;
    case 'refused':
      return undefined;
  }
}

describe('no program a repository configures runs under PackScope’s runner', () => {
  test('every row of the table has a case here', () => {
    const rows = NO_PROGRAM_RULES.map(rowName).filter((name): name is string => name !== undefined);
    assert.deepEqual(
      rows.filter((row) => !(row in CASES)),
      [],
    );
  });

  for (const [row, scenario] of Object.entries(CASES)) {
    test(`${row}: the marker never appears`, async (t) => {
      const world = makeWorld(t, row.replace(/[^A-Za-z0-9]+/g, '-'));
      await scenario.run(world);
      assert.equal(fs.existsSync(world.marker), false, `${row}: the configured program ran`);
    });
  }

  test('the recorder’s run of the user’s own command keeps the user’s configuration', async (t) => {
    const world = makeWorld(t, 'configured');
    config(world, 'core.fsmonitor', world.marking());
    await world.git(['status', '--porcelain'], { stdout: 'ignore', programs: 'configured' });
    assert.equal(fs.existsSync(world.marker), true, 'the user’s own fsmonitor ran for their own command');
  });
});
