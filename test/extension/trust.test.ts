// Trust inside VS Code (test/extension/index.ts): Measure for real on a recording whose
// command makes git run other programs. The recording is made with the CLI on a repository built
// with git, then its header is rewritten as a hostile file would be: `-c alias.l=!touch … l`, which
// is refused before any dialog.
// The workbench of the harness is trusted (--disable-workspace-trust), so the untrusted case is
// checked on the plan function the panel calls.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { CacheLabPanel } from '../../src/extension/cache-lab/cache-lab-panel.ts';
import {
  checkedMeasurePlan,
  measureConfirmation,
  UNTRUSTED_REFUSAL,
} from '../../src/extension/cache-lab/measure-plan.ts';
import { RecordingInfoRequest } from '../../src/protocol/server-protocol.ts';
import {
  activatePackScope,
  addRepositoryToServer,
  commitHistory,
  git,
  gitEnv,
  packscopeCli,
  pickedByUser,
  until,
} from './support.ts';

const MAGIC = '#packscope-recording ';

/** A copy of `recording` whose header says what `edit` makes of it. */
function rewrittenRecording(recording: string, file: string, edit: (header: Record<string, unknown>) => void): string {
  const text = fs.readFileSync(recording, 'utf8');
  const newline = text.indexOf('\n');
  const header = JSON.parse(text.slice(MAGIC.length, newline).replace(/^\d+ /, '')) as Record<string, unknown>;
  const version = /^(\d+) /.exec(text.slice(MAGIC.length))![1];
  edit(header);
  fs.writeFileSync(file, `${MAGIC}${version} ${JSON.stringify(header)}${text.slice(newline)}`);
  return file;
}

describe('Trust: Measure for real on a hostile recording', function () {
  this.timeout(180_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let recording: string;
  let restoreRepositories: (() => Promise<void>) | undefined;

  before(async () => {
    const activated = await activatePackScope();
    api = activated.api;
    temp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-trust-test-')));
    repo = path.join(temp, 'repo');
    fs.mkdirSync(repo);
    commitHistory(
      repo,
      6,
      (c) => `2024-04-0${c}T12:00:00Z`,
      (c) => fs.writeFileSync(path.join(repo, 'file.txt'), `revision ${c}\n`.repeat(50 + c)),
    );
    git(repo, 'repack', '-adfq');
    recording = path.join(temp, 'log-raw.psrec');
    packscopeCli(activated.extensionPath, gitEnv)(
      'record',
      '--exact',
      '-o',
      recording,
      '-C',
      repo,
      '--',
      'log',
      '--raw',
    );
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    api?.cacheLab.panel?.dispose();
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  // What the allow-list refuses is checked option by option in test/common/measured-command.test.ts.
  it('an alias that runs the shell is refused before any dialog, naming it, and not run', async () => {
    const marker = path.join(temp, 'alias-ran');
    const hostile = rewrittenRecording(recording, path.join(temp, 'alias.psrec'), (header) => {
      header.command = ['-c', `alias.l=!touch ${marker}`, 'l', 'log', '--raw'];
    });
    await pickedByUser(api, hostile);
    const info = await api.server.request(RecordingInfoRequest, { file: hostile });
    const plan = checkedMeasurePlan(info, null, true);
    assert.ok('refusal' in plan, JSON.stringify(plan));
    assert.match(plan.refusal, /it refuses "-c alias\.l=!touch /);

    await vscode.commands.executeCommand('packscope.openCacheLab', { file: hostile });
    const panel = await until<CacheLabPanel>(
      'the Cache Lab panel',
      () => (api.cacheLab.panel?.state.recording === hostile ? api.cacheLab.panel : undefined),
      60_000,
    );
    const refused = await api.cacheLab.measure(panel, { limits: [0], runs: 1, confirmed: true });
    assert.equal(refused.outcome, 'failed');
    assert.match(
      refused.errors.join('\n'),
      /Measure for real re-runs only git commands that read; it refuses "-c alias\.l=!touch/,
    );
    assert.equal(refused.message, undefined);
    assert.ok(!fs.existsSync(marker), 'the alias did not run');
  });

  it('the dialog shows newlines and bidi controls of the command as escapes', async () => {
    const hostile = rewrittenRecording(recording, path.join(temp, 'bidi.psrec'), (header) => {
      header.command = ['log', '--format=%H\n\nRun? yes', '--grep=\u202Egol'];
    });
    await pickedByUser(api, hostile);
    const plan = checkedMeasurePlan(await api.server.request(RecordingInfoRequest, { file: hostile }), null, true);
    assert.ok(!('refusal' in plan), JSON.stringify(plan));
    const { message, detail } = measureConfirmation(plan, { file: hostile, origin: 'storage', limits: 2, runs: 3 });
    assert.ok(!/[\n\u202E]/.test(message + detail), message + detail);
    assert.ok(message.includes('\\n\\nRun? yes') && message.includes('\\u202Egol'), message);
    assert.match(detail, /Recorded by PackScope/);
  });

  it('refuses an untrusted workspace, non-string arguments and a working directory outside the repository', async () => {
    await pickedByUser(api, recording);
    const info = await api.server.request(RecordingInfoRequest, { file: recording });
    assert.deepEqual(checkedMeasurePlan(info, null, false), { refusal: UNTRUSTED_REFUSAL });
    assert.ok(!('refusal' in checkedMeasurePlan(info, null, true)));
    const numbers = rewrittenRecording(recording, path.join(temp, 'numbers.psrec'), (header) => {
      header.command = ['log', 7, { raw: true }];
    });
    let refusal: string | undefined;
    try {
      await pickedByUser(api, numbers);
      const plan = checkedMeasurePlan(await api.server.request(RecordingInfoRequest, { file: numbers }), null, true);
      refusal = 'refusal' in plan ? plan.refusal : undefined;
    } catch (error) {
      refusal = String(error);
    }
    assert.ok(refusal !== undefined, 'a recording with non-string arguments is not measured');
    const elsewhere = rewrittenRecording(recording, path.join(temp, 'elsewhere.psrec'), (header) => {
      header.cwd = os.tmpdir();
    });
    await pickedByUser(api, elsewhere);
    const moved = checkedMeasurePlan(await api.server.request(RecordingInfoRequest, { file: elsewhere }), null, true);
    assert.ok('refusal' in moved && /outside its repository/.test(moved.refusal), JSON.stringify(moved));
  });
});
