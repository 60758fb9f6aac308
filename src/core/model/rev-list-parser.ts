import { OBJ_COMMIT, OBJ_TREE } from '../format/pack-file.ts';
import { looseObjectFile, readLooseObjectType } from './loose-object.ts';
import { type NamedPack, OidLookup } from './oid-lookup.ts';
import { type PathTable, PathTableBuilder } from './path-table.ts';
import { packOfNumber } from './pack-numbering.ts';

/**
 * `git rev-list --objects --all`'s output, line by line as it streams, into the walk's structure (a
 * path node per packed object, one PathTable): ids decoded from hex into one scratch buffer, paths
 * interned as bytes component by component, reusing the components the line before shared
 * (rev-list prints trees pre-order, so neighbours share most of their path).
 *
 * The packs are not needed to start: a line is parsed and its path interned as it arrives, and its
 * id waits, with its path node, until `resolveWith` gives the packs' names (git can start before
 * the models are open, and this parser can run in a thread that has none); from then on the lines
 * of each chunk are resolved once the chunk is parsed. Anything that would make the names differ
 * from the walk's throws GitNamesUnusable, with the offset of the line in git's output.
 */
export class GitNamesUnusable extends Error {
  override readonly name = 'GitNamesUnusable';
}

/** What resolving ids needs of the packs, in git's search order: their idx names and type columns. */
export interface PackNames {
  packs: readonly NamedPack[];
  types: readonly Uint8Array[];
  /** Objects directories whose loose trees are counted as the walk counts them. */
  looseObjectDirs: readonly string[];
}

/** What the parse found: the names, and the counts of the walk's summary. */
export interface ParsedNames {
  table: PathTable;
  /** Per pack, in the order given: the path node of each object number, −1 for none. */
  pathOf: Int32Array[];
  commits: number;
  trees: number;
  named: number;
  /** The objects rev-list listed as missing (`?<id>`), each once; the first few by id. */
  missing: number;
  missingIds: string[];
}

/** Missing objects named in the summary's problems; the rest are counted. */
export const MAX_MISSING_LISTED = 10;
/** A waiting line's node when the line was `?<id>`. */
const MISSING = -2;
const QUESTION_MARK = 0x3f;

export interface RevListLimits {
  /** Paths longer are refused (the walk would not name them). */
  maxPathBytes: number;
  /** Paths nested deeper are refused (the walk would not enter them). */
  maxTreeDepth: number;
}

/**
 * rev-list's arguments: every ref, HEAD and worktree HEAD (as refs.ts reads them), replace refs not
 * applied (the walk reads commits as stored). `--missing=print`: a tree or blob in no pack and not
 * loose is listed as `?<id>` and passed, as the walk passes it (it names neither it nor anything
 * only it leads to), where git would otherwise stop at the first and leave every name to the walk.
 * A tree that is there but malformed still stops git (the walk names part of it; git's "too-short
 * tree object"), and so does a missing commit.
 */
export function revListNamesArguments(gitDir: string): string[] {
  return [`--git-dir=${gitDir}`, '--no-replace-objects', 'rev-list', '--objects', '--all', '--missing=print'];
}

const HEX_VALUE = (() => {
  const table = new Int8Array(256).fill(-1);
  for (let i = 0; i < 10; i++) table[0x30 + i] = i;
  for (let i = 0; i < 6; i++) table[0x61 + i] = 10 + i;
  return table;
})();

const NEWLINE = 0x0a;
const SPACE = 0x20;
const SLASH = 0x2f;
/** A line longer than this is not rev-list's (an id, a space and a path of at most the walk's cap). */
const MAX_LINE_BYTES = 64 * 1024;

/** Lines parsed before the packs' names came: their ids, path nodes and offsets in git's output. */
class WaitingLines {
  ids: Uint8Array;
  nodes = new Int32Array(1024);
  offsets = new Float64Array(1024);
  count = 0;

  constructor(private readonly hashSize: number) {
    this.ids = new Uint8Array(1024 * hashSize);
  }

  push(id: Uint8Array, node: number, offset: number): void {
    if (this.count === this.nodes.length) {
      const nodes = new Int32Array(this.count * 2);
      nodes.set(this.nodes);
      this.nodes = nodes;
      const offsets = new Float64Array(this.count * 2);
      offsets.set(this.offsets);
      this.offsets = offsets;
      const ids = new Uint8Array(this.count * 2 * this.hashSize);
      ids.set(this.ids);
      this.ids = ids;
    }
    this.ids.set(id, this.count * this.hashSize);
    this.nodes[this.count] = node;
    this.offsets[this.count] = offset;
    this.count++;
  }
}

interface Resolver {
  lookup: OidLookup;
  bases: number[];
  pathOf: Int32Array[];
  names: PackNames;
}

export class RevListParser {
  private readonly table: PathTableBuilder;
  private readonly id: Uint8Array;
  /** The bytes after the last full line, waiting for the rest of their line. */
  private carry: Buffer = Buffer.alloc(0);
  /** Bytes read so far (for error offsets). */
  private offset = 0;
  /** The previous line's path (its first bytes), and per component its end in it and its node. */
  private readonly last = Buffer.alloc(MAX_LINE_BYTES);
  private readonly lastEnds: number[] = [];
  private readonly lastNodes: number[] = [];
  private lines = 0;
  private commits = 0;
  private trees = 0;
  private named = 0;
  private missing = 0;
  private readonly missingIds: string[] = [];
  private readonly waiting: WaitingLines;
  private resolver: Resolver | undefined;

  constructor(
    private readonly hashSize: number,
    private readonly limits: RevListLimits,
  ) {
    this.table = new PathTableBuilder(limits.maxPathBytes);
    this.id = new Uint8Array(hashSize);
    this.waiting = new WaitingLines(hashSize);
  }

  /** The packs' names: every line parsed so far is resolved now, every later one as it is parsed. */
  resolveWith(names: PackNames): void {
    const bases: number[] = [];
    let total = 0;
    for (const pack of names.packs) {
      bases.push(total);
      total += pack.count;
    }
    this.resolver = {
      lookup: new OidLookup(names.packs),
      bases,
      pathOf: names.packs.map((pack) => new Int32Array(pack.count).fill(-1)),
      names,
    };
    this.resolveWaiting();
  }

  /** The lines parsed since the last call (a chunk's, once the packs are given), resolved in one pass. */
  private resolveWaiting(): void {
    const { waiting, hashSize } = this;
    for (let i = 0; i < waiting.count; i++)
      this.resolve(waiting.ids, i * hashSize, waiting.nodes[i]!, waiting.offsets[i]!);
    waiting.count = 0;
  }

  feed(chunk: Buffer): void {
    let bytes = chunk;
    let from = 0;
    if (this.carry.length > 0) {
      const end = chunk.indexOf(NEWLINE);
      if (end < 0) {
        this.carry = Buffer.concat([this.carry, chunk]);
        if (this.carry.length > MAX_LINE_BYTES) this.unusable(this.offset, 'a line longer than any path git names');
        return;
      }
      // Only the one line split across chunks is copied.
      bytes = Buffer.concat([this.carry, chunk.subarray(0, end + 1)]);
      this.line(bytes, 0, bytes.length - 1);
      this.offset += bytes.length;
      this.carry = Buffer.alloc(0);
      bytes = chunk;
      from = end + 1;
    }
    for (;;) {
      const end = bytes.indexOf(NEWLINE, from);
      if (end < 0) break;
      this.line(bytes, from, end);
      this.offset += end + 1 - from;
      from = end + 1;
    }
    if (from < bytes.length) {
      this.carry = Buffer.from(bytes.subarray(from));
      if (this.carry.length > MAX_LINE_BYTES) this.unusable(this.offset, 'a line longer than any path git names');
    }
    if (this.resolver !== undefined) this.resolveWaiting();
  }

  /** Lines of git's output parsed so far: the objects git has listed (a progress count). */
  get linesParsed(): number {
    return this.lines;
  }

  /** The names, once git's output has ended and the packs' names were given. */
  finish(): ParsedNames {
    if (this.carry.length > 0) this.unusable(this.offset, 'the last line has no newline');
    if (this.resolver === undefined) throw new Error('the packs were never given to the rev-list parser');
    return {
      table: this.table.finish(),
      pathOf: this.resolver.pathOf,
      commits: this.commits,
      trees: this.trees,
      named: this.named,
      missing: this.missing,
      missingIds: this.missingIds,
    };
  }

  /** `<hex id>` (a commit) or `<hex id> <path>` (anything else), bytes[from, end). */
  private line(bytes: Buffer, from: number, end: number): void {
    this.lines++;
    // Checked here too, not only on a carried part: a long line that arrives whole in one chunk is
    // refused for its length as one split across chunks is, whatever the pipe's chunk sizes were.
    if (end - from > MAX_LINE_BYTES) this.unusable(this.offset, 'a line longer than any path git names');
    const { hashSize, id } = this;
    const missing = bytes[from] === QUESTION_MARK;
    if (missing) from++;
    const idEnd = from + hashSize * 2;
    if (missing && idEnd !== end) this.unusable(this.offset, 'a line is not `?<id>`');
    if (idEnd > end || (idEnd < end && bytes[idEnd] !== SPACE))
      this.unusable(this.offset, 'a line is not `<id> <path>`');
    for (let i = 0; i < hashSize; i++) {
      const high = HEX_VALUE[bytes[from + 2 * i]!]!;
      const low = HEX_VALUE[bytes[from + 2 * i + 1]!]!;
      if (high < 0 || low < 0) this.unusable(this.offset, 'an object id is not lower-case hex');
      id[i] = (high << 4) | low;
    }
    if (missing) {
      this.waiting.push(id, MISSING, this.offset);
      return;
    }
    if (idEnd === end) {
      this.commits++;
      return;
    }
    this.waiting.push(id, this.intern(bytes, idEnd + 1, end), this.offset);
  }

  /** Names the object whose id is at `ids[at]` by path `node`: the first pack holding it, in git's search order. */
  private resolve(ids: Uint8Array, at: number, node: number, offset: number): void {
    const { lookup, bases, pathOf, names } = this.resolver!;
    const object = lookup.find(ids, at);
    const hex = (): string => Buffer.from(ids.buffer, ids.byteOffset + at, this.hashSize).toString('hex');
    if (node === MISSING) {
      // git found it nowhere: a pack or loose file that has it would make git's walk not the walk's.
      const oidHex = hex();
      if (object >= 0 || looseObjectFile(names.looseObjectDirs, oidHex) !== undefined)
        this.unusable(offset, `${oidHex} is listed as missing, and is here`);
      this.missing++;
      if (this.missingIds.length < MAX_MISSING_LISTED) this.missingIds.push(oidHex);
      return;
    }
    // A loose object (in no pack) is walked through by git, as by the walk, but has no pack to be
    // named in; a loose tree is counted as the walk counts the trees it entered.
    if (object < 0) {
      if (this.isLooseTree(names.looseObjectDirs, hex())) this.trees++;
      return;
    }
    const pack = packOfNumber(bases, object);
    const n = object - bases[pack]!;
    const type = names.types[pack]![n]!;
    if (type === OBJ_COMMIT) this.unusable(offset, `commit ${hex()} is printed with a path`);
    if (type === OBJ_TREE) this.trees++;
    const column = pathOf[pack]!;
    // rev-list prints an object once; the same id in a later pack is the first pack's (git's search order).
    if (column[n] !== -1) return;
    column[n] = node;
    this.named++;
  }

  /** The node of the path bytes[from, end): the components shared with the line before reused, the rest interned. */
  private intern(bytes: Buffer, from: number, end: number): number {
    const { last, lastEnds, lastNodes } = this;
    const length = end - from;
    if (length === 0) return 0;
    let shared = 0;
    let componentStart = 0;
    for (; shared < lastEnds.length; shared++) {
      const componentEnd = lastEnds[shared]!;
      if (componentEnd > length || (componentEnd < length && bytes[from + componentEnd] !== SLASH)) break;
      // Byte by byte here: components are short, and a call into Buffer.compare costs more than the loop.
      let k = componentStart;
      while (k < componentEnd && bytes[from + k] === last[k]) k++;
      if (k < componentEnd) break;
      componentStart = componentEnd + 1;
    }
    lastEnds.length = shared;
    lastNodes.length = shared;
    let node = shared === 0 ? 0 : lastNodes[shared - 1]!;
    let at = shared === 0 ? 0 : lastEnds[shared - 1]! + 1;
    if (shared > 0 && lastEnds[shared - 1] === length) return node;
    while (at <= length) {
      let componentEnd = at;
      while (componentEnd < length && bytes[from + componentEnd] !== SLASH) componentEnd++;
      node = this.table.intern(node, bytes, from + at, from + componentEnd);
      // The walk leaves such a path unnamed and says why: so does it here.
      if (node < 0) this.unusable(this.offset, `a path is longer than ${this.table.maxPathBytes} bytes`);
      lastEnds.push(componentEnd);
      lastNodes.push(node);
      // Beyond the walk's nesting cap the walk names less (it does not enter the tree): it names such a repository.
      if (lastEnds.length > this.limits.maxTreeDepth)
        this.unusable(this.offset, `a path is nested deeper than ${this.limits.maxTreeDepth} trees`);
      at = componentEnd + 1;
    }
    bytes.copy(last, 0, from, end);
    return node;
  }

  private isLooseTree(looseObjectDirs: readonly string[], oidHex: string): boolean {
    const file = looseObjectFile(looseObjectDirs, oidHex);
    try {
      return file !== undefined && readLooseObjectType(file) === OBJ_TREE;
    } catch {
      // git read it; a file that cannot be read now is only not counted
      return false;
    }
  }

  private unusable(offset: number, what: string): never {
    throw new GitNamesUnusable(`git rev-list --objects --all: offset ${offset} of its output: ${what}`);
  }
}
