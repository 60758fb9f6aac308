/**
 * Files PackScope reads from a repository, traces and recordings that
 * are FIFOs, devices, directories, links to devices, oversized, or a sparse idx of gigabytes. Each
 * case is built for real and run through the CLI in a child process with a time bound, so that a
 * regression shows as a failed test, not a hung or swapping one: every one must end at once with
 * exit status 1 and one line naming the file.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, test } from 'node:test';
import { InputOutputError, PackFormatError } from '../../src/core/errors.ts';
import { readRepositoryTextFile, SMALL_TEXT_FILE_MAX_BYTES } from '../../src/core/format/checked-file.ts';
import { loadIdx, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { runCliBounded, type BoundedRun } from '../support/bounded-cli.ts';
import { cliPath, GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';

/** Long enough for a loaded machine; a FIFO that is waited on or /dev/zero read whole never ends. */
const RUN_TIME_LIMIT_MS = 20_000;

let sandbox: GitSandbox;
let repo: string;
let recording: string;

/** `packscope <args>`, killed after RUN_TIME_LIMIT_MS. */
function runBounded(args: string[]): Promise<BoundedRun> {
  return runCliBounded(args, {
    env: {
      ...(gitEnv(sandbox.home) as Record<string, string>),
      PACKSCOPE_CACHE_DIR: path.join(sandbox.root, 'models'),
    },
    timeoutMs: RUN_TIME_LIMIT_MS,
  });
}

async function assertRefused(args: string[], file: string, detail: RegExp): Promise<void> {
  const run = await runBounded(args);
  const what = `packscope ${args.join(' ')}`;
  assert.equal(run.timedOut, false, `${what} did not end within ${RUN_TIME_LIMIT_MS} ms`);
  assert.doesNotMatch(run.stderr, /internal error|\n\s+at /, `${what}: ${run.stderr}`);
  assert.equal(run.status, 1, `${what}: exit status (stderr: ${run.stderr})`);
  const line = run.stderr.split('\n')[0]!;
  assert.ok(line.startsWith(`packscope: ${file}: `), `${what} names ${file}: ${run.stderr}`);
  assert.match(line.slice(`packscope: ${file}: `.length), detail, what);
  assert.equal(run.stderr, `${line}\n`, `${what}: one line`);
}

/** Puts `make(file)` where `file` was (or was not), runs `body`, and puts the original back. */
async function withReplaced(file: string, make: (file: string) => void, body: () => Promise<void>): Promise<void> {
  const saved = fs.existsSync(file) ? fs.readFileSync(file) : undefined;
  fs.rmSync(file, { recursive: true, force: true });
  make(file);
  try {
    await body();
  } finally {
    fs.rmSync(file, { recursive: true, force: true });
    if (saved) fs.writeFileSync(file, saved);
  }
}

const SPECIAL_FILES: [string, (file: string) => void][] = [
  ['a FIFO', (file) => execFileSync('mkfifo', [file])],
  ['a link to /dev/zero', (file) => fs.symlinkSync('/dev/zero', file)],
  ['a link to /dev/urandom', (file) => fs.symlinkSync('/dev/urandom', file)],
  ['a directory', (file) => fs.mkdirSync(file)],
];

before(() => {
  sandbox = new GitSandbox(tempDir(undefined, 'packscope-hostile-files-'));
  process.on('exit', () => fs.rmSync(sandbox.root, { recursive: true, force: true }));
  repo = sandbox.init('repo');
  sandbox.fastImport(repo, historyStream({ commits: 20, seed: 3 }));
  sandbox.git(repo, ['repack', '-adq']);
  recording = path.join(sandbox.root, 'log.psrec');
  execFileSync(process.execPath, [cliPath, 'record', '-o', recording, '-C', repo, '--', 'log', '--raw'], {
    env: { ...gitEnv(sandbox.home), PACKSCOPE_CACHE_DIR: path.join(sandbox.root, 'models') },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
});

describe('hostile files: objects/info/alternates', () => {
  for (const [what, make] of SPECIAL_FILES) {
    test(`alternates that is ${what} is refused by name: stats, objects and a recording's replay`, async () => {
      const alternates = path.join(repo, '.git', 'objects', 'info', 'alternates');
      await withReplaced(alternates, make, async () => {
        await assertRefused(['stats', '--no-cache', repo], alternates, /^not a regular file$/);
        await assertRefused(['objects', '--no-cache', repo], alternates, /^not a regular file$/);
        await assertRefused(['simulate', '-C', repo, recording], alternates, /^not a regular file$/);
      });
    });
  }

  test('alternates larger than the cap is refused before it is read', async () => {
    const alternates = path.join(repo, '.git', 'objects', 'info', 'alternates');
    const huge = (file: string) => {
      fs.writeFileSync(file, '');
      fs.truncateSync(file, 64 * 2 ** 30);
    };
    await withReplaced(alternates, huge, async () => {
      await assertRefused(
        ['stats', '--no-cache', repo],
        alternates,
        new RegExp(`^file is ${64 * 2 ** 30} bytes, more than the ${SMALL_TEXT_FILE_MAX_BYTES}-byte limit`),
      );
    });
  });
});

describe("hostile files: the repository's own small files", () => {
  test('a config that is a FIFO or a link to /dev/zero is refused by name', async () => {
    const config = path.join(repo, '.git', 'config');
    for (const [, make] of SPECIAL_FILES.slice(0, 2)) {
      await withReplaced(config, make, async () => {
        await assertRefused(['stats', '--no-cache', repo], config, /^not a regular file$/);
      });
    }
  });

  test('a linked worktree whose commondir is a FIFO or a link to /dev/urandom is refused by name', async () => {
    const worktree = path.join(sandbox.root, 'worktree');
    sandbox.git(repo, ['worktree', 'add', '-q', worktree]);
    try {
      const commondir = path.join(repo, '.git', 'worktrees', 'worktree', 'commondir');
      for (const [, make] of [SPECIAL_FILES[0]!, SPECIAL_FILES[2]!]) {
        await withReplaced(commondir, make, async () => {
          await assertRefused(['stats', '--no-cache', worktree], commondir, /^not a regular file$/);
        });
      }
    } finally {
      sandbox.git(repo, ['worktree', 'remove', '--force', worktree]);
    }
  });

  test('a .git file (gitdir:) larger than the cap is refused before it is read', async () => {
    const work = path.join(sandbox.root, 'gitfile-work');
    fs.mkdirSync(work, { recursive: true });
    const dotGit = path.join(work, '.git');
    fs.writeFileSync(dotGit, `gitdir: ${path.join(repo, '.git')}\n`);
    fs.truncateSync(dotGit, 8 * 2 ** 30);
    await assertRefused(['stats', '--no-cache', work], dotGit, /^file is \d+ bytes, more than the \d+-byte limit/);
  });
});

describe('hostile files: traces and recordings', () => {
  for (const [what, make] of SPECIAL_FILES) {
    test(`a recording that is ${what} is refused by name: simulate, sweep, locality`, async () => {
      const file = path.join(sandbox.root, `special-${what.toLowerCase().replace(/[^a-z]+/g, '-')}.psrec`);
      await withReplaced(file, make, async () => {
        for (const command of [['simulate'], ['sweep', '--limits', '0'], ['locality']]) {
          await assertRefused([...command, '-C', repo, file], file, /^not a regular file$/);
        }
      });
    });
  }

  test('/dev/zero and /dev/urandom named directly are refused', async () => {
    for (const device of ['/dev/zero', '/dev/urandom']) {
      await assertRefused(['simulate', '-C', repo, device], device, /^not a regular file$/);
      await assertRefused(['locality', '-C', repo, device], device, /^not a regular file$/);
    }
  });
});

describe('hostile files: a sparse idx of 5 GB', () => {
  test('is refused by name, with why, before it is read whole', async () => {
    const copy = path.join(sandbox.root, 'sparse-repo');
    fs.cpSync(repo, copy, { recursive: true });
    const idx = `${packStems(path.join(copy, '.git', 'objects'))[0]!}.idx`;
    fs.chmodSync(idx, 0o644);
    fs.truncateSync(idx, 5e9);
    const detail = /^idx is 5000000000 bytes, more than its fan-out table's object count allows \(at most \d+ bytes\)$/;
    assert.throws(
      () => loadIdx(packFilesFor(idx)),
      (error) => {
        assert.ok(error instanceof PackFormatError, String(error));
        assert.equal(error.code, 'bad-header');
        assert.equal(error.file, idx);
        assert.match(error.detail, detail);
        return true;
      },
    );
    await assertRefused(['stats', '--no-cache', copy], idx, detail);
    await assertRefused(['verify-pack', '-v', idx], idx, detail);
  });
});

describe('hostile files: a sparse multi-pack-index of 5 GB', () => {
  test('is a typed error naming it, not an internal error from the allocation', async () => {
    const copy = path.join(sandbox.root, 'sparse-midx-repo');
    fs.cpSync(repo, copy, { recursive: true });
    sandbox.git(copy, ['multi-pack-index', 'write']);
    const midx = path.join(copy, '.git', 'objects', 'pack', 'multi-pack-index');
    fs.chmodSync(midx, 0o644);
    fs.truncateSync(midx, 5e9);
    await assertRefused(
      ['stats', '--no-cache', copy],
      midx,
      /^offset 0: a read of 5000000000 bytes is more than the \d+ bytes PackScope can hold in memory$/,
    );
  });
});

describe('hostile files: the checked reader itself', () => {
  test('reads a regular file whole, says undefined for a missing one, refuses devices at once', () => {
    const file = path.join(sandbox.root, 'small.txt');
    fs.writeFileSync(file, 'one\ntwo\n');
    assert.equal(readRepositoryTextFile(file, 100), 'one\ntwo\n');
    assert.equal(readRepositoryTextFile(path.join(sandbox.root, 'absent'), 100), undefined);
    assert.equal(readRepositoryTextFile(path.join(file, 'below-a-file'), 100), undefined);
    for (const device of ['/dev/zero', '/dev/urandom', sandbox.root]) {
      assert.throws(
        () => readRepositoryTextFile(device, 100),
        (error) => {
          assert.ok(error instanceof InputOutputError);
          assert.equal(error.message, `${device}: not a regular file`);
          return true;
        },
      );
    }
    assert.throws(() => readRepositoryTextFile(file, 4), /small\.txt: file is 8 bytes, more than the 4-byte limit/);
  });
});
