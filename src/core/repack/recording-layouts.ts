import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { packLocality } from '../locality/locality.ts';
import type { PageCacheOptions } from '../documents/simulation-documents.ts';
import type { PackModel } from '../model/pack-model.ts';
import { parsePolicy } from '../sim/policy-registry.ts';
import { compactForReads, simObjectsFrom } from '../sim/sim-objects.ts';
import { simulateSegments } from '../sim/simulate.ts';
import type { LayoutReplay } from '../documents/repack-preview-document.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';

export const DEFAULT_PREVIEW_LIMITS = [16 * 1024 * 1024, GIT_DEFAULT_LIMIT];
export const DEFAULT_PAGE_CACHE: PageCacheOptions = { cacheMiB: 256, readaheadKiB: 128 };

/** Objects, offsets and entry sizes of one layout, enough to replay reads against it. */
export interface ReplayLayout {
  /** Object number in `models[pack]` of each read, −1 when the layout lacks the object. */
  packOf: Int32Array;
  objectOf: Int32Array;
  models: PackModel[];
}

export interface RecordingOnLayouts {
  /** Reads compared: the recording's reads whose object is in the preview too. */
  reads: number;
  /** Reads left out on both sides: the preview does not hold their object (it was unreachable). */
  readsNotInPreview: number;
  current: LayoutReplay;
  preview: LayoutReplay;
}

export interface RecordingReplayOptions {
  limits?: number[] | undefined;
  pageCache?: PageCacheOptions | undefined;
}

/**
 * A recording's reads replayed against the current packs and against the preview pack: each read is
 * mapped by object id to the preview's object (and so its offset, its delta chain and its entry
 * size there), then the `git` policy is simulated at each limit and the seek locality measured on
 * both layouts, over the same reads. Each git process of the recording starts with an empty cache.
 */
export function replayRecordingOnLayouts(
  loaded: LoadedRecording,
  preview: PackModel,
  options: RecordingReplayOptions = {},
): RecordingOnLayouts {
  const limits = options.limits ?? DEFAULT_PREVIEW_LIMITS;
  const pageCache = options.pageCache ?? DEFAULT_PAGE_CACHE;
  const { resolved, range } = loaded;
  const models = resolved.packs.map((p) => p.model);
  const total = range.end - range.start;
  const currentPack = new Int32Array(total);
  const currentObject = new Int32Array(total);
  const previewObject = new Int32Array(total);
  const keptBefore = new Uint32Array(total + 1);
  let kept = 0;
  for (let r = 0; r < total; r++) {
    keptBefore[r] = kept;
    const i = range.start + r;
    const pack = resolved.readPack[i]!;
    const object = resolved.readObject[i]!;
    const model = models[pack]!;
    const inPreview = preview.index.find(model.index.bytes, model.index.namePosition(object));
    if (inPreview < 0) continue;
    currentPack[kept] = pack;
    currentObject[kept] = object;
    previewObject[kept] = inPreview;
    kept++;
  }
  keptBefore[total] = kept;
  const segmentStarts = [...new Set(loaded.segments.map((s) => keptBefore[Math.min(s.firstRead, total)]!))].sort(
    (a, b) => a - b,
  );
  const current: ReplayLayout = {
    packOf: currentPack.subarray(0, kept),
    objectOf: currentObject.subarray(0, kept),
    models,
  };
  const previewLayout: ReplayLayout = {
    packOf: new Int32Array(kept),
    objectOf: previewObject.subarray(0, kept),
    models: [preview],
  };
  return {
    reads: kept,
    readsNotInPreview: total - kept,
    current: replayOnLayout(current, segmentStarts, limits, pageCache),
    preview: replayOnLayout(previewLayout, segmentStarts, limits, pageCache),
  };
}

export function replayOnLayout(
  layout: ReplayLayout,
  segmentStarts: number[],
  limits: number[],
  pageCache: PageCacheOptions,
): LayoutReplay {
  const objects = simObjectsFrom(layout.models);
  const global = new Int32Array(layout.objectOf.length);
  for (let r = 0; r < global.length; r++) global[r] = objects.packBase[layout.packOf[r]!]! + layout.objectOf[r]!;
  const compact = compactForReads(objects, global);
  const runner = parsePolicy('git');
  const inflations = limits.map((limit) => {
    const result = simulateSegments(
      runner,
      compact.objects,
      compact.reads,
      segmentStarts.length > 0 ? segmentStarts : [0],
      limit,
    );
    return {
      limit,
      reads: result.reads,
      logged: result.logged,
      inflations: result.inflations,
      deltaApplications: result.deltaApplications,
      inflatedBytes: result.inflatedBytes,
      appliedBytes: result.appliedBytes ?? 0,
      peakCacheBytes: result.peakCacheBytes,
      readSeconds: null,
    };
  });
  const locality = layout.models
    .map((model, k) => {
      const offsets: number[] = [];
      const entryBytes: number[] = [];
      for (let r = 0; r < layout.objectOf.length; r++) {
        if (layout.packOf[r] !== k) continue;
        const n = layout.objectOf[r]!;
        offsets.push(model.columns.offset[n]!);
        entryBytes.push(model.columns.diskSize.get(n));
      }
      return packLocality(
        { pack: model.files.pack, offsets: Float64Array.from(offsets), entryBytes: Float64Array.from(entryBytes) },
        pageCache,
      );
    })
    .filter((l) => l.reads > 0);
  return { inflations, locality };
}

/** The current layout's side alone (an estimate-only run has no preview pack): every kept read. */
export function replayRecordingOnCurrent(
  loaded: LoadedRecording,
  options: RecordingReplayOptions = {},
): { reads: number; current: LayoutReplay } {
  const { resolved, range } = loaded;
  const layout: ReplayLayout = {
    packOf: Int32Array.from(resolved.readPack.subarray(range.start, range.end)),
    objectOf: Int32Array.from(resolved.readObject.subarray(range.start, range.end)),
    models: resolved.packs.map((p) => p.model),
  };
  const starts = loaded.segments.map((s) => s.firstRead).sort((a, b) => a - b);
  return {
    reads: layout.objectOf.length,
    current: replayOnLayout(
      layout,
      starts,
      options.limits ?? DEFAULT_PREVIEW_LIMITS,
      options.pageCache ?? DEFAULT_PAGE_CACHE,
    ),
  };
}
