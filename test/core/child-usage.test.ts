import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childUsage, runWithUsage } from '../../src/core/git/child-usage.ts';

/**
 * The calibration and the cost bench time git under bash (its `times` and /proc give a child's CPU
 * time and page faults). A non-interactive bash whose stdin is a socket (node's stdio pipes) and
 * whose environment has no SHLVL reads ~/.bashrc, as if rshd had started it: the user's start-up
 * files were then timed as git (0.48 s of pyenv a run on this project's machine).
 */
describe('childUsage', () => {
  test("runs the command without the user's start-up files, and counts its CPU time and page faults", async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-child-usage-'));
    try {
      const marker = path.join(home, 'startup-files-ran');
      for (const file of ['.bashrc', '.bash_profile', '.profile', 'bash-env'])
        fs.writeFileSync(path.join(home, file), `echo ${file} >> '${marker}'\n`);
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: home,
        BASH_ENV: path.join(home, 'bash-env'),
        ENV: path.join(home, 'bash-env'),
      };
      // stdin is a pipe (a socket pair): the case in which bash reads ~/.bashrc on its own.
      const usage = await childUsage(
        process.execPath,
        [
          '-e',
          'const a = []; for (let i = 0; i < 64; i++) a.push(Buffer.alloc(1 << 20, 1)); let s = 0; for (let i = 0; i < 3e7; i++) s += i; console.log(s, a.length)',
        ],
        { environment: env },
        'input\n',
      );
      assert.equal(
        fs.existsSync(marker),
        false,
        `start-up files ran: ${fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8') : ''}`,
      );
      assert.ok(usage.cpuSeconds > 0, `CPU seconds ${usage.cpuSeconds}`);
      if (process.platform === 'linux') {
        // 64 MiB written for the first time: at least 16,384 pages (4 KiB) faulted in.
        assert.ok(usage.minorFaults !== null && usage.minorFaults >= 16384, `minor faults ${usage.minorFaults}`);
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  test('a failing command is an error with its status', async () => {
    await assert.rejects(
      childUsage(process.execPath, ['-e', 'process.exit(3)'], { environment: { PATH: process.env.PATH } }, undefined),
      /status 3/,
    );
  });

  test("runWithUsage keeps the command's stderr its own and reports its status", async () => {
    const run = await runWithUsage(
      process.execPath,
      ['-e', 'process.stderr.write("git said no\\n"); process.exit(2)'],
      { environment: { PATH: process.env.PATH } },
    );
    assert.equal(run.status, 2);
    assert.equal(run.stderr, 'git said no\n');
    assert.ok(run.cpuSeconds !== null && run.cpuSeconds >= 0);
    assert.ok(run.wallSeconds > 0);
  });

  test('runWithUsage stops the command and its children when cancelled', async () => {
    const controller = new AbortController();
    const pending = runWithUsage(
      process.execPath,
      [
        '-e',
        'require("node:child_process").spawn(process.execPath, ["-e", "setTimeout(() => {}, 600000)"], { stdio: "inherit" }); setTimeout(() => {}, 600000)',
      ],
      { environment: { PATH: process.env.PATH }, signal: controller.signal },
    );
    setTimeout(() => controller.abort(), 300);
    await assert.rejects(pending, (error: Error) => error.name === 'AbortError');
  });
});
