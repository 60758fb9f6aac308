// Preview Repack of another mode (--cruft here; --geometric=2 takes the same path) inside VS Code: the command, given the mode
// programmatically, has the server run that repack against a shadow and opens the packs before
// and after as Markdown; the repository's pack directory is left as it was, and the counts are
// those of the same `git repack` run for real in a copy.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import { activatePackScope, addRepositoryToServer, commitHistory, git, until } from './support.ts';

function makeRepository(parent: string): string {
  const dir = path.join(parent, 'modes-repo');
  fs.mkdirSync(dir);
  commitHistory(
    dir,
    5,
    (c) => `2024-05-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      fs.writeFileSync(path.join(dir, `f${c}.txt`), `file ${c}\n`.repeat(10 * c));
    },
  );
  git(dir, 'repack', '-adq');
  git(dir, 'reset', '-q', '--hard', 'HEAD~1');
  git(dir, 'reflog', 'expire', '--expire=now', '--all');
  return dir;
}

const packsOf = (dir: string): string[] => fs.readdirSync(path.join(dir, '.git', 'objects', 'pack')).sort();

describe('Preview Repack of another mode', function () {
  this.timeout(120_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let restoreRepositories: (() => Promise<void>) | undefined;

  before(async () => {
    api = (await activatePackScope()).api;
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-repack-modes-test-'));
    repo = makeRepository(temp);
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  it('--cruft opens the packs before and after as Markdown, as the real repack leaves them', async () => {
    const before = packsOf(repo);
    await vscode.commands.executeCommand('packscope.previewRepack', { repository: repo, mode: { kind: 'cruft' } });
    const editor = await until('the Markdown of the preview', () => {
      const document = vscode.window.activeTextEditor?.document;
      return document?.languageId === 'markdown' && document.getText().includes('git repack --cruft -d')
        ? document
        : undefined;
    });
    assert.deepEqual(packsOf(repo), before, 'the repository is untouched');
    const copy = path.join(temp, 'copy');
    fs.cpSync(repo, copy, { recursive: true });
    git(copy, 'repack', '-q', '--cruft', '-d');
    const after = packsOf(copy).filter((n) => n.endsWith('.pack'));
    const cruft = packsOf(copy).filter((n) => n.endsWith('.mtimes')).length;
    const text = editor.getText();
    assert.match(
      text,
      new RegExp(`\\| packs \\| ${before.filter((n) => n.endsWith('.pack')).length} \\| ${after.length} \\|`),
    );
    assert.match(text, new RegExp(`\\| cruft packs \\| 0 \\| ${cruft} \\|`));
    assert.equal(cruft, 1);
  });
});
