import { errorMessage } from '../../common/error-message.ts';
import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import * as path from 'node:path';
import { readRepositoryTextFile } from '../format/checked-file.ts';
import { OBJ_BLOB, OBJ_COMMIT, OBJ_TAG, OBJ_TREE } from '../format/pack-file.ts';
import type { PathWalkSummary } from '../report/object-paths-document.ts';
import { CachedObjectReader, ReadBudgetExceeded } from './cached-object-reader.ts';
import { looseObjectFile, readLooseObject } from './loose-object.ts';
import type { PackModel } from './pack-model.ts';
import { type PathTable, PathTableBuilder } from './path-table.ts';
import { alternateObjectDirs, type ObjectStore, type PackLocation } from './object-store.ts';
import { readRefTips, type RefTips } from './refs.ts';

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
}

export interface PathWalkProgress {
  phase: 'commits' | 'trees';
  done: number;
  /** Commits or trees in the packs: the most the phase can reach. */
  total: number;
}

export interface PathWalkOptions {
  limits?: Partial<PathWalkLimits>;
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
  const started = performance.now();
  const limits = { ...DEFAULT_PATH_WALK_LIMITS, ...options.limits };
  const bases: number[] = [];
  let total = 0;
  for (const model of models) {
    bases.push(total);
    total += model.count;
  }
  const seen = new Uint8Array(total);
  const pathOf = models.map((model) => new Int32Array(model.count).fill(-1));
  const table = new PathTableBuilder(limits.maxPathBytes);
  const reader = new CachedObjectReader(models, {
    maxObjectBytes: limits.maxObjectBytes,
    maxRebuiltBytes: limits.maxRebuiltBytes,
    cacheBytes: limits.cacheBytes,
  });
  const problems = [...refs.problems];
  const summary: PathWalkSummary = {
    rule: PATH_RULE,
    tips: refs.tips.length,
    commits: 0,
    trees: 0,
    named: 0,
    missing: 0,
    complete: true,
    problems,
    bytesRebuilt: 0,
    elapsedMs: 0,
  };
  const totals = { commits: 0, trees: 0 };
  for (const model of models) {
    const counts = model.counts().byType;
    totals.commits += counts.commit!;
    totals.trees += counts.tree!;
  }
  const hashSize = models[0]?.hash.size ?? 20;
  let stopped: string | undefined;
  const note = (message: string): void => {
    summary.complete = false;
    if (problems.length < MAX_PROBLEMS) problems.push(message);
  };
  const packOf = (id: number): number => {
    let low = 0;
    let high = bases.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >>> 1;
      if (bases[mid]! <= id) low = mid;
      else high = mid - 1;
    }
    return low;
  };
  // Loose objects get the ids from `total` up; they are walked through but have no pack to be named in.
  const looseDirs = options.looseObjectDirs ?? [];
  const looseIds = new Map<string, number>();
  const loose: { oidHex: string; file: string; type: number | undefined }[] = [];
  const looseSeen = new Set<number>();
  const isSeen = (id: number): boolean => (id < total ? seen[id] === 1 : looseSeen.has(id));
  const markSeen = (id: number): void => {
    if (id < total) seen[id] = 1;
    else looseSeen.add(id);
  };
  const locate = (bytes: Uint8Array, at: number): number => {
    for (let p = 0; p < models.length; p++) {
      const n = models[p]!.index.find(bytes, at);
      if (n >= 0) return bases[p]! + n;
    }
    if (looseDirs.length === 0) return -1;
    const oidHex = Buffer.from(bytes.buffer, bytes.byteOffset + at, hashSize).toString('hex');
    const known = looseIds.get(oidHex);
    if (known !== undefined) return known;
    const file = looseObjectFile(looseDirs, oidHex);
    if (file === undefined) return -1;
    const id = total + loose.length;
    loose.push({ oidHex, file, type: undefined });
    looseIds.set(oidHex, id);
    return id;
  };
  const readLoose = (id: number): Buffer | undefined => {
    const object = loose[id - total]!;
    try {
      const { type, content } = readLooseObject(object.file, limits.maxObjectBytes);
      object.type = type;
      return content;
    } catch (error) {
      note(`loose object ${object.oidHex} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  };
  const typeOf = (id: number): number => {
    if (id >= total) {
      const object = loose[id - total]!;
      if (object.type === undefined) readLoose(id);
      return object.type ?? 0;
    }
    const p = packOf(id);
    return models[p]!.columns.type[id - bases[p]!]!;
  };
  const describe = (id: number): string => {
    if (id >= total) return `loose object ${loose[id - total]!.oidHex} (${loose[id - total]!.file})`;
    const p = packOf(id);
    const model = models[p]!;
    const n = id - bases[p]!;
    return `${model.typeName(n)} ${model.oidHex(n)} (${model.files.pack} at offset ${model.columns.offset[n]})`;
  };
  const read = (id: number): Buffer | undefined => {
    if (id >= total) return readLoose(id);
    const p = packOf(id);
    try {
      return reader.read(p, id - bases[p]!);
    } catch (error) {
      if (error instanceof ReadBudgetExceeded) throw error;
      note(`${describe(id)} could not be read: ${errorMessage(error)}`);
      return undefined;
    }
  };
  const name = (id: number, node: number): void => {
    if (id >= total) return;
    const p = packOf(id);
    pathOf[p]![id - bases[p]!] = node;
    summary.named++;
  };
  let ticks = 0;
  const checkpoint = (progress: PathWalkProgress): void => {
    if (++ticks % PROGRESS_EVERY !== 0) return;
    if (options.signal?.aborted) throw new PathWalkCancelled('the path walk was cancelled');
    if (performance.now() - started > limits.maxMs) throw new ReadBudgetExceeded(`took more than ${limits.maxMs} ms`);
    options.onProgress?.(progress);
  };

  try {
    if (options.signal?.aborted) throw new PathWalkCancelled('the path walk was cancelled');
    // prepare_revision_walk: each tip peeled; tags and non-commits become pending, commits the walk's start.
    const pending: { id: number; tagName?: Buffer }[] = [];
    let seq = 0;
    const heap: CommitEntry[] = [];
    const commitInfo = new Map<number, { tree: number; parents: number[] }>();
    const enqueue = (id: number): void => {
      const content = read(id);
      if (!content) return;
      const parsed = parseCommit(content, hashSize, locate);
      if (!parsed) {
        note(`${describe(id)} is not a well-formed commit (no tree line)`);
        return;
      }
      if (options.shallow?.has(oidHexOf(id))) parsed.parents = [];
      summary.missing += parsed.missingParents;
      if (parsed.missingParents > 0)
        note(`${describe(id)} has ${parsed.missingParents} parent${parsed.missingParents === 1 ? '' : 's'} in no pack`);
      commitInfo.set(id, { tree: parsed.tree, parents: parsed.parents });
      heapPush(heap, { id, date: parsed.date, seq: seq++ });
    };
    const oidHexOf = (id: number): string => {
      if (id >= total) return loose[id - total]!.oidHex;
      const p = packOf(id);
      return models[p]!.oidHex(id - bases[p]!);
    };
    for (const tip of refs.tips) {
      let id = locate(Buffer.from(tip.oidHex, 'hex'), 0);
      for (let depth = 0; id >= 0 && typeOf(id) === OBJ_TAG && depth < MAX_TAG_DEPTH; depth++) {
        const content = read(id);
        const tag = content ? parseTag(content, hashSize) : undefined;
        if (!tag) {
          if (content) note(`${describe(id)} is not a well-formed tag`);
          id = -2;
          break;
        }
        pending.push({ id, tagName: tag.name });
        id = locate(tag.object, 0);
      }
      if (id === -2) continue;
      if (id < 0) {
        summary.missing++;
        note(`${tip.name} (${tip.oidHex}) leads to an object in no pack`);
        continue;
      }
      const type = typeOf(id);
      if (type === OBJ_COMMIT) {
        if (!isSeen(id)) {
          markSeen(id);
          enqueue(id);
        }
      } else if (type === OBJ_TREE || type === OBJ_BLOB) {
        pending.push({ id });
      }
    }
    // get_revision(): newest first; a parent goes after every queued commit of its date.
    while (heap.length > 0) {
      const commit = heapPop(heap);
      summary.commits++;
      checkpoint({ phase: 'commits', done: summary.commits, total: totals.commits });
      const info = commitInfo.get(commit.id)!;
      commitInfo.delete(commit.id);
      if (info.tree >= 0) pending.push({ id: info.tree });
      else {
        summary.missing++;
        note(`the root tree of ${describe(commit.id)} is in no pack`);
      }
      for (const parent of info.parents) {
        if (isSeen(parent)) continue;
        markSeen(parent);
        enqueue(parent);
      }
    }

    // traverse_trees_and_blobs: the pending list in order, each tree pre-order.
    const stack: { content: Buffer; at: number; node: number; depth: number; id: number }[] = [];
    const enterTree = (id: number, node: number, depth: number): void => {
      markSeen(id);
      name(id, node);
      summary.trees++;
      checkpoint({ phase: 'trees', done: summary.trees, total: totals.trees });
      const content = read(id);
      if (content) stack.push({ content, at: 0, node, depth, id });
    };
    for (const item of pending) {
      if (isSeen(item.id)) continue;
      const type = typeOf(item.id);
      if (item.tagName) {
        markSeen(item.id);
        const node = table.intern(0, item.tagName, 0, item.tagName.length);
        if (node >= 0) name(item.id, node);
        continue;
      }
      if (type === OBJ_BLOB) {
        markSeen(item.id);
        name(item.id, 0);
        continue;
      }
      if (type !== OBJ_TREE) {
        note(`${describe(item.id)} is named as a tree`);
        continue;
      }
      enterTree(item.id, 0, 0);
      while (stack.length > 0) {
        const frame = stack[stack.length - 1]!;
        const { content } = frame;
        if (frame.at >= content.length) {
          stack.pop();
          continue;
        }
        const entry = parseTreeEntry(content, frame.at, hashSize);
        if (typeof entry === 'string') {
          note(`${describe(frame.id)}: ${entry} at byte ${frame.at} of the tree`);
          stack.pop();
          continue;
        }
        frame.at = entry.next;
        const kind = entry.mode & 0o170000;
        // canon_mode: regular files and symlinks are blobs, directories trees, anything else a gitlink.
        const isTree = kind === 0o040000;
        if (!isTree && kind !== 0o100000 && kind !== 0o120000) continue;
        const child = locate(content, entry.oidAt);
        if (child < 0) {
          summary.missing++;
          note(
            `${describe(frame.id)} names ${Buffer.from(content.subarray(entry.oidAt, entry.oidAt + hashSize)).toString('hex')}, which is in no pack`,
          );
          continue;
        }
        if (isSeen(child)) continue;
        // A loose blob is not read to learn its type: it is only walked past.
        const childType = child >= total && !isTree ? OBJ_BLOB : typeOf(child);
        if (childType !== (isTree ? OBJ_TREE : OBJ_BLOB)) {
          note(`${describe(frame.id)} names ${describe(child)} as a ${isTree ? 'tree' : 'blob'}`);
          continue;
        }
        const node = table.intern(frame.node, content, entry.nameAt, entry.nameEnd);
        if (node < 0) {
          note(`${describe(frame.id)} has an entry whose path is longer than ${limits.maxPathBytes} bytes: not named`);
          continue;
        }
        if (!isTree) {
          markSeen(child);
          name(child, node);
        } else if (frame.depth + 1 > limits.maxTreeDepth) {
          note(`${describe(child)} is nested deeper than ${limits.maxTreeDepth} trees: not entered`);
        } else {
          enterTree(child, node, frame.depth + 1);
        }
      }
    }
  } catch (error) {
    if (!(error instanceof ReadBudgetExceeded)) throw error;
    stopped = error.message;
    note(`the walk stopped early: it ${error.message}; the names given so far are git's`);
  } finally {
    summary.bytesRebuilt = reader.bytesRebuilt;
    reader.close();
  }
  summary.elapsedMs = performance.now() - started;
  return { table: table.finish(), pathOf, summary, ...(stopped === undefined ? {} : { stopped }) };
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

/** One tree entry (`<octal mode> <name>\0<id>`), bounds-checked; a string says what is wrong. */
function parseTreeEntry(
  content: Buffer,
  at: number,
  hashSize: number,
): { mode: number; nameAt: number; nameEnd: number; oidAt: number; next: number } | string {
  let mode = 0;
  let i = at;
  for (; i < content.length && content[i] !== 0x20; i++) {
    const c = content[i]!;
    if (c < 0x30 || c > 0x37 || i - at >= 7) return 'malformed mode';
    mode = mode * 8 + (c - 0x30);
  }
  if (i === at || i >= content.length) return 'malformed mode';
  const nameAt = i + 1;
  const nameEnd = content.indexOf(0, nameAt);
  if (nameEnd < 0) return 'entry name runs past the end';
  if (nameEnd === nameAt) return 'empty entry name';
  if (nameEnd + 1 + hashSize > content.length) return 'entry id runs past the end';
  return { mode, nameAt, nameEnd, oidAt: nameEnd + 1, next: nameEnd + 1 + hashSize };
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
