// "Where the bytes go" inside VS Code (test/extension/index.ts), on a repository made here with the
// git CLI: each row of "Largest paths" expands to the blobs git lists at that path (with cat-file's
// on-disk size and verify-pack's depth on the row), a blob row's command opens that object's
// document; the treemap command, given the row as the inline action gives it, opens one panel for
// the repository whose sizes are `packscope sizes --json`'s, and its Markdown lists the directory's
// rows with those numbers.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../../src/common/format.ts';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { PacksNode } from '../../src/extension/packs-view/packs-node.ts';
import type { PathBlobNode } from '../../src/extension/packs-view/path-blob-node.ts';
import type { RepositoryNode } from '../../src/extension/packs-view/repository-node.ts';
import type { SizesDocument } from '../../src/protocol/server-protocol.ts';
import {
  activatePackScope,
  addRepositoryToServer,
  commitHistory,
  git,
  gitEnv,
  packscopeCli,
  until,
} from './support.ts';

function makeRepository(parent: string): string {
  const dir = path.join(parent, 'sizes-repo');
  fs.mkdirSync(dir);
  const write = (name: string, text: string): void => {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  };
  commitHistory(
    dir,
    10,
    (c) => `2024-03-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      const lines = Array.from(
        { length: 500 },
        (_, i) => `line ${i * 7919} ${i % 10 < c ? `changed in ${i % 10}` : ''}\n`,
      );
      write('src/engine/core.c', lines.join(''));
      if (c % 2 === 0) write('src/main.c', `int main${c};\n`.repeat(200));
      if (c % 3 === 0) write('docs/guide.md', `guide ${c}\n`.repeat(300));
      write('README', `readme ${c}\n`);
    },
  );
  git(dir, 'repack', '-adfq', '--depth=10', '--window=10');
  return dir;
}

describe('Where the bytes go: blobs by path and the treemap', function () {
  this.timeout(240_000);
  let api: PackScopeApi;
  let temp: string;
  let repo: string;
  let gitDir: string;
  let sizes: SizesDocument;
  let restoreRepositories: (() => Promise<void>) | undefined;
  const children = (node?: PacksNode): Promise<PacksNode[]> => Promise.resolve(api.packsTree.getChildren(node));
  const labelOf = (node: PacksNode): string =>
    typeof node.label === 'string' ? node.label : (node.label?.label ?? '');

  before(async () => {
    const activated = await activatePackScope();
    api = activated.api;
    temp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bytes-treemap-test-'));
    repo = makeRepository(temp);
    gitDir = fs.realpathSync(path.join(repo, '.git'));
    const cli = packscopeCli(activated.extensionPath, {
      ...gitEnv,
      PACKSCOPE_NO_PROGRESS: '1',
      PACKSCOPE_CACHE_DIR: path.join(temp, 'cli-models'),
    });
    sizes = JSON.parse(cli('sizes', '--json', repo)) as SizesDocument;
    restoreRepositories = await addRepositoryToServer(api, repo);
  });

  after(async () => {
    for (const panel of [api?.bytesTreemap.panel]) panel?.dispose();
    await restoreRepositories?.();
    if (temp !== undefined) fs.rmSync(temp, { recursive: true, force: true });
  });

  /** The repository's "Where the bytes go" row. */
  const sizesNode = async (): Promise<PacksNode> => {
    const repository = await until('the repository in the Packs view', async () => {
      await api.packsTree.refreshAll();
      return (await children()).find(
        (node): node is RepositoryNode => node.kind === 'repository' && fs.realpathSync(node.listing.gitDir) === gitDir,
      );
    });
    return (await children(repository)).find((node) => node.kind === 'sizes')!;
  };

  it('each largest path expands to the blobs git lists at it; a blob row opens its object document', async () => {
    const node = await sizesNode();
    const groups = await children(node);
    const largest = groups.find((g) => labelOf(g) === 'Largest paths')!;
    const paths = await children(largest);
    assert.deepEqual(
      paths.map(labelOf),
      sizes.paths.slice(0, 20).map((r) => r.path),
    );
    const depths = new Map<string, number>();
    const packDir = path.join(repo, '.git', 'objects', 'pack');
    const idx = fs.readdirSync(packDir).find((f) => f.endsWith('.idx'))!;
    for (const line of git(repo, 'verify-pack', '-v', path.join(packDir, idx)).split('\n')) {
      const m = /^([0-9a-f]{40}) \w+ +\d+ \d+ \d+(?: (\d+) [0-9a-f]{40})?$/.exec(line);
      if (m) depths.set(m[1]!, m[2] === undefined ? 0 : Number(m[2]));
    }
    const diskSizes = new Map(
      git(repo, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname) %(objectsize:disk)')
        .trim()
        .split('\n')
        .map((line) => line.split(' ') as [string, string]),
    );
    for (const pathNode of paths) {
      const file = labelOf(pathNode);
      const blobs = (await children(pathNode)) as PathBlobNode[];
      const expected = new Set<string>();
      for (const line of git(
        repo,
        'log',
        '--all',
        '--full-history',
        '--raw',
        '--no-abbrev',
        '--format=',
        '--',
        file,
      ).split('\n')) {
        const m = /^:\S+ \S+ \S+ ([0-9a-f]{40}) /.exec(line);
        if (m && !/^0+$/.test(m[1]!)) expected.add(m[1]!);
      }
      assert.deepEqual(new Set(blobs.map((b) => b.oid)), expected, file);
      for (const blob of blobs) {
        const disk = Number(diskSizes.get(blob.oid));
        assert.equal(blob.blob.disk, disk, blob.oid);
        assert.equal(blob.blob.depth, depths.get(blob.oid), blob.oid);
        assert.ok(String(blob.description).startsWith(`${formatBytes(disk)} on disk`), String(blob.description));
      }
    }
    const core = (await children(paths.find((p) => labelOf(p) === 'src/engine/core.c')!)) as PathBlobNode[];
    assert.equal(core.length, 10);
    assert.ok(
      core.some((b) => (b.blob.depth ?? 0) > 1),
      'core.c has a chain deeper than one',
    );
    const deep = core.find((b) => (b.blob.depth ?? 0) > 1)!;
    await vscode.commands.executeCommand(deep.command!.command, ...(deep.command!.arguments ?? []));
    const editor = await until('the object document of the blob', () =>
      vscode.window.activeTextEditor?.document.getText().includes(deep.oid)
        ? vscode.window.activeTextEditor
        : undefined,
    );
    assert.match(editor.document.getText(), new RegExp(`^depth\\s+${deep.blob.depth}$`, 'm'));
  });

  it("opens one treemap panel per repository with packscope sizes' numbers, and its Markdown lists a directory's rows", async () => {
    const node = await sizesNode();
    await vscode.commands.executeCommand('packscope.showBytesTreemap', node);
    const panel = await until('the treemap panel', () => api.bytesTreemap.panel);
    assert.equal(panel.panel.viewType, 'packscope.bytesTreemap');
    assert.equal(panel.panel.title, 'Where the Bytes Go: sizes-repo');
    const data = await panel.data();
    assert.deepEqual(data.directories, sizes.directories);
    assert.deepEqual(data.paths, sizes.paths);
    await until(
      'the page to be sent the sizes',
      () => (panel.posted.some((m) => m.type === 'show') ? true : undefined),
      60_000,
    );
    // A second ask for the same repository shows the panel already open.
    await vscode.commands.executeCommand('packscope.showBytesTreemap', { repository: repo });
    assert.equal(api.bytesTreemap.panel, panel);
    const markdown = await panel.markdown('src');
    const src = sizes.directories.find((d) => d.path === 'src')!;
    assert.ok(markdown.startsWith('### Where the bytes go: sizes-repo: src/\n'), markdown);
    for (const child of [
      ...sizes.directories.filter((d) => d.path === 'src/engine'),
      ...sizes.paths.filter((p) => p.path === 'src/main.c'),
    ]) {
      const name = child.path === 'src/engine' ? 'src/engine/' : child.path;
      const share = `${((child.disk / src.disk) * 100).toFixed(1)}%`;
      assert.ok(
        markdown.includes(`| ${name} | ${formatBytes(child.disk)} | ${formatBytes(child.inflated)} | ${share} |`),
        markdown,
      );
    }
  });
});
