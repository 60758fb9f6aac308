import type { HashAlgorithm } from '../format/hash-algorithm.ts';
import type { PackIndex } from '../format/idx.ts';
import { isDeltaType, OBJ_OFS_DELTA, OBJ_REF_DELTA, TYPE_NAMES } from '../format/pack-file.ts';
import type { PackColumns, RankingHead, StoredDerivedColumns } from './pack-columns.ts';

export interface PackFiles {
  pack: string;
  idx: string;
  rev?: string | undefined;
}

/** What PackModel derives from `base` on demand, computed eagerly where a thread can afford it. */
export interface DerivedColumns {
  childStart: Uint32Array;
  childList: Uint32Array;
  roots: Uint32Array;
  familySizes: Uint32Array;
  offsetsInPackOrder: Float64Array;
}

export interface ObjectCounts {
  byType: Record<string, number>;
  ofsDeltas: number;
  refDeltas: number;
}

/** What a pack's summary shows, over every object (PackModel.summaryFacts). */
export interface SummaryFacts {
  counts: ObjectCounts;
  depthHistogram: number[];
  byteTotals: { inflated: number; onDisk: number };
}

/** One pass over the type, depth and size columns: counts in typed arrays, not keyed objects. */
function computeSummaryFacts(columns: PackColumns, count: number): SummaryFacts {
  const { type, inPackType, depth, resultSize, diskSize } = columns;
  const perType = new Float64Array(8);
  const perStoredType = new Float64Array(8);
  let maxDepth = 0;
  for (let n = 0; n < count; n++) {
    perType[type[n]! & 7]!++;
    perStoredType[inPackType[n]! & 7]!++;
    if (depth[n]! > maxDepth) maxDepth = depth[n]!;
  }
  const histogram = new Float64Array(maxDepth + 1);
  for (let n = 0; n < count; n++) histogram[depth[n]!]!++;
  const sum = (column: PackColumns['resultSize']): number => {
    const { low, overflow } = column;
    let total = 0;
    for (let n = 0; n < count; n++) total += low[n]!;
    // A value of 0xffffffff stands for a size kept in the overflow map.
    for (const [n, value] of overflow) total += value - low[n]!;
    return total;
  };
  const byType: Record<string, number> = { commit: 0, tree: 0, blob: 0, tag: 0 };
  for (let t = 0; t < 8; t++) if (perType[t]! > 0) byType[TYPE_NAMES[t]!]! += perType[t]!;
  return {
    counts: { byType, ofsDeltas: perStoredType[OBJ_OFS_DELTA]!, refDeltas: perStoredType[OBJ_REF_DELTA]! },
    depthHistogram: [...histogram],
    byteTotals: { inflated: sum(resultSize), onDisk: sum(diskSize) },
  };
}

/** Where a model's derived columns came from: computed from `base`, or a sealed model file's. */
export type DerivedSource = 'computed' | 'stored';

/**
 * One pack's model: columns built once, everything else derived on demand from `base` and cached.
 * Never one JavaScript object per pack entry.
 */
export class PackModel {
  private childIndex: { start: Uint32Array; list: Uint32Array } | undefined;
  private rootColumn: Uint32Array | undefined;
  private familySizes: Uint32Array | undefined;
  private offsetsInPackOrder: Float64Array | undefined;
  private derivedFrom: DerivedSource = 'computed';
  /** A model file's derived columns, read (and their seals checked) when one is first needed. */
  private pendingStoredDerived: (() => StoredDerivedColumns) | undefined;
  private summary: SummaryFacts | undefined;
  /** Heads of rankings a model file kept (rankings.ts reads them before scanning the columns). */
  private rankingHeads = new Map<string, RankingHead>();

  /** The pack's idx, names only (PackIndex.namesOnly): the CRC32 and offset tables are not kept. */
  readonly index: PackIndex;

  constructor(
    readonly files: PackFiles,
    index: PackIndex,
    readonly hash: HashAlgorithm,
    readonly packVersion: number,
    readonly packSize: number,
    readonly columns: PackColumns,
  ) {
    this.index = index.namesOnly();
  }

  get count(): number {
    return this.index.count;
  }

  /**
   * Every derived column, computed now if needed: a model worker computes them so that the thread
   * answering hovers does not (half a second on a 300k-object pack).
   */
  derivedColumns(): DerivedColumns {
    const children = (this.childIndex ??= this.buildChildIndex());
    this.rootColumn ??= this.buildRoots();
    this.familySizes ??= this.buildFamilySizes();
    this.offsetsInPackOrder ??= this.buildOffsetsInPackOrder();
    return {
      childStart: children.start,
      childList: children.list,
      roots: this.rootColumn,
      familySizes: this.familySizes,
      offsetsInPackOrder: this.offsetsInPackOrder,
    };
  }

  /**
   * Takes a sealed model file's derived columns as they are: the seal says PackScope wrote them
   * from a build of this pack (docs/security.md, "The model cache's threat model"). Only their
   * lengths are checked, so that no view reaches past what the model has.
   */
  adoptStoredDerived(stored: StoredDerivedColumns): void {
    const n = this.count;
    if (
      stored.childStart.length !== n + 1 ||
      stored.roots.length !== n ||
      stored.familySizes.length !== n ||
      stored.childList.length > n
    )
      throw new Error('stored derived columns do not fit this model');
    this.childIndex = { start: stored.childStart, list: stored.childList };
    this.rootColumn = stored.roots;
    this.familySizes = stored.familySizes;
    this.derivedFrom = 'stored';
  }

  /** As adoptStoredDerived, read by `load` when a derived column is first needed (model-store.ts). */
  adoptStoredDerivedLazily(load: () => StoredDerivedColumns): void {
    this.pendingStoredDerived = load;
    this.derivedFrom = 'stored';
  }

  /** Whether the stored derived columns were taken now; their builders ask first. */
  private takeStoredDerived(): boolean {
    const load = this.pendingStoredDerived;
    if (load === undefined) return false;
    this.pendingStoredDerived = undefined;
    this.adoptStoredDerived(load());
    return true;
  }

  /** Whether the derived columns were computed or came from the model file. */
  get derivedSource(): DerivedSource {
    return this.derivedFrom;
  }

  /** A ranking's head as a model file kept it, or as another thread computed it for this model. */
  adoptRankingHead(ranking: string, head: RankingHead): void {
    this.rankingHeads.set(ranking, head);
  }

  rankingHead(ranking: string): RankingHead | undefined {
    return this.rankingHeads.get(ranking);
  }

  /** Every ranking head this model holds (for a model file, or a transfer to another thread). */
  allRankingHeads(): Record<string, RankingHead> {
    return Object.fromEntries(this.rankingHeads);
  }

  /** Takes derived columns computed elsewhere for this same model (their lengths are checked). */
  adoptDerivedColumns(derived: DerivedColumns): void {
    const n = this.count;
    if (
      derived.childStart.length !== n + 1 ||
      derived.roots.length !== n ||
      derived.familySizes.length !== n ||
      derived.offsetsInPackOrder.length !== n ||
      derived.childList.length !== derived.childStart[n]
    ) {
      throw new Error('derived columns do not fit this model');
    }
    this.pendingStoredDerived = undefined;
    this.childIndex = { start: derived.childStart, list: derived.childList };
    this.rootColumn = derived.roots;
    this.familySizes = derived.familySizes;
    this.offsetsInPackOrder = derived.offsetsInPackOrder;
  }

  get checksumHex(): string {
    return Buffer.from(this.index.packChecksum).toString('hex');
  }

  oidHex(n: number): string {
    return this.index.oidHex(n);
  }

  typeName(n: number): string {
    return TYPE_NAMES[this.columns.type[n]!]!;
  }

  isDelta(n: number): boolean {
    return isDeltaType(this.columns.inPackType[n]!);
  }

  /** Exact lookup by hex id; −1 when absent. */
  findHex(oidHex: string): number {
    if (oidHex.length !== this.hash.size * 2) return -1;
    return this.index.find(Buffer.from(oidHex, 'hex'));
  }

  /** Object numbers whose id starts with `prefixHex`, at most `limit` of them. */
  findPrefix(prefixHex: string, limit = 2): number[] {
    const [first, end] = this.index.prefixRange(prefixHex.toLowerCase());
    const found: number[] = [];
    for (let n = first; n < end && found.length < limit; n++) found.push(n);
    return found;
  }

  /** The object whose entry starts at `offset`, or −1 (a trace line naming a non-object offset). */
  objectAt(offset: number): number {
    const sorted = (this.offsetsInPackOrder ??= this.buildOffsetsInPackOrder());
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const value = sorted[mid]!;
      if (value === offset) return this.columns.byOffset[mid]!;
      if (value < offset) low = mid + 1;
      else high = mid;
    }
    return -1;
  }

  /** The chain from `n` down to its root: [n, base(n), …, root]. */
  chain(n: number): number[] {
    const chain = [n];
    let current = n;
    const { base, depth } = this.columns;
    // A build refuses cycles, and a sealed model file is one a build wrote; a stored depth still
    // bounds the walk, and no chain is longer than the objects (docs/security.md, "The model
    // cache's threat model": a file's values are not re-checked after its seal).
    for (let guard = Math.min(depth[n]!, this.count); guard > 0; guard--) {
      current = base[current]!;
      if (!(current >= 0 && current < this.count)) break;
      chain.push(current);
    }
    return chain;
  }

  counts(): ObjectCounts {
    return (this.summary ??= computeSummaryFacts(this.columns, this.count)).counts;
  }

  /** Objects per depth: element d counts objects with depth d (element 0: non-deltas). */
  depthHistogram(): number[] {
    return [...(this.summary ??= computeSummaryFacts(this.columns, this.count)).depthHistogram];
  }

  /** Sums of result sizes and on-disk sizes. */
  byteTotals(): { inflated: number; onDisk: number } {
    return { ...(this.summary ??= computeSummaryFacts(this.columns, this.count)).byteTotals };
  }

  /**
   * Counts, depth histogram and byte totals, computed once. A model worker computes them before it
   * moves the model (model-transfer.ts): on a big pack the three passes would be a hover's wait on
   * the server's thread the first time the pack's summary is asked for (bench/README.md, "Figures
   * the comments rely on").
   */
  summaryFacts(): SummaryFacts {
    return (this.summary ??= computeSummaryFacts(this.columns, this.count));
  }

  /** Facts a model worker computed for this very model (trusted: they come from our own thread). */
  adoptSummaryFacts(facts: SummaryFacts): void {
    this.summary = facts;
  }

  /** Direct delta children of every object, as a compressed adjacency list. */
  children(n: number): Uint32Array {
    const index = (this.childIndex ??= this.buildChildIndex());
    return index.list.subarray(index.start[n]!, index.start[n + 1]!);
  }

  /** The root of each object's chain (itself for non-deltas). */
  rootOf(n: number): number {
    return (this.rootColumn ??= this.buildRoots())[n]!;
  }

  /** Number of objects sharing `n`'s root. */
  familySize(n: number): number {
    this.familySizes ??= this.buildFamilySizes();
    return this.familySizes[this.rootOf(n)]!;
  }

  /** Number of families: one per root, and the roots are the objects at depth 0. */
  familyCount(): number {
    return this.summaryFacts().depthHistogram[0] ?? 0;
  }

  /** Bytes held by the columns (the idx buffer is accounted separately). */
  get columnBytes(): number {
    const c = this.columns;
    return (
      c.offset.byteLength +
      c.inPackType.byteLength +
      c.type.byteLength +
      c.size.byteLength +
      c.resultSize.byteLength +
      c.diskSize.byteLength +
      c.base.byteLength +
      c.depth.byteLength +
      c.byOffset.byteLength
    );
  }

  private buildOffsetsInPackOrder(): Float64Array {
    const { byOffset, offset } = this.columns;
    const sorted = new Float64Array(this.count);
    for (let p = 0; p < this.count; p++) sorted[p] = offset[byOffset[p]!]!;
    return sorted;
  }

  private buildChildIndex(): { start: Uint32Array; list: Uint32Array } {
    if (this.takeStoredDerived()) return this.childIndex!;
    const { base } = this.columns;
    const start = new Uint32Array(this.count + 1);
    for (let n = 0; n < this.count; n++) {
      const b = base[n]!;
      if (b >= 0) start[b + 1]!++;
    }
    for (let n = 0; n < this.count; n++) start[n + 1]! += start[n]!;
    const fill = start.slice(0, this.count);
    const list = new Uint32Array(start[this.count]!);
    // Children in pack order, the order git's index-pack resolves them (§2.2).
    const { byOffset } = this.columns;
    for (let p = 0; p < this.count; p++) {
      const n = byOffset[p]!;
      const b = base[n]!;
      if (b >= 0) list[fill[b]!++] = n;
    }
    return { start, list };
  }

  private buildRoots(): Uint32Array {
    if (this.takeStoredDerived()) return this.rootColumn!;
    const { base, depth } = this.columns;
    const roots = new Uint32Array(this.count);
    // Visiting by increasing depth guarantees a base's root is known before its deltas'.
    const order = objectsByDepth(depth, this.count);
    for (const n of order) {
      const b = base[n]!;
      roots[n] = b < 0 ? n : roots[b]!;
    }
    return roots;
  }

  private buildFamilySizes(): Uint32Array {
    if (this.takeStoredDerived()) return this.familySizes!;
    const roots = (this.rootColumn ??= this.buildRoots());
    const sizes = new Uint32Array(this.count);
    for (let n = 0; n < this.count; n++) sizes[roots[n]!]!++;
    return sizes;
  }
}

function objectsByDepth(depth: Uint16Array | Uint32Array, count: number): Uint32Array {
  let maxDepth = 0;
  for (let n = 0; n < count; n++) if (depth[n]! > maxDepth) maxDepth = depth[n]!;
  const start = new Uint32Array(maxDepth + 2);
  for (let n = 0; n < count; n++) start[depth[n]! + 1]!++;
  for (let d = 0; d <= maxDepth; d++) start[d + 1]! += start[d]!;
  const order = new Uint32Array(count);
  for (let n = 0; n < count; n++) order[start[depth[n]!]!++] = n;
  return order;
}
