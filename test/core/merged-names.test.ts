/**
 * forEachDistinctName over many real idx files written by git pack-objects: every distinct id once,
 * in ascending order, with every pack holding it (ascending) and its object number there, as
 * `git show-index` lists them. Enough packs for the bucketed merge (BUCKETED_MERGE_MIN_INDEXES),
 * ids shared between packs, and more than a bucket's insertion sort takes of ids sharing their
 * first two bytes (found by hashing candidate contents as git does), so that every path of the
 * bucketed merge runs; the heap merge of fewer packs must give the same answer.
 */
import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { readIdxFile, type PackIndex } from '../../src/core/format/idx.ts';
import { BUCKETED_MERGE_MIN_INDEXES, forEachDistinctName } from '../../src/core/model/merged-names.ts';
import { GitSandbox, tempDir } from '../support/git.ts';

/** Blob contents whose ids share their first two bytes (0xbeef), `count` of them. */
function contentsSharingTwoBytes(count: number): string[] {
  const found: string[] = [];
  for (let i = 0; found.length < count; i++) {
    const content = `shared prefix candidate ${i}\n`;
    const id = createHash('sha1')
      .update(`blob ${Buffer.byteLength(content)}\0${content}`)
      .digest();
    if (id[0] === 0xbe && id[1] === 0xef) found.push(content);
  }
  return found;
}

interface Listing {
  id: string;
  holders: number[];
  objects: number[];
}

function listed(indexes: PackIndex[]): Listing[] {
  const out: Listing[] = [];
  forEachDistinctName(indexes, (holders, objects) => {
    out.push({ id: indexes[holders[0]!]!.oidHex(objects[0]!), holders: [...holders], objects: [...objects] });
  });
  return out;
}

/** The same, from every pack's own listing: all (id, pack, object) sorted by id, then by pack. */
function expected(indexes: PackIndex[]): Listing[] {
  const all: { id: string; pack: number; object: number }[] = [];
  indexes.forEach((index, pack) => {
    for (let object = 0; object < index.count; object++) all.push({ id: index.oidHex(object), pack, object });
  });
  all.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : a.pack - b.pack));
  const out: Listing[] = [];
  for (const entry of all) {
    const last = out[out.length - 1];
    if (last?.id === entry.id) {
      last.holders.push(entry.pack);
      last.objects.push(entry.object);
    } else out.push({ id: entry.id, holders: [entry.pack], objects: [entry.object] });
  }
  return out;
}

test('forEachDistinctName over 80 packs (bucketed) and 40 (heap) lists every id once with all its holders', (t) => {
  const root = tempDir(t, 'packscope-merged-names-');
  const sandbox = new GitSandbox(root);
  const repo = sandbox.init('merged', { bare: true });
  const shared = contentsSharingTwoBytes(20);
  const contents = [...shared, ...Array.from({ length: 600 }, (_, i) => `plain ${i}\n`)];
  const ids = sandbox
    .gitText(repo, ['hash-object', '-w', '--stdin-paths'], {
      input: contents
        .map((content, i) => {
          const file = path.join(root, `c${i}`);
          fs.writeFileSync(file, content);
          return file;
        })
        .join('\n'),
    })
    .trim()
    .split('\n');
  assert.equal(ids.length, contents.length);
  const packCount = 80;
  assert.ok(packCount >= BUCKETED_MERGE_MIN_INDEXES);
  const packDir = path.join(repo, 'objects', 'pack');
  const indexes: PackIndex[] = [];
  for (let p = 0; p < packCount; p++) {
    // Each pack: a run of ids that overlaps the next packs' (ids held by up to three packs), and
    // every fourth pack a third of the shared-prefix ids, so that buckets hold ids of many packs.
    const chosen = new Set<string>();
    for (let k = 0; k < 20; k++) chosen.add(ids[shared.length + ((p * 8 + k) % (ids.length - shared.length))]!);
    if (p % 4 === 0) for (let k = p % 3; k < shared.length; k += 3) chosen.add(ids[k]!);
    const name = sandbox
      .gitText(repo, ['pack-objects', '-q', path.join(packDir, 'pack')], { input: `${[...chosen].join('\n')}\n` })
      .trim();
    indexes.push(readIdxFile(path.join(packDir, `pack-${name}.idx`)));
  }
  const bucketed = listed(indexes);
  assert.deepEqual(bucketed, expected(indexes));
  assert.equal(bucketed.length, ids.length, 'every id is in some pack, listed once');
  assert.ok(bucketed.filter((entry) => entry.id.startsWith('beef')).length > 16, 'a bucket sorted by sort()');
  assert.ok(
    bucketed.some((entry) => entry.holders.length >= 3),
    'ids held by several packs',
  );
  const few = indexes.slice(0, 40);
  assert.ok(few.length < BUCKETED_MERGE_MIN_INDEXES);
  assert.deepEqual(listed(few), expected(few));
});
