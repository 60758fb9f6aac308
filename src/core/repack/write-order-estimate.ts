import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../format/pack-file.ts';
import { packLocality } from '../locality/locality.ts';
import type { PackLocality, PageCacheOptions } from '../documents/simulation-documents.ts';
import { MergedNameIndex } from '../model/merged-names.ts';
import { MERGED_INDEX_MIN_PACKS } from '../model/object-store.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { Repository } from '../model/repository.ts';
import type { EstimateAccuracy, LocalitySummary, WriteOrderEstimate } from '../documents/repack-preview-document.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';
import { DEFAULT_PAGE_CACHE } from './recording-layouts.ts';
import { readEffectiveConfig } from '../git/effective-config.ts';
import { runGitCapture } from '../git/run-git.ts';
import { NO_LAZY_FETCH_ENVIRONMENT, promisorRemotes } from './repack-arguments.ts';
import { computeWriteOrder } from './write-order.ts';

/** The estimated layout: the selection's ids in input order and where each would be written. */
export interface EstimatedLayout {
  hashSize: number;
  /** Raw ids, input order: entry i at bytes [i·hashSize, (i+1)·hashSize). */
  oids: Buffer;
  type: Uint8Array;
  /** Input index of each object's delta base, −1 for none. */
  base: Int32Array;
  tagged: Uint8Array;
  /** Input indices in estimated write order. */
  order: Uint32Array;
  /** Estimated offset and entry size of each input index. */
  offset: Float64Array;
  diskSize: Float64Array;
  /** Sorted view for lookups by id: input indices sorted by id. */
  byId: Uint32Array;
}

export interface EstimateOptions {
  repository: Repository;
  /** The repository's local packs (git's search order): where today's types, bases and sizes come from. */
  current: PackModel[];
  git?: string | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * For each id of `oids` (raw, `hashSize` bytes each), the first pack of `packs` (git's search order)
 * holding it and its object number there, −1 for none. Over many packs one merged table of their ids
 * answers each id with one search (MergedNameIndex, as ObjectStore's lookups), where trying every
 * pack in turn cost a search per pack per object (3,000 one-object packs: 3,000 searches an object).
 * `searches` counts binary searches made: the test checks the merged table's one per id.
 */
export function locateInPacks(
  packs: readonly PackModel[],
  oids: Buffer,
  hashSize: number,
): { where: Int32Array; objectIn: Int32Array; searches: number } {
  const count = Math.floor(oids.length / hashSize);
  const where = new Int32Array(count).fill(-1);
  const objectIn = new Int32Array(count).fill(-1);
  let searches = 0;
  if (packs.length >= MERGED_INDEX_MIN_PACKS) {
    const merged = MergedNameIndex.build(
      packs.map((model) => model.index),
      hashSize,
      () => true,
    );
    for (let i = 0; i < count; i++) {
      searches++;
      const hit = merged.find(oids.subarray(i * hashSize, (i + 1) * hashSize));
      if (hit === undefined) continue;
      where[i] = hit.holder;
      objectIn[i] = hit.object;
    }
    return { where, objectIn, searches };
  }
  for (let i = 0; i < count; i++) {
    for (let p = 0; p < packs.length; p++) {
      searches++;
      const n = packs[p]!.index.find(oids, i * hashSize);
      if (n < 0) continue;
      where[i] = p;
      objectIn[i] = n;
      break;
    }
  }
  return { where, objectIn, searches };
}

const TYPE_CODES: Record<string, number> = { commit: OBJ_COMMIT, tree: OBJ_TREE, blob: OBJ_BLOB, tag: OBJ_TAG };

export async function estimateWriteOrder(
  options: EstimateOptions,
): Promise<{ estimate: WriteOrderEstimate; layout: EstimatedLayout }> {
  const started = performance.now();
  const git = options.git ?? 'git';
  const { repository, current } = options;
  const hashSize = repository.hash.size;
  const input = await listInput(git, repository, options.signal);
  const { oids, tagged, count } = input;
  const { type, diskSize, where, objectIn, inputIndexOf, unpacked, catFileArgs } = await typesAndSizes(
    git,
    repository,
    current,
    input,
    options.signal,
  );
  // Today's delta bases, where the base is selected too (a base left out cannot be reused).
  const base = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    const p = where[i]!;
    if (p < 0) continue;
    const b = current[p]!.columns.base[objectIn[i]!]!;
    if (b >= 0) base[i] = inputIndexOf[p]![b]!;
  }
  const order = computeWriteOrder(count, type, base, tagged);
  const offset = new Float64Array(count);
  let at = 12;
  for (const i of order) {
    offset[i] = at;
    at += diskSize[i]!;
  }
  const { histogram, depthSum } = depthHistogram(depthsOf(order, base, count));
  const byId = Uint32Array.from({ length: count }, (_, i) => i).sort((a, b) =>
    oids.compare(oids, a * hashSize, (a + 1) * hashSize, b * hashSize, (b + 1) * hashSize),
  );
  const estimate: WriteOrderEstimate = {
    kind: 'estimate',
    basis: "git-internals §5 write order over rev-list's walk, today's deltas and entry sizes kept (no delta search)",
    objects: count,
    packBytes: at + hashSize,
    deltas: count - histogram[0]!,
    maxDepth: histogram.length - 1,
    meanDepth: count === 0 ? 0 : Math.round((depthSum / count) * 1000) / 1000,
    depthHistogram: histogram,
    families: histogram[0]!,
    unpackedObjects: unpacked.length,
    seconds: (performance.now() - started) / 1000,
    git: [
      [git, ...input.revListArgs],
      [git, ...input.showRefArgs],
      ...(unpacked.length > 0 ? [[git, ...catFileArgs]] : []),
    ],
  };
  return { estimate, layout: { hashSize, oids, type, base, tagged, order, offset, diskSize, byId } };
}

/** What pack-objects is given: rev-list's objects in its order (§5.1), and which of them a tag names. */
interface EstimateInput {
  revListArgs: string[];
  showRefArgs: string[];
  /** The environment git runs with (a partial clone's fetches nothing). */
  env: typeof NO_LAZY_FETCH_ENVIRONMENT | undefined;
  count: number;
  /** The ids in input order, raw, `hashSize` bytes each. */
  oids: Buffer;
  tagged: Uint8Array;
}

async function listInput(git: string, repository: Repository, signal: AbortSignal | undefined): Promise<EstimateInput> {
  const gitDir = `--git-dir=${repository.gitDir}`;
  const hashSize = repository.hash.size;
  const revListArgs = [gitDir, 'rev-list', '--objects', '--all', '--reflog', '--indexed-objects'];
  // In a partial clone the walk leaves out what pack-objects leaves out, and fetches nothing.
  const partialClone = promisorRemotes(await readEffectiveConfig(git, repository.gitDir, signal)).length > 0;
  if (partialClone) revListArgs.push('--exclude-promisor-objects');
  // Never a fetch, partial clone or not: a repository whose promisor remote is no longer named
  // still had git fetch the missing objects into it (the preview only reads).
  const env = NO_LAZY_FETCH_ENVIRONMENT;
  const showRefArgs = [gitDir, 'show-ref', '--tags', '-d'];
  const [listing, tagRefs] = await Promise.all([
    runGitCapture(git, revListArgs, { cwd: repository.gitDir, signal, env }),
    runGitCapture(git, showRefArgs, { cwd: repository.gitDir, signal, okStatuses: [1] }),
  ]);
  const tagTargets = new Set(
    tagRefs
      .toString('latin1')
      .split('\n')
      .map((line) => line.slice(0, hashSize * 2))
      .filter((hex) => hex.length === hashSize * 2),
  );

  // §5.1: input order = rev-list's order; one id per line, maybe followed by a path.
  const hexLength = hashSize * 2;
  const lines = listing
    .toString('latin1')
    .split('\n')
    .filter((line) => line.length >= hexLength);
  const count = lines.length;
  const oids = Buffer.alloc(count * hashSize);
  const tagged = new Uint8Array(count);
  lines.forEach((line, i) => {
    const hex = line.slice(0, hexLength);
    oids.write(hex, i * hashSize, hashSize, 'hex');
    if (tagTargets.has(hex)) tagged[i] = 1;
  });
  return { revListArgs, showRefArgs, env, count, oids, tagged };
}

/**
 * Each input object's type and size on disk: from the pack that holds it (where it is found, its
 * number there and, per pack, the input index of each object), else from `git cat-file` (unpacked).
 */
async function typesAndSizes(
  git: string,
  repository: Repository,
  current: PackModel[],
  input: EstimateInput,
  signal: AbortSignal | undefined,
): Promise<{
  type: Uint8Array;
  diskSize: Float64Array;
  where: Int32Array;
  objectIn: Int32Array;
  inputIndexOf: Int32Array[];
  unpacked: number[];
  catFileArgs: string[];
}> {
  const { count, oids, env } = input;
  const hashSize = repository.hash.size;
  const type = new Uint8Array(count);
  const diskSize = new Float64Array(count);
  const { where, objectIn } = locateInPacks(current, oids, hashSize);
  const inputIndexOf = current.map((model) => new Int32Array(model.count).fill(-1));
  const unpacked: number[] = [];
  for (let i = 0; i < count; i++) {
    const p = where[i]!;
    if (p < 0) {
      unpacked.push(i);
      continue;
    }
    const n = objectIn[i]!;
    inputIndexOf[p]![n] = i;
    type[i] = current[p]!.columns.type[n]!;
    diskSize[i] = current[p]!.columns.diskSize.get(n);
  }
  const catFileArgs = [
    `--git-dir=${repository.gitDir}`,
    'cat-file',
    '--batch-check=%(objectname) %(objecttype) %(objectsize:disk)',
  ];
  if (unpacked.length > 0) {
    const batch = unpacked.map((i) => oids.toString('hex', i * hashSize, (i + 1) * hashSize)).join('\n') + '\n';
    const answer = (await runGitCapture(git, catFileArgs, { cwd: repository.gitDir, input: batch, signal, env }))
      .toString('latin1')
      .split('\n');
    unpacked.forEach((i, k) => {
      const [, typeName, size] = (answer[k] ?? '').split(' ');
      type[i] = TYPE_CODES[typeName ?? ''] ?? OBJ_BLOB;
      diskSize[i] = Number(size ?? 0);
    });
  }
  return { type, diskSize, where, objectIn, inputIndexOf, unpacked, catFileArgs };
}

/** How many objects sit at each delta depth (0: not a delta), and the sum of the depths. */
function depthHistogram(depths: Uint32Array): { histogram: number[]; depthSum: number } {
  const histogram: number[] = [0];
  let depthSum = 0;
  for (let i = 0; i < depths.length; i++) {
    const d = depths[i]!;
    while (histogram.length <= d) histogram.push(0);
    histogram[d]!++;
    depthSum += d;
  }
  return { histogram, depthSum };
}

/** Depth of each object in a forest given in an order where bases come first (the write order). */
function depthsOf(order: Uint32Array, base: Int32Array, count: number): Uint32Array {
  const depth = new Uint32Array(count);
  for (const i of order) {
    const b = base[i]!;
    depth[i] = b < 0 ? 0 : depth[b]! + 1;
  }
  return depth;
}

/** Input index of a raw id in the estimated layout, or −1. */
export function findInLayout(layout: EstimatedLayout, bytes: Uint8Array, at: number): number {
  const { oids, byId, hashSize } = layout;
  let low = 0;
  let high = byId.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const i = byId[mid]!;
    const cmp = Buffer.compare(oids.subarray(i * hashSize, (i + 1) * hashSize), bytes.subarray(at, at + hashSize));
    if (cmp === 0) return i;
    if (cmp < 0) low = mid + 1;
    else high = mid;
  }
  return -1;
}

/** The locality of a recording's reads replayed against the estimated layout (reads of objects it lacks are left out). */
export function estimateRecordingLocality(
  loaded: LoadedRecording,
  layout: EstimatedLayout,
  pageCache: PageCacheOptions = DEFAULT_PAGE_CACHE,
): PackLocality {
  const offsets: number[] = [];
  const entryBytes: number[] = [];
  const { resolved, range } = loaded;
  for (let r = range.start; r < range.end; r++) {
    const model = resolved.packs[resolved.readPack[r]!]!.model;
    const object = resolved.readObject[r]!;
    const i = findInLayout(layout, model.index.bytes, model.index.namePosition(object));
    if (i < 0) continue;
    offsets.push(layout.offset[i]!);
    entryBytes.push(layout.diskSize[i]!);
  }
  return packLocality(
    { pack: '(estimated layout)', offsets: Float64Array.from(offsets), entryBytes: Float64Array.from(entryBytes) },
    pageCache,
  );
}

export function localitySummary(locality: PackLocality | undefined): LocalitySummary {
  const at = (p: number): number => locality?.percentiles.find((x) => x.p === p)?.bytes ?? 0;
  return { shortSeekShare: round3(locality?.shortSeekShare ?? 0), medianSeek: at(50), p90Seek: at(90) };
}

export function compareEstimateWithPreview(
  estimate: WriteOrderEstimate,
  layout: EstimatedLayout,
  preview: PackModel,
  recordings: { file: string; estimate: PackLocality; preview: PackLocality | undefined }[] = [],
): EstimateAccuracy {
  const count = layout.type.length;
  // Real write position of each input index (its rank by offset in the preview), −1 when absent.
  const previewObject = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) previewObject[i] = preview.index.find(layout.oids, i * layout.hashSize);
  const previewRank = new Float64Array(preview.count);
  preview.columns.byOffset.forEach((n, rank) => (previewRank[n] = rank));
  const realPosition = (i: number): number => (previewObject[i]! < 0 ? -1 : previewRank[previewObject[i]!]!);

  // The model with the preview's deltas: bases mapped from preview object numbers to input indices.
  const inputOfPreview = new Int32Array(preview.count).fill(-1);
  for (let i = 0; i < count; i++) if (previewObject[i]! >= 0) inputOfPreview[previewObject[i]!] = i;
  const realBase = new Int32Array(count).fill(-1);
  for (let i = 0; i < count; i++) {
    const n = previewObject[i]!;
    if (n < 0) continue;
    const b = preview.columns.base[n]!;
    if (b >= 0) realBase[i] = inputOfPreview[b]!;
  }
  const modelOrder = computeWriteOrder(count, layout.type, realBase, layout.tagged);
  const previewSummary = { deltas: 0, maxDepth: 0, depthSum: 0 };
  for (let n = 0; n < preview.count; n++) {
    const d = preview.columns.depth[n]!;
    if (d > 0) previewSummary.deltas++;
    previewSummary.maxDepth = Math.max(previewSummary.maxDepth, d);
    previewSummary.depthSum += d;
  }
  return {
    objects: { estimate: estimate.objects, preview: preview.count },
    packBytes: {
      estimate: estimate.packBytes,
      preview: preview.packSize,
      relativeError: preview.packSize === 0 ? 0 : round3((estimate.packBytes - preview.packSize) / preview.packSize),
    },
    deltas: { estimate: estimate.deltas, preview: previewSummary.deltas },
    maxDepth: { estimate: estimate.maxDepth, preview: previewSummary.maxDepth },
    meanDepth: {
      estimate: estimate.meanDepth,
      preview: preview.count === 0 ? 0 : round3(previewSummary.depthSum / preview.count),
    },
    orderRankCorrelation: round3(rankCorrelation(layout.order, realPosition)),
    objectsInPlace: round3(inPlace(layout.order, realPosition)),
    modelWithRealDeltas: {
      objectsInPlace: round3(inPlace(modelOrder, realPosition)),
      orderRankCorrelation: round3(rankCorrelation(modelOrder, realPosition)),
    },
    recordings: recordings.map((r) => ({
      file: r.file,
      estimate: localitySummary(r.estimate),
      preview: localitySummary(r.preview),
    })),
  };
}

/** Spearman's rho between the order given and the real positions, over objects present in both (ranks recomputed among them). */
function rankCorrelation(order: Uint32Array, realPosition: (i: number) => number): number {
  const present: number[] = [];
  for (const i of order) if (realPosition(i) >= 0) present.push(i);
  const n = present.length;
  if (n < 2) return 1;
  const byReal = [...present].sort((a, b) => realPosition(a) - realPosition(b));
  const realRank = new Map<number, number>();
  byReal.forEach((i, rank) => realRank.set(i, rank));
  let sum = 0;
  present.forEach((i, rank) => {
    const d = rank - realRank.get(i)!;
    sum += d * d;
  });
  return 1 - (6 * sum) / (n * (n * n - 1));
}

function inPlace(order: Uint32Array, realPosition: (i: number) => number): number {
  if (order.length === 0) return 1;
  let same = 0;
  order.forEach((i, position) => {
    if (realPosition(i) === position) same++;
  });
  return same / order.length;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
