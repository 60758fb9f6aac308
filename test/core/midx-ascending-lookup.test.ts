/**
 * MultiPackIndex.lookup tries the entry after the last one found before searching, when the
 * layer's ids are in order and its fan-out agrees (midx.ts): on git's own multi-pack-index, and on
 * copies with two ids swapped or a fan-out entry changed, lookups in ascending order, in descending
 * order and of ids it does not hold answer as a search alone does (a fresh index, one lookup each).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { MultiPackIndex, parseMidxLayer } from '../../src/core/format/midx.ts';
import { buildMidxPackDir } from '../support/fixture-packs.ts';
import { tempDir } from '../support/git.ts';

function chunkStart(bytes: Buffer, id: string): number {
  for (let i = 0; i < bytes[6]!; i++)
    if (bytes.toString('latin1', 12 + i * 12, 16 + i * 12) === id) return Number(bytes.readBigUInt64BE(16 + i * 12));
  throw new Error(`no ${id} chunk`);
}

test('ascending lookups on a MIDX in order, with two ids swapped, and with a fan-out entry changed', (t) => {
  const root = tempDir(t, 'packscope-midx-ascending-');
  const { packDir, oids } = buildMidxPackDir(root);
  const file = path.join(packDir, 'multi-pack-index');
  const original = fs.readFileSync(file);
  const names = chunkStart(original, 'OIDL');
  const fanout = chunkStart(original, 'OIDF');
  const swapped = Buffer.from(original);
  original.copy(swapped, names + 10 * 20, names + 11 * 20, names + 12 * 20);
  original.copy(swapped, names + 11 * 20, names + 10 * 20, names + 11 * 20);
  const fanoutChanged = Buffer.from(original);
  const entry = fanout + original[names + 40 * 20]! * 4;
  fanoutChanged.writeUInt32BE(original.readUInt32BE(entry) - 1, entry);

  const sorted = [...oids].sort(Buffer.compare);
  const absent = sorted.map((oid) => {
    const other = Buffer.from(oid);
    other[19] = other[19]! ^ 1;
    return other;
  });
  for (const [label, bytes] of [
    ['in order', original],
    ['two ids swapped', swapped],
    ['a fan-out entry changed', fanoutChanged],
  ] as const) {
    const searched = (oid: Buffer): unknown => new MultiPackIndex([parseMidxLayer(file, bytes, 0)]).lookup(oid);
    const midx = new MultiPackIndex([parseMidxLayer(file, bytes, 0)]);
    for (const order of [sorted, [...sorted].reverse(), absent, sorted]) {
      for (const oid of order) assert.deepEqual(midx.lookup(oid), searched(oid), `${label}: ${oid.toString('hex')}`);
    }
  }
  // The copies do differ from the original where it matters.
  const found = (bytes: Buffer): number =>
    sorted.filter((oid) => new MultiPackIndex([parseMidxLayer(file, bytes, 0)]).lookup(oid)).length;
  assert.equal(found(original), sorted.length);
  assert.ok(found(swapped) < sorted.length || found(fanoutChanged) < sorted.length);
});
