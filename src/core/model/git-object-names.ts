import * as fs from 'node:fs';
import * as path from 'node:path';
import { OBJ_COMMIT, OBJ_TREE } from '../format/pack-file.ts';
import { runGit, gitFailure } from '../git/run-git.ts';
import { DEFAULT_PATH_WALK_LIMITS, PATH_RULE, type ObjectPaths, type StoreWalkInputs } from './object-paths.ts';
import { looseObjectFile, readLooseObjectType } from './loose-object.ts';
import { OidLookup } from './oid-lookup.ts';
import { PathTableBuilder } from './path-table.ts';
import { packOfNumber } from './pack-numbering.ts';

/**
 * The same names as walkObjectPaths, from git itself: `git rev-list --objects --all` prints each
 * object once, at the path where its walk first meets it, which is the rule the walk replays
 * (PATH_RULE). git does it in C at about a quarter of the walk's CPU, in another process (the
 * other core). Its output is parsed as it streams: ids as hex into one scratch buffer and looked up
 * by hash, paths interned as bytes component by component, reusing the components the line before
 * shared (rev-list prints trees pre-order, so neighbours share most of their path).
 *
 * Anything that would make the names differ from the walk's makes this throw
 * (GitNamesUnusable), and the caller walks instead: a line that does not parse, a path the walk
 * would not name (longer than its cap, nested deeper than its cap), a repository whose grafts
 * file changes parents (the walk reads parents from the commits), git failing (a missing object,
 * a malformed tree: the walk then names what it can and says why).
 *
 * One difference remains, and is git's: rev-list prints a path only up to its first newline
 * (show_object_with_name), while the walk keeps the whole path. Telling such a path from its
 * first line would need every tree read, which is the walk's cost; docs/json.md says so.
 */
export class GitNamesUnusable extends Error {
  override readonly name = 'GitNamesUnusable';
}

export interface GitNamesOptions {
  /** The git to run (the CLI's `git`, the server's configured and trusted git). */
  git: string;
  /** The repository's git directory (a linked worktree's own, so that its HEAD is the one read). */
  gitDir: string;
  /** The shared git directory (where a grafts file would be). */
  commonDir: string;
  signal?: AbortSignal | undefined;
}

/** rev-list's arguments: every ref, HEAD and worktree HEAD (as refs.ts reads them), replace refs not applied (the walk reads commits as stored). */
export function revListNamesArguments(gitDir: string): string[] {
  return [`--git-dir=${gitDir}`, '--no-replace-objects', 'rev-list', '--objects', '--all'];
}

/** Names the objects of `inputs` by git rev-list (see above); throws GitNamesUnusable when its names would not be the walk's. */
export async function nameObjectsByGit(inputs: StoreWalkInputs, options: GitNamesOptions): Promise<ObjectPaths> {
  const started = performance.now();
  // git applies a grafts file to parents; the walk does not (nor does git for the walk's purposes
  // once grafts are gone): the two would disagree, so the walk names such a repository.
  for (const dir of new Set([options.gitDir, options.commonDir]))
    if (fs.existsSync(path.join(dir, 'info', 'grafts')))
      throw new GitNamesUnusable(`${path.join(dir, 'info', 'grafts')} changes parents as the walk does not`);
  const parser = new RevListParser(inputs);
  const run = await runGit(options.git, revListNamesArguments(options.gitDir), {
    cwd: options.gitDir,
    signal: options.signal,
    processGroup: true,
    onStdout: (chunk) => parser.feed(chunk),
  });
  if (run.status !== 0) throw new GitNamesUnusable(gitFailure(run).message);
  return parser.finish(performance.now() - started);
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

/** rev-list's output, line by line as it streams, into the walk's structure (pathOf per pack, one PathTable). */
class RevListParser {
  private readonly lookup: OidLookup;
  private readonly bases: number[] = [];
  private readonly pathOf: Int32Array[];
  private readonly table: PathTableBuilder;
  private readonly hashSize: number;
  private readonly id: Uint8Array;
  /** The bytes after the last full line, waiting for the rest of their line. */
  private carry: Buffer = Buffer.alloc(0);
  /** Bytes read so far (for error offsets). */
  private offset = 0;
  /** The previous line's path (its first bytes), and per component its end in it and its node. */
  private readonly last = Buffer.alloc(MAX_LINE_BYTES);
  private readonly lastEnds: number[] = [];
  private readonly lastNodes: number[] = [];
  private commits = 0;
  private trees = 0;
  private named = 0;
  private readonly maxDepth = DEFAULT_PATH_WALK_LIMITS.maxTreeDepth;

  constructor(private readonly inputs: StoreWalkInputs) {
    const { models } = inputs;
    this.lookup = new OidLookup(models);
    let total = 0;
    for (const model of models) {
      this.bases.push(total);
      total += model.count;
    }
    this.pathOf = models.map((model) => new Int32Array(model.count).fill(-1));
    this.table = new PathTableBuilder(DEFAULT_PATH_WALK_LIMITS.maxPathBytes);
    this.hashSize = models[0]?.hash.size ?? 20;
    this.id = new Uint8Array(this.hashSize);
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
  }

  finish(elapsedMs: number): ObjectPaths {
    if (this.carry.length > 0) this.unusable(this.offset, 'the last line has no newline');
    return {
      table: this.table.finish(),
      pathOf: this.pathOf,
      summary: {
        rule: PATH_RULE,
        tips: this.inputs.refs.tips.length,
        commits: this.commits,
        trees: this.trees,
        named: this.named,
        missing: 0,
        complete: true,
        problems: [],
        bytesRebuilt: 0,
        elapsedMs,
        namesFrom: 'git rev-list',
      },
    };
  }

  /** `<hex id>` (a commit) or `<hex id> <path>` (anything else), bytes[from, end). */
  private line(bytes: Buffer, from: number, end: number): void {
    // Checked here too, not only on a carried part: a long line that arrives whole in one chunk is
    // refused for its length as one split across chunks is, whatever the pipe's chunk sizes were.
    if (end - from > MAX_LINE_BYTES) this.unusable(this.offset, 'a line longer than any path git names');
    const { hashSize, id } = this;
    const idEnd = from + hashSize * 2;
    if (idEnd > end || (idEnd < end && bytes[idEnd] !== SPACE))
      this.unusable(this.offset, 'a line is not `<id> <path>`');
    for (let i = 0; i < hashSize; i++) {
      const high = HEX_VALUE[bytes[from + 2 * i]!]!;
      const low = HEX_VALUE[bytes[from + 2 * i + 1]!]!;
      if (high < 0 || low < 0) this.unusable(this.offset, 'an object id is not lower-case hex');
      id[i] = (high << 4) | low;
    }
    const object = this.lookup.find(id, 0);
    if (idEnd === end) {
      this.commits++;
      return;
    }
    // A loose object (in no pack) is walked through by git, as by the walk, but has no pack to be
    // named in; a loose tree is counted as the walk counts the trees it entered.
    if (object < 0) {
      if (this.isLooseTree(bytes.toString('latin1', from, idEnd))) this.trees++;
      return;
    }
    const pack = this.packOf(object);
    const n = object - this.bases[pack]!;
    const model = this.inputs.models[pack]!;
    const type = model.columns.type[n]!;
    if (type === OBJ_COMMIT) this.unusable(this.offset, `commit ${model.oidHex(n)} is printed with a path`);
    if (type === OBJ_TREE) this.trees++;
    const column = this.pathOf[pack]!;
    // rev-list prints an object once; the same id in a later pack is the first pack's (git's search order).
    if (column[n] !== -1) return;
    column[n] = this.intern(bytes, idEnd + 1, end);
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
      if (bytes.compare(last, componentStart, componentEnd, from + componentStart, from + componentEnd) !== 0) break;
      componentStart = componentEnd + 1;
    }
    lastEnds.length = shared;
    lastNodes.length = shared;
    let node = shared === 0 ? 0 : lastNodes[shared - 1]!;
    let at = shared === 0 ? 0 : lastEnds[shared - 1]! + 1;
    if (shared > 0 && lastEnds[shared - 1] === length) return node;
    while (at <= length) {
      const slash = bytes.indexOf(SLASH, from + at);
      const componentEnd = slash < 0 || slash >= end ? length : slash - from;
      node = this.table.intern(node, bytes, from + at, from + componentEnd);
      // The walk leaves such a path unnamed and says why: so does it here.
      if (node < 0) this.unusable(this.offset, `a path is longer than ${this.table.maxPathBytes} bytes`);
      lastEnds.push(componentEnd);
      lastNodes.push(node);
      // Beyond the walk's nesting cap the walk names less (it does not enter the tree): it names such a repository.
      if (lastEnds.length > this.maxDepth)
        this.unusable(this.offset, `a path is nested deeper than ${this.maxDepth} trees`);
      at = componentEnd + 1;
    }
    bytes.copy(last, 0, from, end);
    return node;
  }

  private isLooseTree(oidHex: string): boolean {
    const file = looseObjectFile(this.inputs.looseObjectDirs, oidHex);
    try {
      return file !== undefined && readLooseObjectType(file) === OBJ_TREE;
    } catch {
      // git read it; a file that cannot be read now is only not counted
      return false;
    }
  }

  private packOf(id: number): number {
    return packOfNumber(this.bases, id);
  }

  private unusable(offset: number, what: string): never {
    throw new GitNamesUnusable(`git rev-list --objects --all: offset ${offset} of its output: ${what}`);
  }
}
