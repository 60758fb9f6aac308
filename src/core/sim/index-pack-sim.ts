import { isDeltaType, OBJ_REF_DELTA } from '../format/pack-file.ts';
import type { PackModel } from '../model/pack-model.ts';
import type { IndexPackCounts, IndexPackVariant } from '../documents/simulation-documents.ts';

/**
 * `git index-pack --threads=1` on one pack: pass 1 plus the single-threaded second pass of
 * git-internals §2.1–2.5, counted in zlib inflations and delta applications (what an inflate-
 * counting shim sees, §0). Outside a repository, so no collision checks read objects (§2.4).
 *
 * Variants (§2.5):
 * - `v2.36`: Git 2.36.0–2.54.x, `free_base_data(child)` right after `prune_base_data(NULL)`: a new
 *   base's data is dropped at once and rebuilt when its first child is resolved.
 * - `v2.55`: Git 2.55.0+ (and 2.29–2.35), without that line.
 * - `release-when-done`: v2.55, plus the data of a base is freed as soon as its last child has been
 *   resolved: in the iteration that dispatches a base's last child, right after that child's delta
 *   is applied (after `retain_data--`) and before the child itself is accounted and pruned for. The
 *   base stays on done_head until its subtree is finished, exactly as in v2.55; only its data goes.
 *   If a descendant is pruned later, get_base_data rebuilds it from the ancestors as usual.
 */
export interface IndexPackOptions {
  /** core.deltaBaseCacheLimit; base_cache_limit = limit × nr_threads, and nr_threads is 1 (§2.2). */
  limit: number;
  variant: IndexPackVariant;
}

const NONE = -1;

/**
 * Second-pass state, one slot per object number (every object is at most one base_data node), and
 * the two intrusive lists work_head and done_head with the head as the newest entry (`list_add`).
 */
class SecondPass {
  private readonly pass1Inflations: number;
  private pass2Inflations = 0;
  deltaApplications = 0;
  reconstructions = 0;
  used = 0;
  peakBytes = 0;

  /** Children in resolution order: REF children, then OFS children, each in pack order (§2.2). */
  private readonly childStart: Uint32Array;
  private readonly childList: Uint32Array;
  private readonly nextChild: Uint32Array;
  private readonly childrenRemaining: Uint32Array;
  private readonly hasData: Uint8Array;
  private readonly retained: Uint32Array;
  private readonly dataSize: Float64Array;
  private readonly isDelta: Uint8Array;
  private readonly base: Int32Array;
  private readonly listNext: Int32Array;
  private readonly listPrev: Int32Array;
  private readonly workHead: number;
  private readonly doneHead: number;

  constructor(
    private readonly model: PackModel,
    private readonly limit: number,
    private readonly variant: IndexPackVariant,
  ) {
    const count = model.count;
    const { inPackType, resultSize, base } = model.columns;
    // §2.1: pass 1 inflates every object exactly once.
    this.pass1Inflations = count;
    this.base = base;
    this.isDelta = new Uint8Array(count);
    this.dataSize = new Float64Array(count);
    for (let n = 0; n < count; n++) {
      this.isDelta[n] = isDeltaType(inPackType[n]!) ? 1 : 0;
      // base_data.size: the object's inflated size (a root's header size, a delta's result size).
      this.dataSize[n] = resultSize.get(n);
    }
    [this.childStart, this.childList] = orderedChildren(model);
    this.nextChild = new Uint32Array(count);
    this.childrenRemaining = new Uint32Array(count);
    this.hasData = new Uint8Array(count);
    this.retained = new Uint32Array(count);
    this.listNext = new Int32Array(count + 2).fill(NONE);
    this.listPrev = new Int32Array(count + 2).fill(NONE);
    this.workHead = count;
    this.doneHead = count + 1;
    for (const head of [this.workHead, this.doneHead]) {
      this.listNext[head] = head;
      this.listPrev[head] = head;
    }
  }

  get totalInflations(): number {
    return this.pass1Inflations + this.pass2Inflations;
  }

  /** threaded_second_pass with one thread (§2.4). */
  run(): void {
    const { byOffset } = this.model.columns;
    const count = this.model.count;
    let dispatched = 0;
    for (;;) {
      let parent = NONE;
      let child: number;
      let parentDone = false;
      if (this.isEmpty(this.workHead)) {
        // Next non-delta object in pack order.
        while (dispatched < count && this.isDelta[byOffset[dispatched]!]) dispatched++;
        if (dispatched >= count) break;
        child = byOffset[dispatched++]!;
      } else {
        parent = this.listNext[this.workHead]!;
        child = this.childList[this.childStart[parent]! + this.nextChild[parent]!]!;
        this.nextChild[parent]!++;
        if (this.nextChild[parent] === this.childCount(parent)) {
          // Out of children to dispatch: move to done_head.
          this.unlink(parent);
          this.pushHead(this.doneHead, parent);
          parentDone = true;
        }
        this.getBaseData(parent);
        this.retained[parent]!++;
      }

      // make_base: children_remaining = #REF + #OFS children.
      const children = this.childCount(child);
      this.childrenRemaining[child] = children;
      this.nextChild[child] = 0;
      if (parent !== NONE) {
        // resolve_delta: inflate the delta, apply it. A child without children drops the result
        // without ever accounting it.
        this.pass2Inflations++;
        this.deltaApplications++;
      } else if (children > 0) {
        // A root with delta children is inflated now; a childless root is not (§2.4).
        this.pass2Inflations++;
      }

      if (parent !== NONE) {
        this.retained[parent]!--;
        if (this.variant === 'release-when-done' && parentDone) this.freeBaseData(parent);
      }
      if (children > 0) {
        this.hasData[child] = 1;
        this.pushHead(this.workHead, child);
        this.account(child);
        this.prune(NONE);
        // §2.5: v2.36.0–v2.54.x only; removed by PR #2131 in v2.55.0.
        if (this.variant === 'v2.36') this.freeBaseData(child);
      } else {
        // A leaf (or childless root): finish every ancestor whose last child this was.
        let p = parent;
        while (p !== NONE) {
          if (--this.childrenRemaining[p]! > 0) break;
          const next = this.base[p]!;
          this.freeBaseData(p);
          this.unlink(p);
          p = next;
        }
      }
    }
  }

  /** get_base_data (§2.3): rebuild a pruned base from its nearest ancestor that still has data. */
  private getBaseData(c: number): void {
    if (this.hasData[c]) return;
    const chain: number[] = [];
    for (let x = c; this.isDelta[x] && !this.hasData[x]; x = this.base[x]!) chain.push(x);
    if (chain.length === 0) {
      // A non-delta root: inflate it again.
      this.pass2Inflations++;
      this.reconstructions++;
      this.hasData[c] = 1;
      this.account(c);
      this.prune(c);
      return;
    }
    for (let k = chain.length - 1; k >= 0; k--) {
      const node = chain[k]!;
      // Closest to the root first; its base is either held, or a root this call re-inflates.
      this.getBaseData(this.base[node]!);
      this.pass2Inflations++;
      this.deltaApplications++;
      this.reconstructions++;
      this.hasData[node] = 1;
      this.account(node);
      this.prune(node);
    }
  }

  /**
   * prune_base_data (§2.3): over the limit, free data oldest-first, first on done_head, then on
   * work_head (oldest = root-most), skipping retained nodes and `keep`, until back under the limit.
   */
  private prune(keep: number): void {
    if (this.used <= this.limit) return;
    if (this.pruneList(this.doneHead, keep)) return;
    this.pruneList(this.workHead, keep);
  }

  /** One list of prune_base_data, tail (oldest) first; true once back under the limit. */
  private pruneList(head: number, keep: number): boolean {
    for (let b = this.listPrev[head]!; b !== head; b = this.listPrev[b]!) {
      if (this.retained[b] || b === keep || !this.hasData[b]) continue;
      this.freeBaseData(b);
      if (this.used <= this.limit) return true;
    }
    return false;
  }

  private account(n: number): void {
    this.used += this.dataSize[n]!;
    if (this.used > this.peakBytes) this.peakBytes = this.used;
  }

  private freeBaseData(n: number): void {
    if (!this.hasData[n]) return;
    this.hasData[n] = 0;
    this.used -= this.dataSize[n]!;
  }

  private childCount(n: number): number {
    return this.childStart[n + 1]! - this.childStart[n]!;
  }

  private isEmpty(head: number): boolean {
    return this.listNext[head] === head;
  }

  private pushHead(head: number, n: number): void {
    const first = this.listNext[head]!;
    this.listNext[n] = first;
    this.listPrev[n] = head;
    this.listPrev[first] = n;
    this.listNext[head] = n;
  }

  private unlink(n: number): void {
    const before = this.listPrev[n]!;
    const after = this.listNext[n]!;
    this.listNext[before] = after;
    this.listPrev[after] = before;
    this.listNext[n] = NONE;
    this.listPrev[n] = NONE;
  }
}

/**
 * Each object's delta children in the order index-pack dispatches them (§2.2, §2.4): ref_deltas[]
 * sorted by base OID and ofs_deltas[] sorted by base offset, stable, so for one base its REF
 * children in pack order come first, then its OFS children in pack order. (glibc's qsort is a
 * stable merge sort up to 2.36; §7 notes 2.37–2.38 may differ on ties.)
 */
function orderedChildren(model: PackModel): [Uint32Array, Uint32Array] {
  const count = model.count;
  const { inPackType, base, byOffset } = model.columns;
  const start = new Uint32Array(count + 1);
  for (let n = 0; n < count; n++) {
    const b = base[n]!;
    if (b >= 0) start[b + 1]!++;
  }
  for (let n = 0; n < count; n++) start[n + 1]! += start[n]!;
  const fill = start.slice(0, count);
  const list = new Uint32Array(start[count]!);
  for (const wantRef of [true, false]) {
    for (let p = 0; p < count; p++) {
      const n = byOffset[p]!;
      const b = base[n]!;
      if (b >= 0 && (inPackType[n] === OBJ_REF_DELTA) === wantRef) list[fill[b]!++] = n;
    }
  }
  return [start, list];
}

/** Simulates `git index-pack --threads=1` of `model`'s pack at one core.deltaBaseCacheLimit. */
export function simulateIndexPack(model: PackModel, options: IndexPackOptions): IndexPackCounts {
  const pass = new SecondPass(model, options.limit, options.variant);
  pass.run();
  return {
    inflations: pass.totalInflations,
    deltaApplications: pass.deltaApplications,
    reconstructions: pass.reconstructions,
    peakBytes: pass.peakBytes,
  };
}

/**
 * The variant a git version's index-pack follows (§2.5), from `git --version` output or a bare
 * version; undefined before v2.29, whose recursive per-root algorithm is not modelled.
 */
export function indexPackVariantFor(version: string): IndexPackVariant | undefined {
  const match = /(\d+)\.(\d+)/.exec(version);
  if (!match) return undefined;
  const major = Number(match[1]);
  const minor = Number(match[2]);
  if (major !== 2) return major > 2 ? 'v2.55' : undefined;
  if (minor < 29) return undefined;
  // v2.29–v2.35 had no free_base_data(child) either: the same counts as v2.55 (§2.5).
  if (minor < 36) return 'v2.55';
  return minor < 55 ? 'v2.36' : 'v2.55';
}
