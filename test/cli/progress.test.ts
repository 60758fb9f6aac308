/**
 * The CLI's progress line under a real pseudo-terminal (util-linux `script`): stderr is the pty,
 * stdout a file, so the test sees which stream the line went to. The delay is set through
 * PACKSCOPE_PROGRESS_DELAY (0: from the first count; 600000: never in a test), so nothing here
 * depends on how fast the machine is.
 */
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { cliPath, gitEnv, GitSandbox, pausingGit, tempDir } from '../support/git.ts';

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

function packedRepository(t: Parameters<typeof tempDir>[0]): { sandbox: GitSandbox; repo: string; root: string } {
  const root = tempDir(t);
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('work');
  for (let i = 0; i < 20; i++) {
    fs.writeFileSync(path.join(repo, 'file.txt'), `line ${i}\n`.repeat(50 + i));
    sandbox.git(repo, ['add', 'file.txt']);
    sandbox.git(repo, ['commit', '-q', '-m', `commit ${i}`]);
  }
  sandbox.git(repo, ['repack', '-adq']);
  return { sandbox, repo, root };
}

/** Runs the CLI with stderr on a pty and stdout in a file; returns what each got. */
function underPty(
  root: string,
  args: string[],
  env: Record<string, string>,
): { status: number | null; terminal: string; stdout: string } {
  const stdoutFile = path.join(root, `stdout-${Math.random().toString(16).slice(2)}`);
  const typescript = `${stdoutFile}.tty`;
  const command = `${[process.execPath, cliPath, ...args].map(quote).join(' ')} > ${quote(stdoutFile)}`;
  const run = spawnSync('script', ['-qfec', command, typescript], {
    env: { ...gitEnv(path.join(root, 'home')), ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 120_000,
  });
  return {
    status: run.status,
    terminal: fs.readFileSync(typescript, 'latin1'),
    stdout: fs.readFileSync(stdoutFile, 'latin1'),
  };
}

const hasScript = spawnSync('script', ['--version']).status === 0;

// The tests below need a terminal; a missing one is a failure here, not only three skips.
test("util-linux's script is installed", () => {
  assert.ok(hasScript, 'no `script` on PATH: node scripts/ensure-test-tools.mjs installs it (bsdutils)');
});

test(
  'stats on a terminal draws a progress line with counts and elapsed time on stderr, never on stdout',
  { skip: !hasScript && 'util-linux script is not installed' },
  (t) => {
    const { repo, root } = packedRepository(t);
    const run = underPty(root, ['stats', '--json', '--no-cache', repo], { PACKSCOPE_PROGRESS_DELAY: '0' });
    assert.equal(run.status, 0, run.terminal);
    assert.match(run.terminal, /\rReading pack-[0-9a-f]+\.pack: \d+% \([\d,]+ of [\d,]+\), \d+\.\d s\x1b\[K/);
    assert.match(run.terminal, /\r\x1b\[K/, 'the line is cleared at the end');
    assert.doesNotMatch(run.stdout, /\r|\x1b|Reading/);
    assert.equal(JSON.parse(run.stdout).schema, 'packscope.stats/1');
  },
);

test(
  'a job shorter than the delay, PACKSCOPE_NO_PROGRESS, or a stderr that is not a terminal: no progress line',
  { skip: !hasScript && 'util-linux script is not installed' },
  (t) => {
    const { repo, root } = packedRepository(t);
    const delayed = underPty(root, ['stats', '--json', '--no-cache', repo], { PACKSCOPE_PROGRESS_DELAY: '600000' });
    assert.equal(delayed.status, 0);
    assert.doesNotMatch(delayed.terminal, /Reading|Walking|\x1b\[K/);
    const off = underPty(root, ['stats', '--json', '--no-cache', repo], {
      PACKSCOPE_PROGRESS_DELAY: '0',
      PACKSCOPE_NO_PROGRESS: '1',
    });
    assert.equal(off.status, 0);
    assert.doesNotMatch(off.terminal, /Reading|Walking|\x1b\[K/);
    const piped = spawnSync(process.execPath, [cliPath, 'stats', '--json', '--no-cache', repo], {
      env: { ...gitEnv(path.join(root, 'home')), PACKSCOPE_PROGRESS_DELAY: '0' },
      encoding: 'latin1',
    });
    assert.equal(piped.status, 0);
    assert.equal(piped.stderr, '');
    assert.doesNotMatch(piped.stdout, /\r|\x1b/);
  },
);

test(
  'record shows pack reads so far and the elapsed time while git runs',
  { skip: !hasScript && 'util-linux script is not installed' },
  (t) => {
    const { repo, root } = packedRepository(t);
    const output = path.join(root, 'out', 'slow.psrec');
    // A git alias that waits, then reads every object: the line has ticks to draw while git is still running.
    const run = underPty(
      root,
      [
        'record',
        '-o',
        output,
        '-C',
        repo,
        '--',
        '-c',
        'alias.slow=!sleep 1; git rev-list --objects --all; sleep 1; git log -p',
        'slow',
      ],
      { PACKSCOPE_PROGRESS_DELAY: '0' },
    );
    assert.equal(run.status, 0, run.terminal);
    const drawn = [
      ...run.terminal.matchAll(
        /\rRecording `git -c alias\.slow=[^`]*`: ([\d,]+) pack reads?(?:, in [^\r]+?)?, (\d+\.\d) s\x1b\[K/g,
      ),
    ];
    assert.ok(drawn.length >= 2, run.terminal);
    const reads = drawn.map((m) => Number(m[1]!.replace(/,/g, '')));
    assert.ok(reads[reads.length - 1]! > 0, `reads shown: ${reads.join(' ')}`);
    for (let i = 1; i < reads.length; i++) assert.ok(reads[i]! >= reads[i - 1]!, 'the count only grows');
    assert.match(run.terminal, /packscope: recorded \d+ pack reads/);
    assert.doesNotMatch(run.stdout, /Recording `|\x1b\[K/);
    assert.ok(fs.existsSync(output));
  },
);

test(
  "stats naming by git rev-list counts the objects git has listed so far, against the packs' objects",
  { skip: !hasScript && 'util-linux script is not installed' },
  (t) => {
    const { sandbox, repo, root } = packedRepository(t);
    const objects = sandbox.gitText(repo, ['rev-list', '--objects', '--all']).split('\n').filter(Boolean).length;
    // A git whose rev-list --objects gives its first 5 lines, then waits a second before the rest:
    // the progress line has a count to draw while git is still listing. Every other git is git.
    const bin = path.join(root, 'slow-bin');
    pausingGit(bin, 'rev-list --objects', 5, 1);
    const run = underPty(root, ['stats', '--top', '1', '--no-cache', repo], {
      PACKSCOPE_PROGRESS_DELAY: '0',
      PATH: `${bin}:${process.env.PATH}`,
    });
    assert.equal(run.status, 0, run.terminal);
    const drawn = [
      ...run.terminal.matchAll(/\rNaming objects by their paths: \d+% \(([\d,]+) of ([\d,]+)\), \d+\.\d s/g),
    ];
    assert.ok(drawn.length > 0, run.terminal);
    for (const [, listedText, totalText] of drawn) {
      const listed = Number(listedText!.replace(/,/g, ''));
      assert.ok(listed >= 5, 'the lines git had given');
      assert.equal(Number(totalText!.replace(/,/g, '')), Math.max(objects, listed), 'against the packs’ objects');
    }
    assert.match(run.stdout, /git rev-list named them/);
  },
);

test(
  'sizes counts the commits read against the commits the history has',
  { skip: !hasScript && 'util-linux script is not installed' },
  (t) => {
    const { sandbox, repo, root } = packedRepository(t);
    const commits = Number(sandbox.gitText(repo, ['rev-list', '--all', '--count']).trim());
    // A git whose diff-tree gives its first lines, then waits a second: the line has ticks to draw.
    const slowGit = pausingGit(path.join(root, 'slow-bin'), 'diff-tree --stdin', 12, 1);
    const run = underPty(root, ['sizes', '--git', slowGit, '--no-cache', repo], { PACKSCOPE_PROGRESS_DELAY: '0' });
    assert.equal(run.status, 0, run.terminal);
    const drawn = [
      ...run.terminal.matchAll(/\rReading the history: (\d+)% \(([\d,]+) of ([\d,]+) commits\), \d+\.\d s/g),
    ];
    assert.ok(drawn.length > 0, run.terminal);
    for (const [, percent, read, total] of drawn) {
      assert.equal(Number(total), commits, 'the commits rev-list lists');
      assert.ok(Number(read) >= 1 && Number(read) <= commits);
      assert.equal(Number(percent), Math.floor((100 * Number(read)) / commits));
    }
  },
);
