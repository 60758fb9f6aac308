/**
 * Packs whose delta structure the test chooses: blobs, and OFS_DELTA or REF_DELTA entries on a
 * chosen base with chosen contents (git-internals §6.1). git's own delta search would pick its own
 * bases; index-pack accepts whatever a pack says, so these packs let tests pin index-pack's second
 * pass (§2) on exact shapes. Written independently of src/core.
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { encodeDeltaSize, encodeEntryHeader, encodeOfsDistance } from './pack-surgery.ts';

const OBJ_BLOB = 3;
const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

export type ChosenEntry =
  | { content: Buffer }
  /** A delta producing `content` from entry `base` (an index into the entry list). */
  | { content: Buffer; base: number; ref?: boolean };

export function blobId(content: Buffer): Buffer {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest();
}

/** A delta from `base` to `result`: copy the common prefix, insert the rest (§6.1 ops). */
export function prefixDelta(base: Buffer, result: Buffer): Buffer {
  let common = 0;
  const most = Math.min(base.length, result.length, 0xffffff);
  while (common < most && base[common] === result[common]) common++;
  const ops: number[] = [...encodeDeltaSize(base.length), ...encodeDeltaSize(result.length)];
  if (common > 0) ops.push(0x80 | 0x10 | 0x20 | 0x40, common & 0xff, (common >> 8) & 0xff, (common >> 16) & 0xff);
  for (let at = common; at < result.length; at += 127) {
    const piece = result.subarray(at, Math.min(result.length, at + 127));
    ops.push(piece.length, ...piece);
  }
  return Buffer.from(ops);
}

/** The pack bytes (header, entries, SHA-1 trailer). OFS bases must come earlier; REF bases anywhere. */
export function writeChosenPack(entries: ChosenEntry[]): Buffer {
  const header = Buffer.alloc(12);
  header.write('PACK', 0, 'latin1');
  header.writeUInt32BE(2, 4);
  header.writeUInt32BE(entries.length, 8);
  const parts: Buffer[] = [header];
  const offsets: number[] = [];
  let position = header.length;
  entries.forEach((entry, k) => {
    offsets.push(position);
    let bytes: Buffer;
    if (!('base' in entry)) {
      bytes = Buffer.concat([encodeEntryHeader(OBJ_BLOB, entry.content.length), deflateSync(entry.content)]);
    } else {
      const base = entries[entry.base];
      if (!base) throw new Error(`entry ${k}: no entry ${entry.base} to be its base`);
      const delta = prefixDelta(base.content, entry.content);
      let reference: Buffer;
      if (entry.ref) {
        reference = blobId(base.content);
      } else {
        if (entry.base >= k) throw new Error(`entry ${k}: an OFS_DELTA base must come earlier in the pack`);
        reference = encodeOfsDistance(position - offsets[entry.base]!);
      }
      bytes = Buffer.concat([
        encodeEntryHeader(entry.ref ? OBJ_REF_DELTA : OBJ_OFS_DELTA, delta.length),
        reference,
        deflateSync(delta),
      ]);
    }
    parts.push(bytes);
    position += bytes.length;
  });
  const body = Buffer.concat(parts);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}
