// The Packs view for every kind of pack, inside VS Code: a cruft pack, a kept pack, a
// multi-pack-index with a bitmap and a preferred pack, and loose objects, made with the git CLI.
// Pack rows say their kind and markers; the repository's Storage node has the loose objects (as
// `git count-objects -v` counts them) and the multi-pack-index with the packs it covers.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { PacksNode } from '../../src/extension/packs-view/packs-node.ts';
import type { RepositoryNode } from '../../src/extension/packs-view/repository-node.ts';
import { activatePackScope, commitHistory, git, until } from './support.ts';

const labelOf = (node: PacksNode): string => (typeof node.label === 'string' ? node.label : (node.label?.label ?? ''));

function packDir(repo: string): string {
  return path.join(repo, '.git', 'objects', 'pack');
}

/** Four commits, one dropped into a cruft pack, one more pack kept, a MIDX with a bitmap preferring it, two loose blobs. */
function makeRepository(): { dir: string; kept: string; cruft: string } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-pack-kinds-'));
  commitHistory(
    dir,
    4,
    (c) => `2024-02-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => fs.writeFileSync(path.join(dir, `f${c}.txt`), `file ${c}\n`.repeat(20 * c)),
  );
  git(dir, 'reset', '-q', '--hard', 'HEAD~1');
  git(dir, 'reflog', 'expire', '--expire=now', '--all');
  git(dir, 'repack', '-q', '--cruft', '-d', '-b');
  const cruft = fs
    .readdirSync(packDir(dir))
    .find((n) => n.endsWith('.mtimes'))!
    .replace(/\.mtimes$/, '.pack');
  fs.writeFileSync(path.join(dir, 'f5.txt'), 'five\n');
  git(dir, 'add', 'f5.txt');
  git(dir, 'commit', '-q', '-m', 'five');
  const before = new Set(fs.readdirSync(packDir(dir)));
  git(dir, 'repack', '-q', '-d');
  const kept = fs.readdirSync(packDir(dir)).find((n) => n.endsWith('.pack') && !before.has(n))!;
  fs.writeFileSync(path.join(packDir(dir), kept.replace(/\.pack$/, '.keep')), 'kept by the test\n');
  git(dir, 'multi-pack-index', 'write', '--bitmap', `--preferred-pack=${kept}`);
  for (const text of ['loose one\n', 'loose two\n']) {
    fs.writeFileSync(path.join(dir, 'blob.txt'), text);
    git(dir, 'hash-object', '-w', 'blob.txt');
  }
  return { dir, kept, cruft };
}

describe('Packs view: every kind of pack', function () {
  this.timeout(60_000);
  let api: PackScopeApi;
  let made: { dir: string; kept: string; cruft: string };
  const children = (node?: PacksNode): Promise<PacksNode[]> => Promise.resolve(api.packsTree.getChildren(node));

  before(async function () {
    this.timeout(120_000);
    ({ api } = await activatePackScope());
    await api.ready;
    made = makeRepository();
    await vscode.workspace
      .getConfiguration('packscope')
      .update('repositories', [made.dir], vscode.ConfigurationTarget.Global);
  });

  after(async () => {
    await vscode.workspace
      .getConfiguration('packscope')
      .update('repositories', undefined, vscode.ConfigurationTarget.Global);
    if (made !== undefined) fs.rmSync(made.dir, { recursive: true, force: true });
  });

  it('pack rows say cruft, .keep and in MIDX; the Storage node has loose objects and the multi-pack-index', async () => {
    const gitDir = fs.realpathSync(path.join(made.dir, '.git'));
    const repository = await until('the repository in the Packs view', async () => {
      await api.packsTree.refreshAll();
      return (await children()).find(
        (n): n is RepositoryNode =>
          n.contextValue === 'repository' && fs.realpathSync((n as RepositoryNode).listing.gitDir) === gitDir,
      );
    });
    const rows = await children(repository);
    const packs = rows.filter((n) => n.contextValue?.startsWith('pack') === true);
    assert.equal(packs.length, fs.readdirSync(packDir(made.dir)).filter((n) => n.endsWith('.pack')).length);
    const byName = (name: string): PacksNode =>
      packs.find((n) => (n as unknown as { listing: { name: string } }).listing.name === name)!;
    assert.match(String(byName(made.cruft).description), /^cruft( · \S+)* · in MIDX · /);
    assert.match(String(byName(made.kept).description), /^\.keep · in MIDX · /);
    const tooltip = byName(made.kept).tooltip as vscode.MarkdownString;
    assert.match(tooltip.value, /kept: kept by the test/);
    const storage = rows.find((n) => n.contextValue === 'storage');
    assert.ok(storage, `a Storage row among ${rows.map(labelOf).join(', ')}`);
    const facts = await children(storage);
    const loose = facts.find((n) => labelOf(n) === 'Loose objects')!;
    const count = /^count: (\d+)$/m.exec(git(made.dir, 'count-objects', '-v'))![1];
    assert.match(String(loose.description), new RegExp(`^${count} objects · `));
    const midx = facts.find((n) => labelOf(n) === 'Multi-pack-index')!;
    assert.match(String(midx.description), /^\d+ packs · \d+ objects · bitmap/);
    const covered = await children(midx);
    assert.equal(covered.length, packs.length);
    assert.equal(
      covered.find((n) => n.description === 'preferred') !== undefined &&
        labelOf(covered.find((n) => n.description === 'preferred')!),
      made.kept.replace(/\.pack$/, '.idx'),
    );
  });
});
