import { inflateDeclared } from '../format/inflate-entry.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { constants as bufferConstants } from 'node:buffer';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { fail } from '../errors.ts';
import { applyDelta, DeltaError } from '../format/delta.ts';
import { openRegularFile } from '../format/checked-file.ts';
import { ObjectHeader, readObjectHeader, TYPE_NAMES } from '../format/pack-file.ts';
import type { FullVerifyTask, HashMismatch } from './full-verify-protocol.ts';

/** Enough to show a whole damaged family; beyond this the listing would not be git's anyway. */
const MAX_REPORTED_MISMATCHES = 100_000;

/** Objects larger than this cannot be held in one Buffer; git streams them, PackScope reports them. */
const MAX_OBJECT_BYTES = Math.min(bufferConstants.MAX_LENGTH, 2 ** 32);

/**
 * Bases one resolver keeps for children still to come: git's index-pack default per thread
 * (core.deltaBaseCacheLimit, 96 MiB; git-internals §2.2). Without a bound, a pack of a few KiB
 * (one long chain of deltas that each copy megabytes) held gigabytes.
 */
const MAX_HELD_BASE_BYTES = GIT_DEFAULT_LIMIT;

/**
 * Resolves whole delta families the way `git index-pack --verify` does: inflate each root, apply
 * each delta to its base, hash every result and compare it with the idx. Only bases on the current
 * path of the depth-first walk that still have children to make are held, within a budget.
 */
export class FamilyResolver {
  private readonly fd: number;
  private readonly header = new ObjectHeader();
  inflatedBytes = 0;
  objects = 0;
  /** Most bytes of bases held at once (bounded by MAX_HELD_BASE_BYTES plus the newest base). */
  peakHeldBytes = 0;
  /** Objects whose rebuilt id differs from the idx's name for them. */
  readonly mismatches: HashMismatch[] = [];

  constructor(private readonly task: FullVerifyTask) {
    // The pack was there for the model build; it may be gone by now (a concurrent repack), or
    // something other than a regular file may be in its place.
    this.fd = openRegularFile(task.packPath).fd;
  }

  close(): void {
    fs.closeSync(this.fd);
  }

  resolveFamily(root: number): void {
    const { childStart, childList } = this.task;
    const rootData = this.inflateEntry(root);
    this.checkHash(root, rootData);
    // The path from the root to the current base. A base is dropped once its last child is made,
    // or, deepest in the stack first, when the bases held pass MAX_HELD_BASE_BYTES; rebuildBase
    // makes a dropped one again if a child still needs it (git-internals §2.3, prune_base_data).
    const stackObjects: number[] = [root];
    const stackData: (Buffer | undefined)[] = [rootData];
    const stackNext: number[] = [childStart[root]!];
    let held = rootData.length;
    while (stackObjects.length > 0) {
      const top = stackObjects.length - 1;
      const parent = stackObjects[top]!;
      const next = stackNext[top]!;
      const end = childStart[parent + 1]!;
      if (next >= end) {
        held -= stackData[top]?.length ?? 0;
        stackObjects.pop();
        stackData.pop();
        stackNext.pop();
        continue;
      }
      stackNext[top] = next + 1;
      const child = childList[next]!;
      let base = stackData[top];
      if (base === undefined) {
        base = this.rebuildBase(stackObjects, stackData, top);
        stackData[top] = base;
        held += base.length;
        if (held > this.peakHeldBytes) this.peakHeldBytes = held;
      }
      const result = this.applyDeltaOf(child, base);
      if (next + 1 >= end) {
        held -= base.length;
        stackData[top] = undefined;
      }
      this.checkHash(child, result);
      if (childStart[child + 1]! > childStart[child]!) {
        stackObjects.push(child);
        stackData.push(result);
        stackNext.push(childStart[child]!);
        held += result.length;
        if (held > this.peakHeldBytes) this.peakHeldBytes = held;
        for (let level = 0; held > MAX_HELD_BASE_BYTES && level < top + 1; level++) {
          held -= stackData[level]?.length ?? 0;
          stackData[level] = undefined;
        }
      }
    }
  }

  /** Makes the base at `level` of the path again, from the nearest base still held below it or the root. */
  private rebuildBase(objects: number[], data: (Buffer | undefined)[], level: number): Buffer {
    let from = level - 1;
    while (from >= 0 && data[from] === undefined) from--;
    let current = from >= 0 ? data[from]! : this.inflateEntry(objects[0]!);
    for (let k = Math.max(from, 0) + 1; k <= level; k++) current = this.applyDeltaOf(objects[k]!, current);
    return current;
  }

  private applyDeltaOf(n: number, base: Buffer): Buffer {
    const delta = this.inflateEntry(n);
    try {
      return applyDelta(base, delta, MAX_OBJECT_BYTES);
    } catch (error) {
      if (error instanceof DeltaError)
        throw fail(
          'bad-delta',
          this.task.packPath,
          this.task.offset[n],
          `delta does not apply to its base: ${error.message} (at delta byte ${error.at})`,
        );
      throw error;
    }
  }

  /** Inflates one entry's payload, checking its size and that the zlib stream fills the entry exactly. */
  private inflateEntry(n: number): Buffer {
    const { offset: offsets, diskSize, size, packPath, hashSize } = this.task;
    const offset = offsets[n]!;
    const entryBytes = diskSize[n]!;
    const declared = size[n]!;
    if (entryBytes > MAX_OBJECT_BYTES || declared > MAX_OBJECT_BYTES) {
      throw fail(
        'too-large',
        packPath,
        offset,
        `object of ${declared} bytes (${entryBytes} in the pack) is too large to verify in memory`,
      );
    }
    const entry = Buffer.allocUnsafe(entryBytes);
    let done = 0;
    while (done < entryBytes) {
      const got = fs.readSync(this.fd, entry, done, entryBytes - done, offset + done);
      if (got === 0) throw fail('changed', packPath, offset + done, 'pack became shorter while it was being verified');
      done += got;
    }
    readObjectHeader(packPath, entry, 0, entryBytes, offset, hashSize, this.header);
    const data = inflateDeclared(entry.subarray(this.header.headerLength), declared, packPath, offset, 'object');
    this.inflatedBytes += declared;
    return data;
  }

  private checkHash(n: number, data: Buffer): void {
    const { names, hashSize, hashName, type, offset } = this.task;
    const digest = createHash(hashName).update(`${TYPE_NAMES[type[n]!]} ${data.length}\0`).update(data).digest();
    const expected = names.subarray(n * hashSize, (n + 1) * hashSize);
    // git's index-pack lists the ids it computed, then finds the idx differs: keep going, so
    // the listing can show every rebuilt id (objects built on a changed base change too).
    if (!digest.equals(expected) && this.mismatches.length < MAX_REPORTED_MISMATCHES) {
      this.mismatches.push({ object: n, oid: digest.toString('hex'), offset: offset[n]! });
    }
    this.objects++;
  }
}
