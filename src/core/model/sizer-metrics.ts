import { errorMessage } from '../../common/error-message.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../format/pack-file.ts';
import type { ConcernKey, ConcernRefGroup } from '../documents/concerns-document.ts';
import { looseObjectHeader } from './blob-sizes.ts';
import { CachedObjectReader } from './cached-object-reader.ts';
import { looseObjectFile, readLooseObject } from './loose-object.ts';
import type { StoreWalkInputs } from './object-paths.ts';
import { OidLookup } from './oid-lookup.ts';
import type { PackModel } from './pack-model.ts';
import { packOfNumber } from './pack-numbering.ts';

/**
 * git-sizer's figures (sizes/graph.go, sizes/sizes.go), by its definitions:
 *
 * - The objects are those `git rev-list --objects` reaches from every ref `git for-each-ref` lists
 *   (refs under `refs/`; HEAD is not a root), each counted once.
 * - A commit's size is its object's size; its parents are its `parent` lines; its ancestor depth is
 *   1 + the largest of its parents' (the history depth is the longest chain of parents).
 * - A tree's entries are all its entries, gitlinks too. Its "checkout" figures are memoised per tree
 *   (a tree met again costs nothing) and summed with duplicates: directories counting itself,
 *   files (any entry that is not a tree, symlink or gitlink) and their sizes, symlinks, gitlinks;
 *   the path depth is 1 for an entry of its own, 1 + a subtree's; the path length counts bytes of
 *   the names, with a `/` between, and an empty subtree counts its name alone. The checkout maxima
 *   are over every tree reached, so a commit's root tree (or a tree a ref names) gives them.
 * - An annotated tag's depth is 1, plus its target's when its `type` line says `tag`.
 * - git-sizer's 32-bit counters stop at 4,294,967,295 (its Count32): so do these, and such a value
 *   is flagged as saturated.
 */
export const SIZER_RULE =
  'git-sizer: every object `git rev-list --objects` reaches from the refs `git for-each-ref` lists, each counted once';

/** git-sizer's Count32 ceiling. */
export const COUNT32_MAX = 0xffff_ffff;
const MAX_PROBLEMS = 10;
/** A commit, tree or tag larger than this is reported, not read (the path walk's bound too). */
const MAX_OBJECT_BYTES = 64 << 20;

export interface SizerFigures {
  values: Record<ConcernKey, number>;
  /** For the rows about one object: the first object met with the value. */
  objects: Partial<Record<ConcernKey, string>>;
  refGroups: ConcernRefGroup[];
  complete: boolean;
  problems: string[];
}

/** One tree's checkout figures (git-sizer's TreeSize). */
interface TreeSize {
  depth: number;
  length: number;
  trees: number;
  blobs: number;
  blobBytes: number;
  links: number;
  submodules: number;
}

interface TreeFrame {
  id: number;
  content: Buffer;
  at: number;
  size: TreeSize;
  entries: number;
  /** Bytes of the name of the subtree entered from this frame, added to it when that subtree is done. */
  childNameBytes: number;
}

const plus32 = (a: number, b: number): number => Math.min(a + b, COUNT32_MAX);

/** git-sizer's default reference groups, in the order its table lists them. */
const REF_GROUPS: { symbol: string; name: string; matches(ref: string): boolean }[] = [
  { symbol: 'branches', name: 'Branches', matches: (r) => r.startsWith('refs/heads/') },
  { symbol: 'tags', name: 'Tags', matches: (r) => r.startsWith('refs/tags/') },
  { symbol: 'remotes', name: 'Remote-tracking refs', matches: (r) => r.startsWith('refs/remotes/') },
  { symbol: 'pulls', name: 'Pull request refs', matches: (r) => r.startsWith('refs/pull/') },
  // Go's regexp, anchored as git-sizer anchors it: \d is an ASCII digit.
  { symbol: 'changes', name: 'Changeset refs', matches: (r) => /^refs\/changes\/[0-9]{2}\/[0-9]+\/[0-9]+$/.test(r) },
  { symbol: 'notes', name: 'Git notes', matches: (r) => r.startsWith('refs/notes/') },
  { symbol: 'stash', name: 'Git stash', matches: (r) => r === 'refs/stash' },
];

/** The reference groups git-sizer counts `refs` in: each ref in every group it matches, "other" when none. */
export function refGroupsOf(refs: readonly string[]): ConcernRefGroup[] {
  const counts = new Map<string, number>();
  for (const ref of refs) {
    let matched = false;
    for (const group of REF_GROUPS)
      if (group.matches(ref)) {
        matched = true;
        counts.set(group.symbol, (counts.get(group.symbol) ?? 0) + 1);
      }
    if (!matched) counts.set('other', (counts.get('other') ?? 0) + 1);
  }
  return [...REF_GROUPS, { symbol: 'other', name: 'Other' }]
    .filter((g) => counts.has(g.symbol))
    .map((g) => ({ symbol: g.symbol, name: g.name, count: counts.get(g.symbol)! }));
}

/**
 * git-sizer's figures for the objects of `inputs` (the store's packs in git's search order, its
 * loose objects, its refs). Every commit, tree and tag is untrusted: parsed with bounds, nesting
 * walked on explicit stacks (no recursion), a cycle (impossible with honest ids) reported and cut.
 */
export function sizerFigures(inputs: StoreWalkInputs, hashSize: number, signal?: AbortSignal): SizerFigures {
  return new SizerWalk(inputs, hashSize, signal).run();
}

/**
 * One count's state. Objects are numbered across the packs as the path walk numbers them (pack p's
 * object n is `bases[p] + n`); loose objects get numbers from `total` up as they are met.
 */
class SizerWalk {
  private readonly models: readonly PackModel[];
  private readonly bases: number[] = [];
  private readonly total: number;
  private readonly lookup: OidLookup;
  private readonly reader: CachedObjectReader;
  /** 0 unseen, 1 being walked (a tree), 2 done; loose objects' in `looseState`. */
  private readonly state: Uint8Array;
  /** Every packed object's type and size, in global numbers: one array read per tree entry instead of a search for its pack. */
  private readonly types: Uint8Array;
  private readonly sizes: Float64Array;
  private readonly looseState = new Map<number, number>();
  private readonly looseIds = new Map<string, number>();
  private readonly loose: { oidHex: string; file: string; type?: number; size?: number }[] = [];
  private readonly values = Object.fromEntries(KEYS.map((k) => [k, 0])) as Record<ConcernKey, number>;
  private readonly objects: Partial<Record<ConcernKey, string>> = {};
  private readonly problems: string[] = [];
  private complete = true;
  private readonly treeSizes = new Map<number, TreeSize>();
  private readonly rootTrees: number[] = [];
  private readonly commitParents = new Map<number, number[]>();
  private readonly tagTargets = new Map<number, number>();
  private ticks = 0;

  constructor(
    private readonly inputs: StoreWalkInputs,
    private readonly hashSize: number,
    private readonly signal: AbortSignal | undefined,
  ) {
    this.models = inputs.models;
    let total = 0;
    for (const model of this.models) {
      this.bases.push(total);
      total += model.count;
    }
    this.total = total;
    this.state = new Uint8Array(total);
    this.types = new Uint8Array(total);
    this.sizes = new Float64Array(total);
    for (const [p, model] of this.models.entries()) {
      const base = this.bases[p]!;
      this.types.set(model.columns.type.subarray(0, model.count), base);
      const { resultSize } = model.columns;
      for (let n = 0; n < model.count; n++) this.sizes[base + n] = resultSize.get(n);
    }
    this.lookup = new OidLookup(this.models);
    this.reader = new CachedObjectReader(this.models, {
      maxObjectBytes: MAX_OBJECT_BYTES,
      cacheBytes: GIT_DEFAULT_LIMIT,
    });
    for (const problem of inputs.refs.problems) this.note(problem);
  }

  run(): SizerFigures {
    const refs = this.inputs.refs.tips.filter((tip) => tip.name.startsWith('refs/'));
    try {
      this.values.referenceCount = refs.length;
      const stack: number[] = [];
      for (const ref of refs) {
        const id = this.locate(Buffer.from(ref.oidHex, 'hex'), 0);
        if (id < 0) this.note(`${ref.name} (${ref.oidHex}) leads to an object in no pack and no loose file`);
        else stack.push(id);
      }
      this.walkObjects(stack);
      for (const tree of this.rootTrees) this.walkTree(tree);
      this.historyDepth();
      this.tagDepths();
    } finally {
      this.reader.close();
    }
    return {
      values: this.values,
      objects: this.objects,
      refGroups: refGroupsOf(refs.map((r) => r.name)),
      complete: this.complete,
      problems: this.problems,
    };
  }

  /** Commits, tags and what refs name directly, depth first; trees are left for walkTree. */
  private walkObjects(stack: number[]): void {
    while (stack.length > 0) {
      const id = stack.pop()!;
      if (this.stateOf(id) !== 0) continue;
      const type = this.typeOf(id);
      if (type === OBJ_TREE) {
        this.rootTrees.push(id);
        continue;
      }
      this.setState(id, 2);
      this.checkpoint();
      if (type === OBJ_BLOB) this.countBlob(id);
      else if (type === OBJ_COMMIT) this.visitCommit(id, stack);
      else if (type === OBJ_TAG) this.visitTag(id, stack);
      else this.note(`${this.describe(id)} could not be typed`);
    }
  }

  private visitCommit(id: number, stack: number[]): void {
    const content = this.read(id);
    if (!content) return;
    const parsed = parseCommitHeader(content, this.hashSize);
    if (!parsed) {
      this.note(`${this.describe(id)} is not a well-formed commit (no tree line)`);
      return;
    }
    const v = this.values;
    v.uniqueCommitCount = plus32(v.uniqueCommitCount, 1);
    const size = Math.min(content.length, COUNT32_MAX);
    v.uniqueCommitSize += size;
    // AdjustMaxIfPossible: an equal value takes the row too (which of equals is met last follows this walk's order, not git-sizer's).
    if (size >= v.maxCommitSize) {
      v.maxCommitSize = size;
      this.objects.maxCommitSize = this.oidHexOf(id);
    }
    const parentCount = Math.min(parsed.parents.length, COUNT32_MAX);
    if (parentCount >= v.maxCommitParentCount) {
      v.maxCommitParentCount = parentCount;
      this.objects.maxCommitParentCount = this.oidHexOf(id);
    }
    const tree = this.locate(parsed.tree, 0);
    if (tree < 0) this.note(`the root tree of ${this.describe(id)} is in no pack and no loose file`);
    else stack.push(tree);
    // A shallow clone's boundary commits keep their parent lines (counted above) but not their parents.
    const parents: number[] = [];
    if (!this.inputs.shallow.has(this.oidHexOf(id)))
      for (const parent of parsed.parents) {
        const p = this.locate(parent, 0);
        if (p < 0) this.note(`a parent of ${this.describe(id)} is in no pack and no loose file`);
        else {
          parents.push(p);
          stack.push(p);
        }
      }
    this.commitParents.set(id, parents);
  }

  private visitTag(id: number, stack: number[]): void {
    const content = this.read(id);
    if (!content) return;
    const v = this.values;
    v.uniqueTagCount = plus32(v.uniqueTagCount, 1);
    const parsed = parseTagHeader(content, this.hashSize);
    if (!parsed) {
      this.note(`${this.describe(id)} is not a well-formed tag`);
      this.tagTargets.set(id, -1);
      return;
    }
    const target = this.locate(parsed.object, 0);
    if (target < 0) this.note(`${this.describe(id)} names an object in no pack and no loose file`);
    else stack.push(target);
    this.tagTargets.set(id, parsed.type === 'tag' ? target : -1);
  }

  private countBlob(id: number): void {
    const v = this.values;
    const size = Math.min(this.sizeOf(id), COUNT32_MAX);
    v.uniqueBlobCount = plus32(v.uniqueBlobCount, 1);
    v.uniqueBlobSize += size;
    // AdjustMaxIfNecessary: only a larger blob takes the row, so the first met with the size keeps it.
    if (size > v.maxBlobSize) {
      v.maxBlobSize = size;
      this.objects.maxBlobSize = this.oidHexOf(id);
    }
  }

  /**
   * One tree and every tree below it not yet sized, post-order on an explicit stack: a tree's
   * figures are final when its last subtree's are, and are kept for every later tree that names it.
   */
  // Stays long: the entry loop is the hot path (every entry of every tree once), its state in locals.
  private walkTree(root: number): void {
    if (this.stateOf(root) !== 0) return;
    const stack: TreeFrame[] = [];
    const enter = (id: number): void => {
      this.setState(id, 1);
      this.checkpoint();
      const content = this.read(id) ?? Buffer.alloc(0);
      const size = { depth: 0, length: 0, trees: 1, blobs: 0, blobBytes: 0, links: 0, submodules: 0 };
      stack.push({ id, content, at: 0, size, entries: 0, childNameBytes: 0 });
    };
    enter(root);
    const { hashSize, lookup, types, sizes, state, total } = this;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const { content, size } = frame;
      const end = content.length;
      let at = frame.at;
      let entered = false;
      while (at < end && !entered) {
        // `<octal mode> <name>\0<id>`, every part bounds-checked against the tree's end.
        let mode = 0;
        let i = at;
        for (; i < end && i - at < 7; i++) {
          const c = content[i]!;
          if (c < 0x30 || c > 0x37) break;
          mode = mode * 8 + (c - 0x30);
        }
        const nameAt = i + 1;
        // A short name is found sooner by this loop than by a native indexOf call per entry.
        let nul = -1;
        if (i > at && content[i] === 0x20) {
          nul = nameAt;
          while (nul < end && content[nul] !== 0) nul++;
        }
        if (nul <= nameAt || nul + 1 + hashSize > end) {
          this.note(`${this.describe(frame.id)}: a malformed entry at byte ${at} of the tree; the rest not read`);
          at = end;
          break;
        }
        const nameBytes = nul - nameAt;
        const oidAt = nul + 1;
        at = oidAt + hashSize;
        frame.entries++;
        const kind = mode & 0o170000;
        if (kind === 0o160000) {
          addLeaf(size, nameBytes);
          size.submodules = plus32(size.submodules, 1);
          continue;
        }
        let child = lookup.find(content, oidAt);
        if (child < 0) child = this.locateLoose(content, oidAt);
        if (child < 0) {
          this.note(
            `${this.describe(frame.id)} names ${Buffer.from(content.subarray(oidAt, oidAt + hashSize)).toString('hex')}, which is in no pack and no loose file`,
          );
          continue;
        }
        const isTree = kind === 0o040000;
        if ((child < total ? types[child]! : this.typeOf(child)) !== (isTree ? OBJ_TREE : OBJ_BLOB)) {
          this.note(`${this.describe(frame.id)} names ${this.describe(child)} as a ${isTree ? 'tree' : 'blob'}`);
          continue;
        }
        if (!isTree) {
          if (child >= total ? this.stateOf(child) === 0 : state[child] === 0) {
            this.setState(child, 2);
            this.countBlob(child);
          }
          size.depth = Math.max(size.depth, 1);
          size.length = Math.max(size.length, nameBytes);
          if (kind === 0o120000) size.links = plus32(size.links, 1);
          else {
            size.blobs = plus32(size.blobs, 1);
            size.blobBytes += Math.min(child < total ? sizes[child]! : this.sizeOf(child), COUNT32_MAX);
          }
          continue;
        }
        const known = this.treeSizes.get(child);
        if (known) addDescendant(size, nameBytes, known);
        else if (this.stateOf(child) === 1) this.note(`${this.describe(child)} contains itself: the cycle is cut`);
        else {
          frame.at = at;
          frame.childNameBytes = nameBytes;
          enter(child);
          entered = true;
        }
      }
      if (entered) continue;
      stack.pop();
      this.finishTree(frame);
      const parent = stack[stack.length - 1];
      if (parent) addDescendant(parent.size, parent.childNameBytes, frame.size);
    }
  }

  /** git-sizer's recordTree: the tree's own counts, and its checkout figures against the maxima. */
  private finishTree(frame: TreeFrame): void {
    const { id, size } = frame;
    this.setState(id, 2);
    this.treeSizes.set(id, size);
    const v = this.values;
    v.uniqueTreeCount = plus32(v.uniqueTreeCount, 1);
    v.uniqueTreeSize += Math.min(frame.content.length, COUNT32_MAX);
    const entries = Math.min(frame.entries, COUNT32_MAX);
    v.uniqueTreeEntries += entries;
    const oid = (): string => this.oidHexOf(id);
    this.raise('maxTreeEntries', entries, oid);
    this.raise('maxCheckoutPathDepth', size.depth, oid);
    this.raise('maxCheckoutPathLength', size.length, oid);
    this.raise('maxCheckoutTreeCount', size.trees, oid);
    this.raise('maxCheckoutBlobCount', size.blobs, oid);
    this.raise('maxCheckoutBlobSize', size.blobBytes, oid);
    this.raise('maxCheckoutLinkCount', size.links, oid);
    this.raise('maxCheckoutSubmoduleCount', size.submodules, oid);
  }

  /** AdjustMaxIfNecessary: only a larger value takes the row (and names its object). */
  private raise(key: ConcernKey, value: number, oid: () => string): void {
    if (value <= this.values[key]) return;
    this.values[key] = value;
    this.objects[key] = oid();
  }

  /** The longest chain of parents, memoised per commit, on an explicit stack. */
  private historyDepth(): void {
    const depth = new Map<number, number>();
    const open = new Set<number>();
    let deepest = 0;
    for (const start of this.commitParents.keys()) {
      if (depth.has(start)) continue;
      const stack: { id: number; next: number; best: number }[] = [{ id: start, next: 0, best: 0 }];
      open.add(start);
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        const parents = this.commitParents.get(frame.id) ?? [];
        if (frame.next < parents.length) {
          const parent = parents[frame.next++]!;
          const known = depth.get(parent);
          if (known !== undefined) frame.best = Math.max(frame.best, known);
          else if (open.has(parent)) this.note(`${this.describe(parent)} is its own ancestor: the cycle is cut`);
          else if (this.commitParents.has(parent)) {
            open.add(parent);
            stack.push({ id: parent, next: 0, best: 0 });
          }
          continue;
        }
        stack.pop();
        open.delete(frame.id);
        const own = plus32(frame.best, 1);
        depth.set(frame.id, own);
        deepest = Math.max(deepest, own);
        const child = stack[stack.length - 1];
        if (child) child.best = Math.max(child.best, own);
      }
    }
    this.values.maxHistoryDepth = deepest;
  }

  /** Each tag's chain: 1, plus the depth of the tag its `type tag` line names. */
  private tagDepths(): void {
    const depth = new Map<number, number>();
    for (const start of this.tagTargets.keys()) {
      const chain: number[] = [];
      const inChain = new Set<number>();
      let id = start;
      let below = 0;
      for (;;) {
        const known = depth.get(id);
        if (known !== undefined) {
          below = known;
          break;
        }
        if (inChain.has(id)) {
          this.note(`${this.describe(id)} is in a cycle of tags: the cycle is cut`);
          break;
        }
        chain.push(id);
        inChain.add(id);
        const target = this.tagTargets.get(id);
        if (target === undefined || target < 0) break;
        id = target;
      }
      for (let k = chain.length - 1; k >= 0; k--) {
        below = plus32(below, 1);
        depth.set(chain[k]!, below);
        this.raise('maxTagDepth', below, () => this.oidHexOf(chain[k]!));
      }
    }
  }

  private note(message: string): void {
    this.complete = false;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(message);
  }

  private checkpoint(): void {
    if (++this.ticks % 4096 === 0 && this.signal?.aborted) throw this.signal.reason ?? new Error('cancelled');
  }

  private packOf(id: number): number {
    return packOfNumber(this.bases, id);
  }

  private stateOf(id: number): number {
    return id < this.total ? this.state[id]! : (this.looseState.get(id) ?? 0);
  }

  private setState(id: number, value: number): void {
    if (id < this.total) this.state[id] = value;
    else this.looseState.set(id, value);
  }

  private locate(bytes: Uint8Array, at: number): number {
    const id = this.lookup.find(bytes, at);
    return id >= 0 ? id : this.locateLoose(bytes, at);
  }

  /** A loose object's number (from `total` up, as met), or −1 when no objects directory holds it. */
  private locateLoose(bytes: Uint8Array, at: number): number {
    const oidHex = Buffer.from(bytes.buffer, bytes.byteOffset + at, this.hashSize).toString('hex');
    const known = this.looseIds.get(oidHex);
    if (known !== undefined) return known;
    const file = looseObjectFile(this.inputs.looseObjectDirs, oidHex);
    if (file === undefined) return -1;
    const id = this.total + this.loose.length;
    this.loose.push({ oidHex, file });
    this.looseIds.set(oidHex, id);
    return id;
  }

  /** A loose object's type and size from its header alone (a loose blob is never read whole). */
  private looseHead(id: number): { type?: number; size?: number } {
    const object = this.loose[id - this.total]!;
    if (object.type === undefined) {
      try {
        const header = looseObjectHeader(object.file);
        if (header) {
          object.type = { commit: OBJ_COMMIT, tree: OBJ_TREE, blob: OBJ_BLOB, tag: OBJ_TAG }[header.type];
          object.size = header.size;
        } else this.note(`loose object ${object.oidHex} has no readable header`);
      } catch (error) {
        this.note(`loose object ${object.oidHex} could not be read: ${errorMessage(error)}`);
      }
      object.type ??= 0;
    }
    return object;
  }

  private typeOf(id: number): number {
    return id < this.total ? this.types[id]! : (this.looseHead(id).type ?? 0);
  }

  private sizeOf(id: number): number {
    return id < this.total ? this.sizes[id]! : (this.looseHead(id).size ?? 0);
  }

  private oidHexOf(id: number): string {
    if (id >= this.total) return this.loose[id - this.total]!.oidHex;
    const p = this.packOf(id);
    return this.models[p]!.oidHex(id - this.bases[p]!);
  }

  private describe(id: number): string {
    if (id >= this.total) return `loose object ${this.loose[id - this.total]!.oidHex}`;
    const p = this.packOf(id);
    const model = this.models[p]!;
    const n = id - this.bases[p]!;
    return `${model.typeName(n)} ${model.oidHex(n)} (${model.files.pack} at offset ${model.columns.offset[n]})`;
  }

  private read(id: number): Buffer | undefined {
    try {
      if (id >= this.total) return readLooseObject(this.loose[id - this.total]!.file, MAX_OBJECT_BYTES).content;
      const p = this.packOf(id);
      return this.reader.read(p, id - this.bases[p]!);
    } catch (error) {
      this.note(`${this.describe(id)} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  }
}

const KEYS: readonly ConcernKey[] = [
  'uniqueCommitCount',
  'uniqueCommitSize',
  'uniqueTreeCount',
  'uniqueTreeSize',
  'uniqueTreeEntries',
  'uniqueBlobCount',
  'uniqueBlobSize',
  'uniqueTagCount',
  'referenceCount',
  'maxCommitSize',
  'maxCommitParentCount',
  'maxTreeEntries',
  'maxBlobSize',
  'maxHistoryDepth',
  'maxTagDepth',
  'maxCheckoutTreeCount',
  'maxCheckoutPathDepth',
  'maxCheckoutPathLength',
  'maxCheckoutBlobCount',
  'maxCheckoutBlobSize',
  'maxCheckoutLinkCount',
  'maxCheckoutSubmoduleCount',
];

/** addBlob, addLink, addSubmodule: an entry of the tree's own is depth 1, its name's bytes long. */
function addLeaf(size: TreeSize, nameBytes: number): void {
  size.depth = Math.max(size.depth, 1);
  size.length = Math.max(size.length, Math.min(nameBytes, COUNT32_MAX));
}

/** addDescendent: a subtree's figures under its name (an empty subtree's path is its name alone). */
function addDescendant(size: TreeSize, nameBytes: number, sub: TreeSize): void {
  size.depth = Math.max(size.depth, plus32(sub.depth, 1));
  const name = Math.min(nameBytes, COUNT32_MAX);
  size.length = Math.max(size.length, sub.length > 0 ? plus32(plus32(name, 1), sub.length) : name);
  size.trees = plus32(size.trees, sub.trees);
  size.blobs = plus32(size.blobs, sub.blobs);
  size.blobBytes += sub.blobBytes;
  size.links = plus32(size.links, sub.links);
  size.submodules = plus32(size.submodules, sub.submodules);
}

/**
 * A commit's tree and `parent` lines (git's parse_commit_buffer: `tree` first, then the parent
 * lines that follow it), hex checked; undefined without a tree line.
 */
function parseCommitHeader(content: Buffer, hashSize: number): { tree: Buffer; parents: Buffer[] } | undefined {
  const hex = hashSize * 2;
  const isHex = (from: number): boolean => /^[0-9a-f]+$/.test(content.toString('latin1', from, from + hex));
  if (content.toString('latin1', 0, 5) !== 'tree ' || content[5 + hex] !== 0x0a || !isHex(5)) return undefined;
  const tree = Buffer.from(content.toString('latin1', 5, 5 + hex), 'hex');
  const parents: Buffer[] = [];
  let at = 6 + hex;
  while (content.toString('latin1', at, at + 7) === 'parent ' && content[at + 7 + hex] === 0x0a && isHex(at + 7)) {
    parents.push(Buffer.from(content.toString('latin1', at + 7, at + 7 + hex), 'hex'));
    at += 8 + hex;
  }
  return { tree, parents };
}

/** An annotated tag's `object` and `type` lines, in that order as git writes them; undefined otherwise. */
function parseTagHeader(content: Buffer, hashSize: number): { object: Buffer; type: string } | undefined {
  const hex = hashSize * 2;
  if (content.toString('latin1', 0, 7) !== 'object ' || content[7 + hex] !== 0x0a) return undefined;
  const oid = content.toString('latin1', 7, 7 + hex);
  if (!/^[0-9a-f]+$/.test(oid)) return undefined;
  const typeLine = 8 + hex;
  if (content.toString('latin1', typeLine, typeLine + 5) !== 'type ') return undefined;
  const typeEnd = content.indexOf(0x0a, typeLine);
  if (typeEnd < 0) return undefined;
  return { object: Buffer.from(oid, 'hex'), type: content.toString('latin1', typeLine + 5, typeEnd) };
}
