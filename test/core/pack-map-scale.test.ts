/**
 * The Pack Map's scales (src/common/pack-map-scale.ts) against the engine that lays the bytes out:
 * every offset a ruler marks lies in the cell PackMap.cellBytes gives it, at every order, on a pack
 * git wrote; the marks start at git's first entry and end at the checksum.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { diskSizeColour, hilbertIndex } from '../../src/common/pack-map-geometry.ts';
import {
  cellOfOffset,
  markLabel,
  offsetLabel,
  pointOfOffset,
  rulerMarks,
  sizeScaleStops,
} from '../../src/common/pack-map-scale.ts';
import { hashAlgorithmByName } from '../../src/core/format/hash-algorithm.ts';
import { PackMap } from '../../src/core/map/pack-map.ts';
import { buildPackModel } from '../../src/core/model/build-pack-model.ts';
import { GitSandbox, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem, verifyPackEntries, type VerifyPackEntry } from '../support/git-oracle.ts';

let map: PackMap;
let entries: VerifyPackEntry[];
let packBytes: number;

before(() => {
  const root = tempDir(undefined, 'packscope-map-scale-');
  after(() => fs.rmSync(root, { recursive: true, force: true }));
  const sandbox = new GitSandbox(root);
  const repo = historyRepository(sandbox, 'history', { commits: 30, seed: 7, files: 4, linesPerFile: 30 });
  const stem = onlyPackStem(path.join(repo, '.git', 'objects', 'pack'));
  entries = verifyPackEntries(sandbox, repo, `${stem}.pack`);
  packBytes = fs.statSync(`${stem}.pack`).size;
  map = new PackMap(
    buildPackModel({ pack: `${stem}.pack`, idx: `${stem}.idx` }, { hash: hashAlgorithmByName('sha1')! }),
  );
});

describe('Pack Map scales', () => {
  test("every offset lies in the cell the engine lays it in, at every order from 0 to the map's deepest", () => {
    const deepest = map.orderFor(1);
    for (let order = 0; order <= deepest; order++) {
      const offsets = [map.dataStart, map.dataEnd - 1, ...entries.map((e) => e.offset)];
      for (let i = 0; i < 200; i++)
        offsets.push(map.dataStart + Math.floor(((i * 7919) % 1000) * ((map.dataEnd - map.dataStart) / 1000)));
      for (const offset of offsets) {
        const d = cellOfOffset(order, map.dataStart, map.dataEnd, offset);
        const [start, end] = map.cellBytes(order, d);
        assert.ok(start <= offset && offset < end, `order ${order}: offset ${offset} in cell ${d} (${start}..${end})`);
        const [x, y] = pointOfOffset(order, map.dataStart, map.dataEnd, offset);
        assert.equal(hilbertIndex(order, x, y), d);
      }
    }
  });

  test("the ruler runs from git's first entry to the checksum, through round offsets, each label exact", () => {
    const marks = rulerMarks(map.dataStart, map.dataEnd);
    assert.equal(marks[0]!.offset, Math.min(...entries.map((e) => e.offset)));
    assert.equal(marks.at(-1)!.offset, packBytes - 20);
    assert.deepEqual([marks[0]!.kind, marks.at(-1)!.kind], ['start', 'end']);
    const ticks = marks.filter((m) => m.kind === 'tick');
    assert.ok(ticks.length >= 3 && ticks.length <= 6, JSON.stringify(marks));
    const step = marks[0]!.step;
    assert.equal(step & (step - 1), 0, 'a power of two');
    for (const tick of ticks) assert.equal(tick.offset % step, 0);
    assert.equal(markLabel(marks[0]!), 'start 12');
    assert.equal(markLabel(marks.at(-1)!), `end ${(packBytes - 20).toLocaleString('en-US')}`);
    assert.equal(offsetLabel(3 << 20, 1 << 20), '3 MiB');
    assert.equal(offsetLabel(1_363_968, 4096), '1,332 KiB');
    assert.equal(offsetLabel(1_363_968, 512), '1,363,968 B');
  });

  test('the size scale runs from 16 bytes to the largest entry git stored, in the map colours', () => {
    const largest = Math.max(...entries.map((e) => e.diskSize));
    assert.equal(map.largestOnDisk, largest);
    const stops = sizeScaleStops(largest);
    assert.deepEqual([stops[0]!.bytes, stops[0]!.at], [16, 0]);
    assert.deepEqual([stops.at(-1)!.bytes, stops.at(-1)!.at], [largest, 1]);
    for (const stop of stops) assert.deepEqual(stop.colour, diskSizeColour(stop.bytes, largest));
    for (let i = 1; i < stops.length; i++) assert.ok(stops[i]!.at > stops[i - 1]!.at);
  });
});
