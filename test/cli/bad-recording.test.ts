/**
 * A bad recording file says what is wrong with that file — through the CLI (`simulate`,
 * run from a directory that is no repository, as a user would) and the server's recordingInfo —
 * never "not inside a git repository". The files are cut from a real `packscope record` of a real
 * repository: truncated inside the header and inside a trace line, a wrong magic, a version from
 * the future, a directory, an empty file and a text file that is no trace at all.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RecordingInfoRequest } from '../../src/protocol/server-protocol.ts';
import { cliPath, GitSandbox, gitEnv, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let sandbox: GitSandbox;
let repo: string;
/** Outside every repository: where the CLI runs, and where the bad files lie. */
let outside: string;
let good: string;

function cli(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: outside,
    env: { ...gitEnv(sandbox.home), PACKSCOPE_NO_PROGRESS: '1' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The bad files, each with what its error must say (besides naming the file). */
const cases: { name: string; make: (file: string) => void; says: RegExp }[] = [
  {
    name: 'truncated inside its header',
    make: (file) => fs.writeFileSync(file, fs.readFileSync(good).subarray(0, 100)),
    says: /offset 0: the file ends inside its recording header line \(was it cut short\?\)$/,
  },
  {
    name: 'a wrong magic',
    make: (file) =>
      fs.writeFileSync(file, fs.readFileSync(good, 'utf8').replace(/^#packscope-recording /, '#packscope-recordinX ')),
    says: /offset 0: line 1 is not a recording header \(a recording starts with "#packscope-recording 1 \{…\}", this one with "#packscope-recordinX 1 /,
  },
  {
    name: 'a version from the future',
    make: (file) =>
      fs.writeFileSync(
        file,
        fs.readFileSync(good, 'utf8').replace(/^#packscope-recording 1 /, '#packscope-recording 7 '),
      ),
    says: /offset 0: recording version 7 is not 1$/,
  },
  {
    name: 'a directory',
    make: (file) => fs.mkdirSync(file),
    says: /: not a regular file$/,
  },
  {
    name: 'empty',
    make: (file) => fs.writeFileSync(file, ''),
    says: /: the file is empty: not a recording or a GIT_TRACE_PACK_ACCESS trace$/,
  },
  {
    name: 'a text file that is no trace',
    make: (file) => fs.writeFileSync(file, 'Dear diary,\ntoday I ran git gc.\n\nIt was fine.\n'),
    says: /offset 0: not a recording or a GIT_TRACE_PACK_ACCESS trace: no recording header, and none of its 4 lines are a pack read or a git trace line \(3 malformed, first on line 1\)$/,
  },
];

function fileFor(name: string): string {
  return path.join(outside, `${name.replace(/\W+/g, '-')}.psrec`);
}

before(() => {
  const root = tempDir(undefined, 'packscope-bad-recording-');
  process.on('exit', () => fs.rmSync(root, { recursive: true, force: true }));
  sandbox = new GitSandbox(root);
  repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 12, seed: 3 }));
  sandbox.git(repo, ['repack', '-adq']);
  outside = path.join(root, 'elsewhere');
  fs.mkdirSync(outside);
  good = path.join(outside, 'good.psrec');
  const recorded = cli(['record', '-o', good, '-C', repo, '--no-cache', '--', 'log', '-p']);
  assert.equal(recorded.status, 0, recorded.stderr);
  for (const { name, make } of cases) make(fileFor(name));
});

describe('a bad recording through the CLI', () => {
  test('the good recording replays from outside its repository (the header names it)', () => {
    const run = cli(['simulate', '--no-cache', good]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(run.stdout, /^reads +\d+ in 1 git process$/m);
  });

  for (const { name, says } of cases) {
    test(`${name}: the error names the file and says what is wrong with it`, () => {
      const file = fileFor(name);
      const run = cli(['simulate', '--no-cache', file]);
      assert.equal(run.status, 1, run.stdout);
      const message = run.stderr.trim().split('\n').at(-1)!;
      assert.ok(
        message.startsWith(`packscope: ${path.basename(file)}: `) || message.startsWith(`packscope: ${file}: `),
        message,
      );
      assert.match(message, says);
      assert.doesNotMatch(run.stderr, /not inside a git repository/);
    });
  }

  test('a recording cut inside its last trace line replays without that line, and says so', () => {
    const file = path.join(outside, 'cut-line.psrec');
    // Cut inside the last read's offset (lines of other trace keys, as GIT_TRACE_PERFORMANCE's exit
    // line, may follow it: they go too).
    const text = fs.readFileSync(good, 'utf8');
    const all = text.split('\n');
    let last = all.length - 1;
    while (!/\.pack \d+$/.test(all[last]!)) last--;
    const lines = last + 1;
    const kept = Buffer.from(all.slice(0, lines).join('\n'));
    fs.writeFileSync(file, kept.subarray(0, kept.length - 2));
    const run = cli(['simulate', '--no-cache', file]);
    assert.equal(run.status, 0, run.stderr);
    assert.match(
      run.stderr,
      new RegExp(
        `^packscope: warning: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} ends inside line ${lines} \\(cut short\\?\\): that line was left out$`,
        'm',
      ),
    );
    const whole = cli(['simulate', '--no-cache', good]);
    const reads = (text: string): number => Number(/^reads +(\d+)/m.exec(text)![1]);
    assert.equal(reads(run.stdout), reads(whole.stdout) - 1);
  });

  test('a raw trace whose packs name no repository asks for -C instead of blaming the current directory', () => {
    const lines = fs.readFileSync(good, 'utf8').split('\n').slice(1);
    // With git's GIT_TRACE setup lines a raw trace names the repository its processes ran in, and is
    // read there (as the server reads it); without them, nothing names one.
    const traced = path.join(outside, 'raw-with-setup.trace');
    fs.writeFileSync(traced, lines.join('\n'));
    assert.ok(lines.some((line) => / setup: git_dir: /.test(line)));
    const found = cli(['simulate', '--no-cache', traced]);
    assert.equal(found.status, 0, found.stderr);
    const file = path.join(outside, 'raw.trace');
    fs.writeFileSync(file, lines.filter((line) => !/ setup: /.test(line)).join('\n'));
    const run = cli(['simulate', '--no-cache', file]);
    assert.equal(run.status, 1);
    assert.match(
      run.stderr,
      /raw\.trace: a raw trace \(no recording header\) whose packs name no repository, and the current directory is not inside one; name its repository with -C DIR/,
    );
    const named = cli(['simulate', '--no-cache', '-C', repo, file]);
    assert.equal(named.status, 0, named.stderr);
  });
});

describe('a bad recording through the server (recordingInfo)', () => {
  let server: LspServer;
  before(async () => {
    // The bad files' folder is open too: the server reads recordings only inside what it was given (read-rules.ts).
    server = await LspServer.start({
      workspaceFolders: [repo, outside],
      settings: { modelCacheDirectory: path.join(sandbox.root, 'models') },
      env: gitEnv(sandbox.home),
    });
  });
  after(() => server?.stop());

  for (const { name, says } of cases) {
    test(`${name}: recordingInfo's error names the file and says what is wrong with it`, async () => {
      const file = fileFor(name);
      await expectError(server.connection.sendRequest(RecordingInfoRequest, { file }), (error) => {
        assert.ok(error.message.startsWith(`${file}: `), error.message);
        assert.match(error.message, says);
      });
    });
  }
});
