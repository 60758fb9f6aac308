import { errorMessage } from '../../common/error-message.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import * as path from 'node:path';
import { readRepositoryTextFile } from '../format/checked-file.ts';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../format/pack-file.ts';
import type { PathWalkSummary } from '../documents/object-paths-document.ts';
import { CachedObjectReader, ReadBudgetExceeded } from './cached-object-reader.ts';
import { looseObjectFile, readLooseObject } from './loose-object.ts';
import { OidLookup } from './oid-lookup.ts';
import type { PackModel } from './pack-model.ts';
import { type PathTable, PathTableBuilder } from './path-table.ts';
import { alternateObjectDirs, type ObjectStore, type PackLocation } from './object-store.ts';
import { readRefTips, type RefTips } from './refs.ts';
import { packOfNumber } from './pack-numbering.ts';

/**
 * Which name an object gets: the one `git rev-list --objects --all` prints for it, i.e. the path at
 * which its walk first meets it (list-objects.c). That walk lists every commit first, in
 * get_revision() order (the tips by commit date, newest first, ties in ref order; then each popped
 * commit's unseen parents inserted by date after the commits of the same date); then the pending
 * objects in order: the annotated tags and non-commit objects the refs name (tags named by their
 * `tag` header, trees and blobs by ""), then each commit's root tree in commit order, each tree
 * pre-order with its entries in tree order, subtrees recursing at once, gitlinks skipped, and an
 * object already seen never named again. Replaying it, rather than inventing a rule, makes every
 * name checkable against git; and a walk stopped early (budget, cancel) has named each object it
 * reached exactly as git would.
 */
export const PATH_RULE =
  'the name `git rev-list --objects --all` prints: the path at which its walk (commits by date, newest first; then each root tree pre-order) first reaches the object';

export interface PathWalkLimits {
  /** Bytes inflated or rebuilt by deltas before the walk stops (what a walk may cost). */
  maxRebuiltBytes: number;
  /** Milliseconds before the walk stops. */
  maxMs: number;
  /** Largest single object read (a tree or commit above it is reported, not read). */
  maxObjectBytes: number;
  /** Rebuilt objects kept as delta bases. */
  cacheBytes: number;
  /** Trees nested deeper are not entered (git ≥ 2.44 refuses more than core.maxTreeDepth, 2048). */
  maxTreeDepth: number;
  /** Paths longer are not named (git's PATH_MAX is 4096 on Linux). */
  maxPathBytes: number;
}

export const DEFAULT_PATH_WALK_LIMITS: PathWalkLimits = {
  maxRebuiltBytes: 64 * 1024 ** 3,
  maxMs: 10 * 60 * 1000,
  maxObjectBytes: 64 << 20,
  cacheBytes: GIT_DEFAULT_LIMIT,
  maxTreeDepth: 2048,
  maxPathBytes: 4096,
};

export type { PathWalkSummary };

export interface ObjectPaths {
  table: PathTable;
  /** Per pack, in the order given: the path node of each object number, −1 for none. */
  pathOf: Int32Array[];
  summary: PathWalkSummary;
  /** Why the walk stopped before its end (a time or read bound), when it did: a longer walk names more. */
  stopped?: string;
  /** Where a stopped walk was: another walk given it as `resume` goes on from there. */
  checkpoint?: WalkCheckpoint;
}

/**
 * Everything a walk stopped at a checkpoint (its time or read bound, or a cancellation) has done,
 * so that the next one goes on from there instead of starting over. A walk stops only at an
 * object it has not touched yet (before the next commit is popped, before the next tree is marked
 * and read), so that what it saved is exactly the state of an uninterrupted walk at that point, and
 * the walk resumed names every object as the uninterrupted one does (the bytes of the trees walked
 * before, kept to skip unchanged entries, are only speed, and start empty).
 */
export interface WalkCheckpoint {
  phase: 'commits' | 'trees';
  /** Per object number (packed first, then the loose objects met, in `loose` order): 1 when seen. */
  seen: Uint8Array;
  pathOf: Int32Array[];
  table: PathTable;
  /** The tree phase's list, in order: object numbers, and the name a tag gives (latin1) by position. */
  pending: Int32Array;
  tagNames: [number, string][];
  /** The pending entry being walked (trees phase). */
  pendingAt: number;
  /** The trees being read, outermost first: id, offset of the next entry, path node, depth, clean (0/1). */
  stack: number[];
  /** The commits queued (commits phase): id, date, insertion number; and the next insertion number. */
  heap: number[];
  seq: number;
  /** Loose objects met, by id (numbered from the packs' total up, in this order). */
  loose: string[];
  summary: PathWalkSummary;
}

export interface PathWalkProgress {
  phase: 'commits' | 'trees';
  done: number;
  /** Commits or trees in the packs: the most the phase can reach. */
  total: number;
}

export interface PathWalkOptions {
  limits?: Partial<PathWalkLimits>;
  /** A stopped walk of the same packs and refs (WalkCheckpoint) to go on from. */
  resume?: WalkCheckpoint | undefined;
  signal?: AbortSignal;
  onProgress?(progress: PathWalkProgress): void;
  /** Commits whose parents are not walked (the repository's `shallow` file). */
  shallow?: ReadonlySet<string>;
  /** Objects directories whose loose objects the walk reads too (the repository's and its alternates'), in git's order. */
  looseObjectDirs?: readonly string[];
}

const MAX_PROBLEMS = 10;
/** One id per line; a shallow clone of a million tips is still under this. */
const SHALLOW_FILE_MAX_BYTES = 128 << 20;
const MAX_TAG_DEPTH = 64;
const PROGRESS_EVERY = 2048;

interface CommitEntry {
  id: number;
  date: number;
  seq: number;
}

export class PathWalkCancelled extends Error {
  override readonly name = 'PathWalkCancelled';
  /** What the walk had done when it was cancelled, to go on from (set by the walk). */
  checkpoint?: WalkCheckpoint;
}

/**
 * Names the objects of `models` (git's search order) by replaying `git rev-list --objects --all`
 * over them (PATH_RULE). Reads commits and trees through one cached reader; trees are untrusted:
 * each entry is parsed with bounds, nesting and path length are capped, and every problem names the
 * object and its pack.
 */
export function walkObjectPaths(
  models: readonly PackModel[],
  refs: RefTips,
  options: PathWalkOptions = {},
): ObjectPaths {
  return new PathWalk(models, refs, options).run();
}

/** An object the refs or the commits leave for the tree phase; a tag carries the name it gives its target. */
interface PendingObject {
  id: number;
  tagName?: Buffer;
}

/** A tree being read, pre-order: its bytes, the next entry's offset, its path node and nesting. */
interface TreeFrame {
  content: Buffer;
  at: number;
  node: number;
  depth: number;
  id: number;
  /** The last tree walked cleanly at the same path (sameAsBefore), and where its entries line up with `at`. */
  before: Buffer | undefined;
  beforeAt: number;
  /** No entry of this tree was left unnamed (missing, mistyped, too deep or too long). */
  clean: boolean;
}

/** Bytes of earlier trees kept to compare the next version of their path with. */
const BEFORE_TREES_MAX_BYTES = 32 << 20;

/**
 * One walk's state. Objects are numbered across the packs in order (pack p's object n is
 * `bases[p] + n`); loose objects get the numbers from `total` up as the walk meets them: they are
 * walked through but have no pack to be named in.
 */
class PathWalk {
  private readonly started = performance.now();
  private readonly limits: PathWalkLimits;
  private readonly bases: number[] = [];
  private readonly total: number;
  private seen: Uint8Array;
  private readonly pathOf: Int32Array[];
  private readonly table: PathTableBuilder;
  private readonly reader: CachedObjectReader;
  private readonly lookup: OidLookup;
  private readonly problems: string[];
  private readonly summary: PathWalkSummary;
  /** Commits and trees in the packs, for progress. */
  private readonly totals = { commits: 0, trees: 0 };
  private readonly hashSize: number;
  private readonly looseDirs: readonly string[];
  private readonly looseIds = new Map<string, number>();
  private readonly loose: { oidHex: string; file: string; type: number | undefined }[] = [];
  private readonly looseSeen = new Set<number>();
  private ticks = 0;
  /** What the tree phase walks, in order (prepare_revision_walk's pending list, then each commit's root tree). */
  private readonly pending: PendingObject[] = [];
  private seq = 0;
  private readonly heap: CommitEntry[] = [];
  private readonly commitInfo = new Map<number, { tree: number; parents: number[] }>();
  private readonly stack: TreeFrame[] = [];
  private phase: 'commits' | 'trees' = 'commits';
  private pendingAt = 0;
  /** Per path node, the last tree walked there without a problem (sameAsBefore). */
  private readonly treeBefore = new Map<number, Buffer>();
  private treeBeforeBytes = 0;
  /** `locate` for parseCommit, bound once per walk. */
  private readonly locateId = (bytes: Uint8Array, at: number): number => this.locate(bytes, at);

  constructor(
    private readonly models: readonly PackModel[],
    private readonly refs: RefTips,
    private readonly options: PathWalkOptions,
  ) {
    const limits = { ...DEFAULT_PATH_WALK_LIMITS, ...options.limits };
    this.limits = limits;
    let total = 0;
    for (const model of models) {
      this.bases.push(total);
      total += model.count;
    }
    this.total = total;
    const resume = options.resume;
    this.seen = resume ? Uint8Array.from(resume.seen.subarray(0, total)) : new Uint8Array(total);
    this.pathOf = resume
      ? resume.pathOf.map((column) => Int32Array.from(column))
      : models.map((model) => new Int32Array(model.count).fill(-1));
    this.table = resume
      ? PathTableBuilder.resume(resume.table, limits.maxPathBytes)
      : new PathTableBuilder(limits.maxPathBytes);
    this.lookup = new OidLookup(models);
    this.reader = new CachedObjectReader(models, {
      maxObjectBytes: limits.maxObjectBytes,
      maxRebuiltBytes: limits.maxRebuiltBytes,
      cacheBytes: limits.cacheBytes,
    });
    this.problems = [...refs.problems];
    this.summary = {
      rule: PATH_RULE,
      tips: refs.tips.length,
      commits: 0,
      trees: 0,
      named: 0,
      missing: 0,
      complete: true,
      problems: this.problems,
      bytesRebuilt: 0,
      elapsedMs: 0,
      namesFrom: 'walk',
    };
    for (const model of models) {
      const counts = model.counts().byType;
      this.totals.commits += counts.commit!;
      this.totals.trees += counts.tree!;
    }
    this.hashSize = models[0]?.hash.size ?? 20;
    this.looseDirs = options.looseObjectDirs ?? [];
    if (resume) this.restore(resume);
  }

  /** A checkpoint's state taken back (the commits of its queue read again for their trees and parents). */
  private restore(resume: WalkCheckpoint): void {
    Object.assign(this.summary, { ...resume.summary, problems: this.problems, namesFrom: 'walk' });
    this.problems.length = 0;
    this.problems.push(...resume.summary.problems);
    for (const oidHex of resume.loose) {
      const id = this.total + this.loose.length;
      this.loose.push({ oidHex, file: looseObjectFile(this.looseDirs, oidHex) ?? '', type: undefined });
      this.looseIds.set(oidHex, id);
      if (resume.seen[id] === 1) this.looseSeen.add(id);
    }
    const tagNames = new Map(resume.tagNames);
    resume.pending.forEach((id, i) => {
      const tagName = tagNames.get(i);
      this.pending.push(tagName === undefined ? { id } : { id, tagName: Buffer.from(tagName, 'latin1') });
    });
    this.phase = resume.phase;
    this.pendingAt = resume.pendingAt;
    this.seq = resume.seq;
    for (let i = 0; i + 2 < resume.heap.length; i += 3) {
      const id = resume.heap[i]!;
      const parsed = this.readCommit(id);
      this.commitInfo.set(id, parsed ?? { tree: -1, parents: [] });
      heapPush(this.heap, { id, date: resume.heap[i + 1]!, seq: resume.heap[i + 2]! });
    }
    for (let i = 0; i + 4 < resume.stack.length; i += 5) {
      const id = resume.stack[i]!;
      const content = this.read(id) ?? Buffer.alloc(0);
      this.stack.push({
        content,
        at: resume.stack[i + 1]!,
        node: resume.stack[i + 2]!,
        depth: resume.stack[i + 3]!,
        id,
        before: undefined,
        beforeAt: 0,
        clean: resume.stack[i + 4]! === 1,
      });
    }
  }

  /** Where this walk is, for another to go on from (see WalkCheckpoint). */
  private checkpointNow(): WalkCheckpoint {
    const seen = new Uint8Array(this.total + this.loose.length);
    seen.set(this.seen);
    for (const id of this.looseSeen) seen[id] = 1;
    const tagNames: [number, string][] = [];
    this.pending.forEach((item, i) => {
      if (item.tagName) tagNames.push([i, item.tagName.toString('latin1')]);
    });
    return {
      phase: this.phase,
      seen,
      pathOf: this.pathOf.map((column) => Int32Array.from(column)),
      table: this.table.finish(),
      pending: Int32Array.from(this.pending, (item) => item.id),
      tagNames,
      pendingAt: this.pendingAt,
      stack: this.stack.flatMap((frame) => [frame.id, frame.at, frame.node, frame.depth, frame.clean ? 1 : 0]),
      heap: this.heap.flatMap((entry) => [entry.id, entry.date, entry.seq]),
      seq: this.seq,
      loose: this.loose.map((object) => object.oidHex),
      summary: { ...this.summary, problems: [...this.problems] },
    };
  }

  run(): ObjectPaths {
    let stopped: string | undefined;
    let checkpoint: WalkCheckpoint | undefined;
    const resumed = this.options.resume !== undefined;
    try {
      if (this.options.signal?.aborted) throw new PathWalkCancelled('the path walk was cancelled');
      if (!resumed) this.peelTips();
      if (this.phase === 'commits') this.walkCommits();
      this.phase = 'trees';
      // A resumed walk first finishes the trees it was reading, then goes on down the list.
      if (this.stack.length > 0) this.walkStack();
      this.walkPending();
    } catch (error) {
      if (error instanceof PathWalkCancelled) error.checkpoint = this.checkpointNow();
      if (!(error instanceof ReadBudgetExceeded)) throw error;
      checkpoint = this.checkpointNow();
      stopped = error.message;
      this.note(`the walk stopped early: it ${error.message}; the names given so far are git's`);
    } finally {
      this.summary.bytesRebuilt = (this.options.resume?.summary.bytesRebuilt ?? 0) + this.reader.bytesRebuilt;
      this.reader.close();
    }
    this.summary.elapsedMs = (this.options.resume?.summary.elapsedMs ?? 0) + performance.now() - this.started;
    return {
      table: this.table.finish(),
      pathOf: this.pathOf,
      summary: this.summary,
      ...(stopped === undefined ? {} : { stopped }),
      ...(checkpoint === undefined ? {} : { checkpoint }),
    };
  }

  /** prepare_revision_walk: each tip peeled; tags and non-commits become pending, commits the walk's start. */
  private peelTips(): void {
    for (const tip of this.refs.tips) {
      let id = this.locate(Buffer.from(tip.oidHex, 'hex'), 0);
      for (let depth = 0; id >= 0 && this.typeOf(id) === OBJ_TAG && depth < MAX_TAG_DEPTH; depth++) {
        const content = this.read(id);
        const tag = content ? parseTag(content, this.hashSize) : undefined;
        if (!tag) {
          if (content) this.note(`${this.describe(id)} is not a well-formed tag`);
          id = -2;
          break;
        }
        this.pending.push({ id, tagName: tag.name });
        id = this.locate(tag.object, 0);
      }
      if (id === -2) continue;
      if (id < 0) {
        this.summary.missing++;
        this.note(`${tip.name} (${tip.oidHex}) leads to an object in no pack`);
        continue;
      }
      const type = this.typeOf(id);
      if (type === OBJ_COMMIT) {
        if (!this.isSeen(id)) {
          this.markSeen(id);
          this.enqueueCommit(id);
        }
      } else if (type === OBJ_TREE || type === OBJ_BLOB) {
        this.pending.push({ id });
      }
    }
  }

  /** get_revision(): newest first; a parent goes after every queued commit of its date. */
  private walkCommits(): void {
    const { heap, summary } = this;
    while (heap.length > 0) {
      // Before the pop: a walk stopped here has the commit still queued.
      this.checkpoint({ phase: 'commits', done: summary.commits, total: this.totals.commits });
      const commit = heapPop(heap);
      summary.commits++;
      const info = this.commitInfo.get(commit.id)!;
      this.commitInfo.delete(commit.id);
      if (info.tree >= 0) this.pending.push({ id: info.tree });
      else {
        summary.missing++;
        this.note(`the root tree of ${this.describe(commit.id)} is in no pack`);
      }
      for (const parent of info.parents) {
        if (this.isSeen(parent)) continue;
        this.markSeen(parent);
        this.enqueueCommit(parent);
      }
    }
  }

  /** A commit's tree and parents (none for a shallow one), or undefined when it cannot be read or parsed. */
  private readCommit(id: number): ParsedCommit | undefined {
    const content = this.read(id);
    if (!content) return undefined;
    const parsed = parseCommit(content, this.hashSize, this.locateId);
    if (!parsed) {
      this.note(`${this.describe(id)} is not a well-formed commit (no tree line)`);
      return undefined;
    }
    if (this.options.shallow?.has(this.oidHexOf(id))) parsed.parents = [];
    return parsed;
  }

  private enqueueCommit(id: number): void {
    const parsed = this.readCommit(id);
    if (!parsed) return;
    this.summary.missing += parsed.missingParents;
    if (parsed.missingParents > 0)
      this.note(
        `${this.describe(id)} has ${parsed.missingParents} parent${parsed.missingParents === 1 ? '' : 's'} in no pack`,
      );
    this.commitInfo.set(id, { tree: parsed.tree, parents: parsed.parents });
    heapPush(this.heap, { id, date: parsed.date, seq: this.seq++ });
  }

  /** traverse_trees_and_blobs: the pending list in order, each tree pre-order. */
  private walkPending(): void {
    const { pending } = this;
    for (; this.pendingAt < pending.length; this.pendingAt++) {
      const item = pending[this.pendingAt]!;
      if (this.isSeen(item.id)) continue;
      const type = this.typeOf(item.id);
      if (item.tagName) {
        this.markSeen(item.id);
        const node = this.table.intern(0, item.tagName, 0, item.tagName.length);
        if (node >= 0) this.name(item.id, node);
        continue;
      }
      if (type === OBJ_BLOB) {
        this.markSeen(item.id);
        this.name(item.id, 0);
        continue;
      }
      if (type !== OBJ_TREE) {
        this.note(`${this.describe(item.id)} is named as a tree`);
        continue;
      }
      this.walkTree(item.id);
    }
  }

  /**
   * One root tree, pre-order: each entry in tree order, a subtree entered as soon as it is met. The
   * loop over entries is the walk's hot path (tens of millions of entries on git/git, most of them
   * objects already seen): it reads each entry in place, with no string or buffer per entry, and
   * looks its id up by hash; only an entry not seen before leaves the loop (visitEntry).
   */
  private walkTree(root: number): void {
    this.enterTree(root, 0, 0);
    this.walkStack();
  }

  // Stays long: the walk's hot loop over tree entries, its state in locals (see walkTree).
  private walkStack(): void {
    const { stack, hashSize, seen, lookup } = this;
    while (stack.length > 0) {
      const frame = stack[stack.length - 1]!;
      const { content } = frame;
      const end = content.length;
      let at = frame.at;
      let problem: string | undefined;
      const depth = stack.length;
      while (at < end) {
        if (frame.before !== undefined) {
          at = skipSameAsBefore(frame, at, hashSize);
          if (at >= end) break;
        }
        const entryAt = at;
        // `<octal mode> <name>\0<id>`, every part bounds-checked against the tree's end.
        let mode = 0;
        let i = at;
        for (; i < end; i++) {
          const c = content[i]!;
          if (c === 0x20) break;
          if (c < 0x30 || c > 0x37 || i - at >= 7) break;
          mode = mode * 8 + (c - 0x30);
        }
        if (i === at || i >= end || content[i] !== 0x20) {
          problem = 'malformed mode';
          break;
        }
        const nameAt = i + 1;
        let nameEnd = nameAt;
        while (nameEnd < end && content[nameEnd] !== 0) nameEnd++;
        if (nameEnd >= end) {
          problem = 'entry name runs past the end';
          break;
        }
        if (nameEnd === nameAt) {
          problem = 'empty entry name';
          break;
        }
        const oidAt = nameEnd + 1;
        if (oidAt + hashSize > end) {
          problem = 'entry id runs past the end';
          break;
        }
        at = oidAt + hashSize;
        if (frame.before !== undefined)
          frame.beforeAt = realign(frame.before, frame.beforeAt, content, nameAt, nameEnd, hashSize);
        const kind = mode & 0o170000;
        // canon_mode: regular files and symlinks are blobs, directories trees, anything else a gitlink.
        const isTree = kind === 0o040000;
        if (!isTree && kind !== 0o100000 && kind !== 0o120000) continue;
        let child = lookup.find(content, oidAt);
        if (child >= 0 && seen[child] === 1) continue;
        if (child < 0) child = this.locateLoose(content, oidAt);
        // A walk stopped inside visitEntry goes on from this entry (its object untouched yet).
        frame.at = entryAt;
        this.visitEntry(frame, child, oidAt, nameAt, nameEnd, isTree);
        frame.at = at;
        // A subtree entered is read first; this tree resumes at `frame.at` afterwards.
        if (stack.length !== depth) break;
      }
      if (problem !== undefined) {
        this.note(`${this.describe(frame.id)}: ${problem} at byte ${at} of the tree`);
        stack.pop();
      } else if (stack.length === depth) {
        frame.at = at;
        stack.pop();
        this.finishTree(frame);
      }
    }
  }

  /** A tree's entry (not a gitlink) whose object was not seen in the packs: named at its path, a subtree entered, unless wrong. */
  private visitEntry(
    frame: TreeFrame,
    child: number,
    oidAt: number,
    nameAt: number,
    nameEnd: number,
    isTree: boolean,
  ): void {
    const { content } = frame;
    if (child < 0) {
      frame.clean = false;
      this.summary.missing++;
      this.note(
        `${this.describe(frame.id)} names ${Buffer.from(content.subarray(oidAt, oidAt + this.hashSize)).toString('hex')}, which is in no pack`,
      );
      return;
    }
    if (this.isSeen(child)) return;
    // A loose blob is not read to learn its type: it is only walked past.
    const childType = child >= this.total && !isTree ? OBJ_BLOB : this.typeOf(child);
    if (childType !== (isTree ? OBJ_TREE : OBJ_BLOB)) {
      frame.clean = false;
      this.note(`${this.describe(frame.id)} names ${this.describe(child)} as a ${isTree ? 'tree' : 'blob'}`);
      return;
    }
    const node = this.table.intern(frame.node, content, nameAt, nameEnd);
    if (node < 0) {
      frame.clean = false;
      this.note(
        `${this.describe(frame.id)} has an entry whose path is longer than ${this.limits.maxPathBytes} bytes: not named`,
      );
      return;
    }
    if (!isTree) {
      this.markSeen(child);
      this.name(child, node);
    } else if (frame.depth + 1 > this.limits.maxTreeDepth) {
      frame.clean = false;
      this.note(`${this.describe(child)} is nested deeper than ${this.limits.maxTreeDepth} trees: not entered`);
    } else {
      this.enterTree(child, node, frame.depth + 1);
    }
  }

  private enterTree(id: number, node: number, depth: number): void {
    // The checkpoint and the read (which a read budget may stop) come before anything is marked:
    // a walk stopped here has not touched the tree.
    this.checkpoint({ phase: 'trees', done: this.summary.trees, total: this.totals.trees });
    const content = this.read(id);
    this.markSeen(id);
    this.name(id, node);
    this.summary.trees++;
    if (content) {
      const before = this.treeBefore.get(node);
      this.stack.push({ content, at: 0, node, depth, id, before, beforeAt: 0, clean: true });
    }
  }

  /** A tree whose every entry is now seen: the next tree at its path compares its entries with it. */
  private finishTree(frame: TreeFrame): void {
    if (!frame.clean) return;
    const old = this.treeBefore.get(frame.node);
    const bytes = this.treeBeforeBytes - (old?.length ?? 0) + frame.content.length;
    if (bytes > BEFORE_TREES_MAX_BYTES) return;
    this.treeBefore.set(frame.node, frame.content);
    this.treeBeforeBytes = bytes;
  }

  private note(message: string): void {
    this.summary.complete = false;
    if (this.problems.length < MAX_PROBLEMS) this.problems.push(message);
  }

  private packOf(id: number): number {
    return packOfNumber(this.bases, id);
  }

  private isSeen(id: number): boolean {
    return id < this.total ? this.seen[id] === 1 : this.looseSeen.has(id);
  }

  private markSeen(id: number): void {
    if (id < this.total) this.seen[id] = 1;
    else this.looseSeen.add(id);
  }

  /** The id of the object whose binary id is at `bytes[at]`: in a pack, else loose, else −1. */
  private locate(bytes: Uint8Array, at: number): number {
    const id = this.lookup.find(bytes, at);
    return id >= 0 ? id : this.locateLoose(bytes, at);
  }

  /** The id of a loose object (numbered from `total` as met), or −1. */
  private locateLoose(bytes: Uint8Array, at: number): number {
    if (this.looseDirs.length === 0) return -1;
    const oidHex = Buffer.from(bytes.buffer, bytes.byteOffset + at, this.hashSize).toString('hex');
    const known = this.looseIds.get(oidHex);
    if (known !== undefined) return known;
    const file = looseObjectFile(this.looseDirs, oidHex);
    if (file === undefined) return -1;
    const id = this.total + this.loose.length;
    this.loose.push({ oidHex, file, type: undefined });
    this.looseIds.set(oidHex, id);
    return id;
  }

  private readLoose(id: number): Buffer | undefined {
    const object = this.loose[id - this.total]!;
    try {
      const { type, content } = readLooseObject(object.file, this.limits.maxObjectBytes);
      object.type = type;
      return content;
    } catch (error) {
      this.note(`loose object ${object.oidHex} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  }

  private typeOf(id: number): number {
    if (id >= this.total) {
      const object = this.loose[id - this.total]!;
      if (object.type === undefined) this.readLoose(id);
      return object.type ?? 0;
    }
    const p = this.packOf(id);
    return this.models[p]!.columns.type[id - this.bases[p]!]!;
  }

  private describe(id: number): string {
    const { total, loose } = this;
    if (id >= total) return `loose object ${loose[id - total]!.oidHex} (${loose[id - total]!.file})`;
    const p = this.packOf(id);
    const model = this.models[p]!;
    const n = id - this.bases[p]!;
    return `${model.typeName(n)} ${model.oidHex(n)} (${model.files.pack} at offset ${model.columns.offset[n]})`;
  }

  private oidHexOf(id: number): string {
    if (id >= this.total) return this.loose[id - this.total]!.oidHex;
    const p = this.packOf(id);
    return this.models[p]!.oidHex(id - this.bases[p]!);
  }

  private read(id: number): Buffer | undefined {
    if (id >= this.total) return this.readLoose(id);
    const p = this.packOf(id);
    try {
      return this.reader.read(p, id - this.bases[p]!);
    } catch (error) {
      if (error instanceof ReadBudgetExceeded) throw error;
      this.note(`${this.describe(id)} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  }

  /** Gives a packed object its path node (a loose one has no pack to be named in). */
  private name(id: number, node: number): void {
    if (id >= this.total) return;
    const p = this.packOf(id);
    this.pathOf[p]![id - this.bases[p]!] = node;
    this.summary.named++;
  }

  /** Every PROGRESS_EVERY steps: cancellation, the time bound, and progress. */
  private checkpoint(progress: PathWalkProgress): void {
    if (++this.ticks % PROGRESS_EVERY !== 0) return;
    if (this.options.signal?.aborted) throw new PathWalkCancelled('the path walk was cancelled');
    if (performance.now() - this.started > this.limits.maxMs)
      throw new ReadBudgetExceeded(`took more than ${this.limits.maxMs} ms`);
    this.options.onProgress?.(progress);
  }
}

/** The path rev-list names object `n` of `model` by, when the walk reached it. */
export function pathOfObject(paths: ObjectPaths, pack: number, n: number): string | undefined {
  const node = paths.pathOf[pack]?.[n] ?? -1;
  return node < 0 ? undefined : paths.table.path(node);
}

interface ParsedCommit {
  tree: number;
  parents: number[];
  missingParents: number;
  date: number;
}

/**
 * A commit's tree, parents and committer date as parse_commit_buffer reads them: `tree <hex>` first,
 * then `parent <hex>` lines; the date is parse_commit_date's (the number after the last `>` of the
 * committer line that follows the author line; 0 when the header is not that shape).
 */
function parseCommit(
  content: Buffer,
  hashSize: number,
  locate: (bytes: Uint8Array, at: number) => number,
): ParsedCommit | undefined {
  const hexLength = hashSize * 2;
  if (content.toString('latin1', 0, 5) !== 'tree ' || content[5 + hexLength] !== 0x0a) return undefined;
  const tree = locate(Buffer.from(content.toString('latin1', 5, 5 + hexLength), 'hex'), 0);
  let at = 6 + hexLength;
  const parents: number[] = [];
  let missingParents = 0;
  while (content.toString('latin1', at, at + 7) === 'parent ' && content[at + 7 + hexLength] === 0x0a) {
    const hex = content.toString('latin1', at + 7, at + 7 + hexLength);
    const parent = /^[0-9a-f]+$/.test(hex) ? locate(Buffer.from(hex, 'hex'), 0) : -1;
    if (parent >= 0) parents.push(parent);
    else missingParents++;
    at += 8 + hexLength;
  }
  return { tree, parents, missingParents, date: parseCommitDate(content, at) };
}

function parseCommitDate(content: Buffer, at: number): number {
  if (content.toString('latin1', at, at + 6) !== 'author') return 0;
  const authorEnd = content.indexOf(0x0a, at);
  if (authorEnd < 0) return 0;
  const line = authorEnd + 1;
  if (content.toString('latin1', line, line + 9) !== 'committer') return 0;
  const end = content.indexOf(0x0a, line);
  if (end < 0) return 0;
  let date = end;
  while (date > line && content[date - 1] !== 0x3e) date--;
  if (date === line) return 0;
  const match = /^[ \t]*(-?\d+)/.exec(content.toString('latin1', date, end));
  return match ? Number(match[1]) : 0;
}

/** An annotated tag's target id and `tag` name (parse_tag_buffer: object, type, tag lines in that order). */
function parseTag(content: Buffer, hashSize: number): { object: Buffer; name: Buffer } | undefined {
  const hexLength = hashSize * 2;
  if (content.toString('latin1', 0, 7) !== 'object ' || content[7 + hexLength] !== 0x0a) return undefined;
  const hex = content.toString('latin1', 7, 7 + hexLength);
  if (!/^[0-9a-f]+$/.test(hex)) return undefined;
  const typeLine = 8 + hexLength;
  if (content.toString('latin1', typeLine, typeLine + 5) !== 'type ') return undefined;
  const typeEnd = content.indexOf(0x0a, typeLine);
  if (typeEnd < 0) return undefined;
  const tagLine = typeEnd + 1;
  if (content.toString('latin1', tagLine, tagLine + 4) !== 'tag ') return undefined;
  const tagEnd = content.indexOf(0x0a, tagLine);
  if (tagEnd < 0) return undefined;
  return { object: Buffer.from(hex, 'hex'), name: content.subarray(tagLine + 4, tagEnd) };
}

/**
 * Skips the entries from `at` that are byte for byte the entries of the tree walked before at the
 * same path, from `frame.beforeAt` (a commit changes a few entries of each tree it touches; the
 * rest are the objects the tree before named). Every entry of that tree was seen once it was
 * walked (finishTree keeps only such trees), and seen stays seen, so skipping them is what looking
 * each one up would have decided, for a compare of bytes that are in cache instead of a lookup.
 * Both offsets are entry starts, so an entry equal to the one before parses the same. Returns
 * where the first entry that differs starts.
 */
function skipSameAsBefore(frame: TreeFrame, at: number, hashSize: number): number {
  const before = frame.before!;
  const { content } = frame;
  const end = content.length;
  const beforeEnd = before.length;
  let from = frame.beforeAt;
  while (at < end && from < beforeEnd) {
    // The entry before ends `hashSize` bytes after its first NUL (it parsed when it was walked).
    let k = 0;
    while (from + k < beforeEnd && before[from + k] !== 0 && content[at + k] === before[from + k]) k++;
    if (from + k >= beforeEnd || before[from + k] !== 0 || content[at + k] !== 0) break;
    const entryLength = k + 1 + hashSize;
    if (at + entryLength > end || from + entryLength > beforeEnd) break;
    for (k++; k < entryLength && content[at + k] === before[from + k]; k++);
    if (k < entryLength) break;
    at += entryLength;
    from += entryLength;
  }
  frame.beforeAt = from;
  return at;
}

/**
 * After an entry that differs from the tree before: where that tree's entries line up again, by
 * name (an entry changed in place is stepped over, one removed since is passed, one added waits).
 * A wrong guess costs only speed: skipSameAsBefore skips nothing that is not equal.
 */
function realign(
  before: Buffer,
  beforeAt: number,
  content: Buffer,
  nameAt: number,
  nameEnd: number,
  hashSize: number,
): number {
  let at = beforeAt;
  while (at < before.length) {
    const space = before.indexOf(0x20, at);
    const nul = space < 0 ? -1 : before.indexOf(0, space + 1);
    if (nul < 0 || nul + 1 + hashSize > before.length) return before.length;
    // > 0: the tree before has this name later (an entry added); 0: the same name; < 0: one removed.
    const order = before.compare(content, nameAt, nameEnd, space + 1, nul);
    if (order > 0) return at;
    at = nul + 1 + hashSize;
    if (order === 0) return at;
  }
  return at;
}

function heapPush(heap: CommitEntry[], entry: CommitEntry): void {
  heap.push(entry);
  let i = heap.length - 1;
  while (i > 0) {
    const up = (i - 1) >> 1;
    if (!before(heap[i]!, heap[up]!)) break;
    [heap[i], heap[up]] = [heap[up]!, heap[i]!];
    i = up;
  }
}

function heapPop(heap: CommitEntry[]): CommitEntry {
  const top = heap[0]!;
  const last = heap.pop()!;
  if (heap.length > 0) {
    heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let best = i;
      if (l < heap.length && before(heap[l]!, heap[best]!)) best = l;
      if (r < heap.length && before(heap[r]!, heap[best]!)) best = r;
      if (best === i) break;
      [heap[i], heap[best]] = [heap[best]!, heap[i]!];
      i = best;
    }
  }
  return top;
}

/**
 * commit_list_insert_by_date keeps the queue newest first and puts a commit after those of its own
 * date: a heap on (date descending, insertion order) pops the same sequence.
 */
function before(a: CommitEntry, b: CommitEntry): boolean {
  return a.date !== b.date ? a.date > b.date : a.seq < b.seq;
}

/** What a walk over a whole object store starts from, and what its result depends on. */
export interface StoreWalkInputs {
  packs: PackLocation[];
  models: PackModel[];
  refs: RefTips;
  shallow: Set<string>;
  looseObjectDirs: string[];
}

/**
 * The inputs of the walk over a store: its readable packs in git's search order, its loose objects
 * and those of its alternates, its refs (refs.ts) and its `shallow` file.
 */
export function storeWalkInputs(store: ObjectStore): StoreWalkInputs {
  const packs = store.packs.filter((pack) => !store.isUnreadable(pack));
  const repository = store.repository;
  const shallowText = readRepositoryTextFile(path.join(repository.commonDir, 'shallow'), SHALLOW_FILE_MAX_BYTES);
  return {
    packs,
    models: packs.map((pack) => store.model(pack)),
    refs: readRefTips(repository),
    shallow: new Set(
      (shallowText ?? '')
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== ''),
    ),
    looseObjectDirs: [repository.objectsDir, ...alternateObjectDirs(repository.objectsDir)],
  };
}

/** The walk over a whole object store; `pathOf[i]` is `inputs.packs[i]`'s. */
export function walkStorePaths(
  inputs: StoreWalkInputs,
  options: Omit<PathWalkOptions, 'shallow' | 'looseObjectDirs'> = {},
): ObjectPaths {
  return walkObjectPaths(inputs.models, inputs.refs, {
    ...options,
    shallow: inputs.shallow,
    looseObjectDirs: inputs.looseObjectDirs,
  });
}
