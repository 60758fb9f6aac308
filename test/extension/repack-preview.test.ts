// Preview Repack… inside VS Code (test/extension/index.ts): the command, given its arguments
// programmatically, opens the result panel, and the result the host keeps (api.repackPreview) equals
// `packscope repack-preview --json` with the same options on the same repository (made here with
// the git CLI). --threads 1 on both sides makes git's delta choices, and so the pack, reproducible.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { RepackPreviewPanel } from '../../src/extension/repack-preview/repack-preview-panel.ts';
import type { RepackPreviewRun } from '../../src/protocol/repack-preview-protocol.ts';
import type { RepackPreviewResult } from '../../src/protocol/server-protocol.ts';
import {
  activatePackScope,
  addRepositoryToServer,
  commitHistory,
  git,
  gitEnv,
  packscopeCli,
  until,
} from './support.ts';

/** 30 commits of three growing files, packed with shallow chains (a repack with other options changes them). */
function makeRepository(parent: string): string {
  const dir = path.join(parent, 'repack-repo');
  fs.mkdirSync(dir);
  commitHistory(
    dir,
    30,
    (c) => `2024-04-${String(Math.min(c, 28)).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      for (let f = 1; f <= 3; f++) {
        const lines: string[] = [];
        for (let i = 0; i < 120 + c * 10; i++)
          lines.push(
            `file ${f} line ${i}: ${'repack preview '.repeat((i % 4) + 1)}${i % 7 === c % 7 ? `rev ${c}` : ''}`,
          );
        fs.writeFileSync(path.join(dir, `file-${f}.txt`), `${lines.join('\n')}\n`);
      }
    },
  );
  git(dir, 'repack', '-adfq', '--depth=4', '--window=4');
  return dir;
}

/** Waits for what a panel posts (longer than until's default: a whole run happens first). */
const waitFor = <T>(what: string, probe: () => T | undefined, timeoutMs = 120_000): Promise<T> =>
  until(what, probe, timeoutMs);

describe('Preview Repack', function () {
  this.timeout(240_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let cli: (...args: string[]) => string;
  let restoreRepositories: (() => Promise<void>) | undefined;

  before(async () => {
    const activated = await activatePackScope();
    api = activated.api;
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-repack-preview-test-'));
    repo = makeRepository(temp);
    cli = packscopeCli(activated.extensionPath, {
      ...gitEnv,
      PACKSCOPE_NO_PROGRESS: '1',
      PACKSCOPE_CACHE_DIR: path.join(temp, 'cli-models'),
    });
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    api?.repackPreview.panel?.dispose();
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  it('opens the result panel, and its result equals packscope repack-preview --json with the same options', async () => {
    const packDir = path.join(repo, '.git', 'objects', 'pack');
    const before = fs.readdirSync(packDir).sort();
    const run = (await vscode.commands.executeCommand('packscope.previewRepack', {
      repository: repo,
      depth: 20,
      window: 30,
      threads: 1,
    })) as RepackPreviewRun | undefined;
    assert.ok(run, 'the command returned its run');
    const panel = await waitFor<RepackPreviewPanel>('the result panel showing the run', () =>
      api.repackPreview.panel?.shown ? api.repackPreview.panel : undefined,
    );
    assert.equal(panel.panel.viewType, 'packscope.repackPreview');
    assert.match(panel.panel.title, /^Repack Preview: repack-repo \(-f --depth=20 --window=30 --threads=1\)$/);
    const result = api.repackPreview.lastResult!;
    assert.equal(result, run.result);

    const expected = JSON.parse(
      cli('repack-preview', '--json', '--no-estimate', '--depth', '20', '--window', '30', '--threads', '1', repo),
    ) as RepackPreviewResult;
    for (const side of ['current', 'preview'] as const) {
      assert.equal(result[side]!.objects, expected[side]!.objects, `${side}.objects`);
      assert.equal(result[side]!.packBytes, expected[side]!.packBytes, `${side}.packBytes`);
      assert.deepEqual(result[side]!.depthHistogram, expected[side]!.depthHistogram, `${side}.depthHistogram`);
      assert.equal(result[side]!.deltas, expected[side]!.deltas, `${side}.deltas`);
    }
    assert.equal(result.preview!.packs[0]!.checksum, expected.preview!.packs[0]!.checksum, 'the very same pack');
    assert.deepEqual(result.equivalent, expected.equivalent);
    assert.ok(
      result.preview!.maxDepth > result.current!.maxDepth,
      `depth 20 chains are deeper than depth 4 ones (${result.preview!.maxDepth} vs ${result.current!.maxDepth})`,
    );
    // The estimate ran too, and was compared with the preview.
    assert.equal(result.estimate?.estimate.kind, 'estimate');
    assert.equal(result.estimate?.accuracy?.objects.preview, expected.preview!.objects);
    assert.deepEqual(fs.readdirSync(packDir).sort(), before, 'the repository keeps its packs');

    // Export as Markdown holds the same numbers.
    const markdown = panel.markdown;
    assert.match(markdown, /^# Repack preview: repack-repo/);
    assert.ok(
      markdown.includes(
        `| Objects | ${expected.current!.objects.toLocaleString('en-US')} | ${expected.preview!.objects.toLocaleString('en-US')} |`,
      ),
      markdown.slice(0, 1200),
    );
    assert.ok(markdown.includes(`git repack -a -d -f --depth=20 --window=30 --threads=1`));
  });

  it('a quick estimate runs no repack and is labelled an estimate', async () => {
    const run = (await vscode.commands.executeCommand('packscope.previewRepack', {
      repository: repo,
      estimateOnly: true,
    })) as RepackPreviewRun | undefined;
    assert.ok(run);
    assert.equal(run.result.preview, null);
    assert.equal(run.result.git, null);
    const expected = JSON.parse(cli('repack-preview', '--json', '--estimate-only', repo)) as RepackPreviewResult;
    assert.equal(run.result.estimate!.estimate.objects, expected.estimate!.estimate.objects);
    assert.equal(run.result.estimate!.estimate.packBytes, expected.estimate!.estimate.packBytes);
    const panel = await waitFor('the estimate panel', () =>
      api.repackPreview.panel?.run === run && api.repackPreview.panel.shown ? api.repackPreview.panel : undefined,
    );
    assert.match(panel.panel.title, /^Repack Estimate: /);
    assert.match(panel.markdown, /\*\*Estimate\.\*\*/);
    // The deltas are today's by construction: the row says so instead of a "0.0%" forecast.
    const deltasRow = panel.markdown.split('\n').find((line) => line.startsWith('| Deltas |'));
    assert.ok(deltasRow, panel.markdown.slice(0, 1200));
    assert.match(deltasRow, /as today \(today's deltas kept\) \|$/);
    panel.dispose();
  });

  it("git failing: one error notification with git's text, no panel", async () => {
    const panelsBefore = api.repackPreview.panel;
    const run = await vscode.commands.executeCommand('packscope.previewRepack', {
      repository: repo,
      extraOptions: ['--no-such-option'],
    });
    assert.equal(run, undefined);
    assert.equal(api.repackPreview.panel, panelsBefore);
  });
});
