/**
 * The Pack Map's colours come from a table per attribute (every object's colour computed once, in
 * pack order: src/core/map/pack-map.ts coloursOf) instead of per cell. The pixels must be the ones
 * the attribute's colour function gives for the object git says holds each cell's first byte: its
 * type, depth and size on disk as `git verify-pack -v` prints them, and its family's root found by
 * following verify-pack's base ids down to depth 0 (the root's object number is its rank among the
 * pack's sorted ids, the idx order). With a recording, the cells no read touched are those colours
 * dimmed as before (×0.3, truncated as a Uint8Array stores it).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import {
  depthColour,
  diskSizeColour,
  EMPTY_COLOUR,
  familyColour,
  hilbertPoint,
  MAP_ATTRIBUTES,
  TYPE_COLOURS,
  type MapAttribute,
  type Rgb,
} from '../../src/common/pack-map-geometry.ts';
import { hashAlgorithmByName } from '../../src/core/format/hash-algorithm.ts';
import { PackMap } from '../../src/core/map/pack-map.ts';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import type { PackModel } from '../../src/core/model/pack-model.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import {
  entryHolding,
  historyRepository,
  onlyPackStem,
  verifyPackEntries,
  type VerifyPackEntry,
} from '../support/git-oracle.ts';

let model: PackModel;
let entries: VerifyPackEntry[];
let plain: PackMap;
let heat: PackMap;
const TYPE_NUMBER: Record<string, number> = { commit: 1, tree: 2, blob: 3, tag: 4 };

before(() => {
  const root = tempDir(undefined, 'packscope-map-colours-');
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', {
    commits: 40,
    seed: 7,
    files: 4,
    linesPerFile: 50,
    repack: ['-adf', '--depth=12'],
  });
  const stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  entries = verifyPackEntries(sandbox, repo, `${stem}.pack`);
  model = buildPackModel({ pack: `${stem}.pack`, idx: `${stem}.idx` }, { hash: hashAlgorithmByName('sha1')! });
  // Every other object in pack order read once: half the cells lit, half dimmed.
  const counts = new Uint32Array(model.count);
  const sorted = entries.map((e) => e.oid).sort();
  entries.forEach((e, i) => {
    if (i % 2 === 0) counts[sorted.indexOf(e.oid)] = 1;
  });
  plain = new PackMap(model);
  heat = new PackMap(model, counts);
});

/** The colour git's view of the object gives under `attribute`, computed without the model. */
function gitColours(): (attribute: MapAttribute, entry: VerifyPackEntry) => Rgb {
  const byOid = new Map(entries.map((e) => [e.oid, e]));
  const rank = new Map([...byOid.keys()].sort().map((oid, i) => [oid, i]));
  const maxDepth = Math.max(...entries.map((e) => e.depth));
  const largest = Math.max(...entries.map((e) => e.diskSize));
  const rootOf = (entry: VerifyPackEntry): VerifyPackEntry => {
    let at = entry;
    for (let steps = 0; at.base !== undefined; steps++) {
      assert.ok(steps <= entry.depth, `${entry.oid}: chain longer than its depth`);
      at = byOid.get(at.base)!;
    }
    return at;
  };
  return (attribute, entry) => {
    switch (attribute) {
      case 'type':
        return TYPE_COLOURS[TYPE_NUMBER[entry.type]!]!;
      case 'depth':
        return depthColour(entry.depth, maxDepth);
      case 'disk-size':
        return diskSizeColour(entry.diskSize, largest);
      case 'family':
        return familyColour(rank.get(rootOf(entry).oid)!);
    }
  };
}

describe('Pack Map colour tables', () => {
  test('every cell of whole-map tiles has the colour of the object git puts at its first byte, for every attribute, with and without a recording', () => {
    const colourOf = gitColours();
    const readAt = new Set(entries.filter((_, i) => i % 2 === 0).map((e) => e.offset));
    const maxOrder = plain.orderFor(1);
    let checked = 0;
    for (const order of [3, Math.min(7, maxOrder - 1), Math.min(8, maxOrder)]) {
      const side = 2 ** order;
      for (const attribute of MAP_ATTRIBUTES) {
        const tile = plain.render(order, attribute, { x: 0, y: 0, width: side, height: side });
        const dimmed = heat.render(order, attribute, { x: 0, y: 0, width: side, height: side });
        for (let d = 0; d < side * side; d++) {
          const [x, y] = hilbertPoint(order, d);
          const [start, end] = plain.cellBytes(order, d);
          const at = (y * side + x) * 4;
          if (start >= plain.dataEnd) {
            assert.deepEqual([...tile.rgba.subarray(at, at + 3)], [...EMPTY_COLOUR]);
            continue;
          }
          const entry = entryHolding(entries, start);
          const expected = colourOf(attribute, entry);
          assert.deepEqual(
            [...tile.rgba.subarray(at, at + 3)],
            [...expected],
            `order ${order} ${attribute} cell (${x}, ${y}) at byte ${start}: ${entry.oid}`,
          );
          // A cell is unread when no object starting in it (nor the one holding its first byte) was read.
          const touched =
            readAt.has(entry.offset) ||
            entries.some((e) => e.offset > start && e.offset < Math.min(end, plain.dataEnd) && readAt.has(e.offset));
          if (!touched)
            assert.deepEqual(
              [...dimmed.rgba.subarray(at, at + 3)],
              expected.map((c) => Math.floor(c * 0.3)),
              `dimmed ${attribute} cell (${x}, ${y})`,
            );
          checked++;
        }
      }
    }
    assert.ok(checked > 1000, `checked ${checked}`);
  });
});
