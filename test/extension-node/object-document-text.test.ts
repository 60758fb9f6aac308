// The object document's delta listing (src/extension/object-document-text.ts) on deltas git made:
// a tree delta inserts raw id bytes, which show as hex with the entry they belong to (checked
// against git ls-tree), not as JGit's Latin-1 escapes; text inserts keep JGit's quoted form.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { renderDelta, renderObjectDocument, treeEntries } from '../../src/extension/object-document-text.ts';
import { readObjectContentBody } from '../../src/server/object-content.ts';
import { objectItem } from '../../src/server/object-views.ts';
import type { ObjectContent } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, packStems, tempDir } from '../support/git.ts';

let root: string;
let sandbox: GitSandbox;
let repo: string;
let model: PackModel;

before(() => {
  root = tempDir(undefined, 'packscope-object-document-');
  sandbox = new GitSandbox(root);
  repo = sandbox.init('trees');
  // One directory of 40 files; each commit changes one file, so each tree differs from the last by one entry's id.
  const dir = path.join(repo, 'dir');
  fs.mkdirSync(dir);
  for (let f = 0; f < 40; f++)
    fs.writeFileSync(
      path.join(dir, `file-${String(f).padStart(2, '0')}.txt`),
      `file ${f}\n${'line of text\n'.repeat(f + 3)}`,
    );
  for (let c = 0; c < 12; c++) {
    fs.appendFileSync(path.join(dir, `file-${String((c * 7) % 40).padStart(2, '0')}.txt`), `change ${c}\n`);
    sandbox.git(repo, ['add', '-A']);
    sandbox.git(repo, ['commit', '-q', '-m', `commit ${c}`]);
  }
  sandbox.git(repo, ['repack', '-q', '-adf', '--depth=50', '--window=50']);
  const stems = packStems(path.join(repo, '.git', 'objects'));
  model = buildPackModel(packFilesFor(`${stems[0]}.pack`));
});

after(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

function contentOf(n: number): ObjectContent {
  const item = objectItem(model, n);
  const details = {
    ...item,
    repository: 'r',
    repositoryName: 'trees',
    pack: 'p.pack',
    packName: 'p.pack',
    chain: [item],
    root: item.oid,
  };
  return { details, ...readObjectContentBody(model, n, { maxContentBytes: 1 << 20, maxInstructions: 1000 }) };
}

test('a tree delta shows its inserted id bytes as hex, named by the entry git ls-tree gives them', () => {
  let checked = 0;
  for (let n = 0; n < model.count; n++) {
    if (!model.isDelta(n) || model.typeName(n) !== 'tree') continue;
    const content = contentOf(n);
    const lines = renderDelta(
      content.delta!,
      (() => {
        const parsed = treeEntries(Buffer.from(content.contentBase64, 'base64'), 20)!;
        return { entries: parsed.entries, hashBytes: 20 };
      })(),
    );
    assert.deepEqual(
      renderObjectDocument(content)
        .split('\n')
        .filter((l) => l.startsWith('  INSERT') || l.startsWith('        bytes')),
      lines.filter((l) => l.startsWith('  INSERT') || l.startsWith('        bytes')),
    );
    // git's own listing of this tree: the ids the annotations must name.
    const lsTree = new Map(
      sandbox
        .gitText(repo, ['ls-tree', model.oidHex(n)])
        .trim()
        .split('\n')
        .map((line) => {
          const [meta, name] = line.split('\t');
          return [name!, meta!.split(' ')[2]!];
        }),
    );
    for (const [i, line] of lines.entries()) {
      const named =
        /^ {8}bytes \d+–\d+: (the id|bytes \d+–\d+ of the id) of tree entry (\S+) \((\d{6}) (blob|tree) ([0-9a-f]{40})\)$/.exec(
          line,
        );
      if (named === null) continue;
      assert.equal(named[5], lsTree.get(named[2]!), `${named[2]} in tree ${model.oidHex(n)}`);
      assert.match(lines[i - 1]!, /^ {2}INSERT\(\d+ bytes, hex\)( [0-9a-f]{2})+$|^ {8}bytes /);
      if (named[1] === 'the id') {
        const hexLine = lines
          .slice(0, i)
          .reverse()
          .find((l) => l.startsWith('  INSERT('))!;
        assert.ok(
          hexLine
            .replace(/^.*hex\) /, '')
            .replace(/ /g, '')
            .includes(named[5]!),
          `the id's bytes are in the hex: ${hexLine}`,
        );
        checked++;
      }
    }
    // No Latin-1 re-encoding of binary inserts: an INSERT with octal escapes would be JGit's quoting of raw bytes.
    for (const line of lines) if (line.startsWith('  INSERT(')) assert.doesNotMatch(line, /\\[0-7]{3}/, line);
  }
  assert.ok(checked >= 5, `${checked} whole ids named in tree deltas`);
});

test("a text delta's inserts keep JGit's quoted form", () => {
  let texts = 0;
  for (let n = 0; n < model.count; n++) {
    if (!model.isDelta(n) || model.typeName(n) !== 'blob') continue;
    const lines = renderDelta(contentOf(n).delta!);
    for (const line of lines)
      if (line.startsWith('  INSERT(')) {
        assert.match(line, /^ {2}INSERT\(change \d+\\n\)$|^ {2}INSERT\([^)]*\)$/);
        assert.doesNotMatch(line, /bytes, hex/);
        texts++;
      }
  }
  assert.ok(texts > 0);
});

test('binary inserts outside trees are hex too, without entry names', () => {
  const data = Buffer.from([0x00, 0xff, 0x41, 0x0a]);
  const lines = renderDelta({
    base: 'b'.repeat(40),
    baseSize: 10,
    resultSize: 14,
    deltaBytes: 9,
    instructions: [
      { op: 'copy', baseOffset: 0, length: 10 },
      { op: 'insert', length: 4, preview: '\\0\\377A\\n', dataBase64: data.toString('base64') },
    ],
    totalInstructions: 2,
    copiedBytes: 10,
    insertedBytes: 4,
  });
  assert.deepEqual(lines.slice(2), ['  COPY  (0, 10)', '  INSERT(4 bytes, hex) 00 ff 41 0a']);
});
