import * as path from 'node:path';
import type { ObjectStore, PackLocation } from '../model/object-store.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { TraceLog, TraceSegment } from './trace-log.ts';

/** A trace's reads mapped onto the packs and objects of a repository. */
export interface ResolvedReads {
  /** The packs the reads touch, in first-touch order; `readPack` indexes this. */
  packs: { location: PackLocation; model: PackModel; tracePath: string }[];
  readPack: Uint32Array;
  readObject: Uint32Array;
  /** The offset of each read, as logged (pack offsets; for locality). */
  readOffset: Float64Array;
  segments: TraceSegment[];
  /** Reads left out: their pack is not in the repository (or was rewritten since recording). */
  unknownPacks: { path: string; reads: number; reason: string }[];
  /** Reads left out: the offset is not the start of an object in its pack. */
  badOffsets: { path: string; offset: number; line?: number }[];
  /** Index into the log's reads of each kept read (segments are translated to kept reads). */
}

/**
 * Maps each trace line's pack path to a pack of `store` by file name (git prints the path relative
 * to the work tree's top, or absolute), checking the checksum the recording stored when there is
 * one, and each offset to its object. Reads that cannot be mapped are reported, not fatal.
 */
export function resolveReads(log: TraceLog, store: ObjectStore): ResolvedReads {
  const recordedChecksums = new Map<string, string>();
  for (const pack of log.metadata?.packs ?? []) recordedChecksums.set(path.basename(pack.path), pack.checksum);

  const packs: ResolvedReads['packs'] = [];
  const tracePackToIndex: number[] = [];
  const unknownReasons = new Map<number, string>();
  for (const [traceId, tracePath] of log.packPaths.entries()) {
    const name = path.basename(tracePath);
    const location = store.packs.find((p) => path.basename(p.files.pack) === name);
    if (!location) {
      tracePackToIndex[traceId] = -1;
      unknownReasons.set(traceId, 'no pack of that name in the repository (repacked since?)');
      continue;
    }
    const model = store.model(location);
    const recorded = recordedChecksums.get(name);
    if (recorded !== undefined && recorded !== model.checksumHex) {
      tracePackToIndex[traceId] = -1;
      unknownReasons.set(
        traceId,
        `the pack's checksum changed since the recording (${recorded} then, ${model.checksumHex} now)`,
      );
      continue;
    }
    tracePackToIndex[traceId] = packs.length;
    packs.push({ location, model, tracePath });
  }

  const total = log.readPack.length;
  const readPack = new Uint32Array(total);
  const readObject = new Uint32Array(total);
  const readOffset = new Float64Array(total);
  const unknownCounts = new Map<number, number>();
  const badOffsets: ResolvedReads['badOffsets'] = [];
  // keptBefore[i] = reads kept among the first i, to translate segment bounds.
  const keptBefore = new Uint32Array(total + 1);
  let kept = 0;
  for (let i = 0; i < total; i++) {
    keptBefore[i] = kept;
    const traceId = log.readPack[i]!;
    const packIndex = tracePackToIndex[traceId]!;
    if (packIndex < 0) {
      unknownCounts.set(traceId, (unknownCounts.get(traceId) ?? 0) + 1);
      continue;
    }
    const offset = log.readOffset[i]!;
    const object = packs[packIndex]!.model.objectAt(offset);
    if (object < 0) {
      if (badOffsets.length < 100) badOffsets.push({ path: log.packPaths[traceId]!, offset });
      continue;
    }
    readPack[kept] = packIndex;
    readObject[kept] = object;
    readOffset[kept] = offset;
    kept++;
  }
  keptBefore[total] = kept;
  const segments = log.segments.map((s) => ({
    ...s,
    firstRead: keptBefore[s.firstRead]!,
    endRead: keptBefore[s.endRead]!,
  }));
  return {
    packs,
    readPack: readPack.slice(0, kept),
    readObject: readObject.slice(0, kept),
    readOffset: readOffset.slice(0, kept),
    segments,
    unknownPacks: [...unknownCounts].map(([traceId, reads]) => ({
      path: log.packPaths[traceId]!,
      reads,
      reason: unknownReasons.get(traceId)!,
    })),
    badOffsets,
  };
}
