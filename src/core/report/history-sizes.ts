import { fail } from '../errors.ts';
import { readPathHistory, type HistoryCommit } from '../git/path-history.ts';
import { ObjectSizeReader, type ObjectSizes } from '../model/blob-sizes.ts';
import type { ObjectStore } from '../model/object-store.ts';

// Where the bytes of a history go, by the rules of `git filter-repo --analyze` (git-filter-repo's
// RepoAnalyze, read in its source; the facts, not its code):
// - Every blob a commit's diff adds or changes at a path (gitlinks left out; trees only for the
//   dates of directory deletions) is recorded once per (blob, path) pair: a path that returns to
//   an earlier content counts that content once; one content at two paths counts at each.
// - A path's sizes are the sums over its distinct blobs; a directory's, over every path below it,
//   at any depth, the top level (`""`) included; an extension's, over its paths. The extension is
//   Python's os.path.splitext of the whole path: from the last dot of the last component, unless
//   that component has nothing but dots before it (`.bashrc` and `Makefile` have none, `a.` has
//   `.`).
// - A path is deleted on the date (the committer's, `--date=short`) of the last commit in
//   `rev-list --topo-order --reverse --all` order that deletes it, unless a later commit adds or
//   changes it (or any name it was renamed from or to): the last commit that mentions it decides,
//   on whichever branch that is. A directory likewise, by the diffs' tree entries. An extension is
//   deleted when every path with it is, on the latest of their dates.
// - A rename (git's `-M`, so the pair is git's choice) makes the old and new names one class: a
//   deletion of one dates them all, an addition of one undoes that. The class is broken again when
//   an old name gets content of its own in a commit that descends from the rename.
// - Sizes are `cat-file`'s `%(objectsize)` and `%(objectsize:disk)` of each blob.
// - Lists are sorted by on-disk size, then by name, both descending (names compared as bytes).

/** A path, directory or extension: latin1 strings hold the bytes exactly and compare as bytes. */
export interface SizeRow {
  name: string;
  inflated: number;
  disk: number;
  /** `YYYY-MM-DD`, or undefined while present. */
  deleted: string | undefined;
}

export interface CommitAdded {
  oid: string;
  date: string;
  /** Blobs this commit's diff showed first (in the analysed order). */
  blobs: number;
  inflated: number;
  disk: number;
}

/**
 * How a blob's bytes are shared out: `per-path` (filter-repo's rule: once at each path it was
 * at), or `per-blob` (once in the whole history, at the first path it was seen at: the totals are
 * then what the blobs really weigh).
 */
export type SizesCount = 'per-path' | 'per-blob';
export const SIZES_COUNTS: readonly SizesCount[] = ['per-path', 'per-blob'];

export interface HistorySizes {
  count: SizesCount;
  commits: number;
  blobs: number;
  /** Blobs the history names that neither a pack nor a loose file holds (counted as 0 bytes). */
  missingBlobs: string[];
  total: ObjectSizes;
  paths: SizeRow[];
  directories: SizeRow[];
  extensions: SizeRow[];
  /** Every commit that added a blob, most on-disk bytes first (then in history order). */
  commitsAdding: CommitAdded[];
  /** The walk's pairing of blobs with paths, as it was read (path-blobs.ts indexes it by path). */
  pairs: BlobPathPairs;
}

/**
 * Which blobs were at which paths: the walk's own maps, handed out as they are (no copy), so that
 * the CLI pays nothing for them and a view can ask for the blobs of one path.
 */
export interface BlobPathPairs {
  /** Blob id → the paths (latin1 bytes) it was at, first seen first; the blobs in the order first seen. */
  readonly pathsOf: ReadonlyMap<string, ReadonlySet<string>>;
  /** Blob id → its index in `commits`: the commit whose diff showed it first. */
  readonly firstCommit: ReadonlyMap<string, number>;
  /** The commits read, in the analysed order (`rev-list --topo-order --reverse --all`). */
  readonly commits: readonly { oid: string; date: string }[];
}

export interface HistorySizesOptions {
  git?: string | undefined;
  count?: SizesCount | undefined;
  signal?: AbortSignal | undefined;
  /** Told after every commit read, with the commits the history has (a progress line's count and total). */
  onCommit?: ((commits: number, total: number) => void) | undefined;
}

/** Commits with their parents and generation (1 + the deepest parent's), for ancestry questions. */
class AncestryGraph {
  private readonly index = new Map<string, number>();
  private readonly depth: number[] = [];
  private readonly parents: number[][] = [];

  has(oid: string): boolean {
    return this.index.has(oid);
  }

  add(oid: string, parents: readonly string[]): void {
    const ids = parents.map((p) => this.index.get(p)!);
    this.index.set(oid, this.depth.length);
    this.depth.push(1 + ids.reduce((max, p) => Math.max(max, this.depth[p]!), 0));
    this.parents.push(ids);
  }

  /** Whether `ancestor` is `commit` or reachable from it (a generation no deeper than the ancestor's ends a path). */
  isAncestor(ancestor: string, commit: string): boolean {
    const a = this.index.get(ancestor)!;
    const aDepth = this.depth[a]!;
    const stack = [this.index.get(commit)!];
    const seen = new Set<number>();
    while (stack.length > 0) {
      const c = stack.pop()!;
      if (c === a) return true;
      if (seen.has(c) || this.depth[c]! <= aDepth) continue;
      seen.add(c);
      stack.push(...this.parents[c]!);
    }
    return false;
  }
}

const TREE = '040000';
const GITLINK = '160000';
const ABSENT = '000000';

const onlyOf = (status: string, letters: string): boolean => [...status].every((c) => letters.includes(c));

/** The state filter-repo's analysis keeps while it reads the history, commit by commit. */
class HistoryRules {
  /** Blob id → the paths it was at, in the order first seen. */
  readonly names = new Map<string, Set<string>>();
  readonly fileDeletions = new Map<string, string>();
  readonly treeDeletions = new Map<string, string>();
  /** A name → every name of its rename class (one array shared by the class). */
  private readonly equivalence = new Map<string, readonly string[]>();
  /** An old name → the commits that renamed it away. */
  private readonly renamedAway = new Map<string, Set<string>>();
  private readonly graph = new AncestryGraph();
  /** Blob id → the index in `commits` of the commit that showed it first. */
  readonly firstCommit = new Map<string, number>();
  readonly commits: { oid: string; date: string }[] = [];

  read(commit: HistoryCommit): void {
    for (const parent of commit.parents) if (!this.graph.has(parent)) this.graph.add(parent, []);
    this.graph.add(commit.oid, commit.parents);
    const at = this.commits.push({ oid: commit.oid, date: commit.date }) - 1;
    for (const change of commit.changes) {
      // A single parent's rename carries git's similarity score; only the letter matters.
      const status = commit.parents.length === 1 && change.status.startsWith('R') ? 'R' : change.status;
      const mode = change.modes[change.modes.length - 1]!;
      const path = change.paths[change.paths.length - 1]!;
      if (mode === GITLINK) continue;
      if (mode === ABSENT) {
        const deletions = change.modes.slice(0, -1).includes(TREE) ? this.treeDeletions : this.fileDeletions;
        for (const name of this.classOf(path)) deletions.set(name, commit.date);
      } else if (onlyOf(status, 'AMT') || (mode === TREE && onlyOf(status, 'RAM'))) {
        this.present(commit.oid, at, mode, change.oids[change.oids.length - 1]!, path);
      } else if (onlyOf(status, 'RAMT')) {
        this.present(commit.oid, at, mode, change.oids[change.oids.length - 1]!, path);
        for (const [i, letter] of [...status].entries())
          if (letter === 'R') this.renamed(commit.oid, change.paths[i]!, path);
      } else {
        throw fail('bad-header', undefined, undefined, `unhandled change type ${status} in commit ${commit.oid}`);
      }
    }
  }

  private classOf(name: string): readonly string[] {
    return this.equivalence.get(name) ?? [name];
  }

  /** A path added or changed: its blob recorded, its deletion (and its class's) undone. */
  private present(commit: string, at: number, mode: string, oid: string, path: string): void {
    const tree = mode === TREE;
    if (!tree) {
      let paths = this.names.get(oid);
      if (!paths) {
        this.names.set(oid, (paths = new Set()));
        this.firstCommit.set(oid, at);
      }
      paths.add(path);
    }
    const names = this.classOf(path);
    const deletions = tree ? this.treeDeletions : this.fileDeletions;
    for (const name of names) deletions.delete(name);
    // New content at a name renamed away earlier on this line of history is another file.
    if (names[names.length - 1] === path) return;
    const renames = this.renamedAway.get(path);
    if (renames && [...renames].some((rename) => this.graph.isAncestor(rename, commit)))
      for (const name of names) this.equivalence.delete(name);
  }

  private renamed(commit: string, from: string, to: string): void {
    const known = this.equivalence.get(from) ?? [];
    if (!known.includes(to)) {
      const names = known.length > 0 ? [...known, to] : [from, to];
      for (const name of names) this.equivalence.set(name, names);
    }
    let commits = this.renamedAway.get(from);
    if (!commits) this.renamedAway.set(from, (commits = new Set()));
    commits.add(commit);
  }
}

/** Python's os.path.splitext's extension of a POSIX path (see the rules above). */
export function extensionOf(path: string): string {
  const slash = path.lastIndexOf('/');
  const dot = path.lastIndexOf('.');
  if (dot <= slash) return '';
  for (let i = slash + 1; i < dot; i++) if (path[i] !== '.') return path.slice(dot);
  return '';
}

/** Every directory holding `path`, innermost first, ending with the top level `""` (os.path.dirname repeated). */
export function directoriesOf(path: string): string[] {
  const found: string[] = [];
  let current = path;
  // A path of slashes only would be its own dirname for ever; git's paths have none.
  do {
    const head = current.slice(0, current.lastIndexOf('/') + 1);
    current = /^\/*$/.test(head) ? head : head.replace(/\/+$/, '');
    found.push(current);
  } while (!/^\/*$/.test(current));
  return found;
}

/** Descending on-disk size, then descending name (as bytes): filter-repo's `sorted(…, reverse=True)` on (packed, name). */
export function bySizeThenName(a: SizeRow, b: SizeRow): number {
  return b.disk - a.disk || (a.name < b.name ? 1 : a.name > b.name ? -1 : 0);
}

class Totals {
  readonly sizes = new Map<string, { inflated: number; disk: number }>();
  add(name: string, inflated: number, disk: number): void {
    const known = this.sizes.get(name);
    if (known) {
      known.inflated += inflated;
      known.disk += disk;
    } else this.sizes.set(name, { inflated, disk });
  }
  rows(deleted: (name: string) => string | undefined): SizeRow[] {
    return [...this.sizes]
      .map(([name, s]) => ({ name, inflated: s.inflated, disk: s.disk, deleted: deleted(name) }))
      .sort(bySizeThenName);
  }
}

/** Reads the history of `store`'s repository through git and sizes every blob from the store. */
export async function historySizes(store: ObjectStore, options: HistorySizesOptions = {}): Promise<HistorySizes> {
  const rules = new HistoryRules();
  let commits = 0;
  let total = 0;
  await readPathHistory(
    options.git ?? 'git',
    store.repository.gitDir,
    (commit) => {
      rules.read(commit);
      options.onCommit?.(++commits, total);
    },
    options.signal,
    (listed) => (total = listed),
  );
  return tally(rules, new ObjectSizeReader(store), options.count ?? 'per-path');
}

function tally(rules: HistoryRules, reader: ObjectSizeReader, count: SizesCount): HistorySizes {
  const paths = new Totals();
  const directories = new Totals();
  const extensions = new Totals();
  const total = { inflated: 0, disk: 0 };
  const missingBlobs: string[] = [];
  const added = new Map<number, CommitAdded>();
  for (const [oid, names] of rules.names) {
    const sizes = reader.sizes(oid);
    if (!sizes) missingBlobs.push(oid);
    const { inflated, disk } = sizes ?? { inflated: 0, disk: 0 };
    const at = rules.firstCommit.get(oid)!;
    let commit = added.get(at);
    if (!commit) added.set(at, (commit = { ...rules.commits[at]!, blobs: 0, inflated: 0, disk: 0 }));
    commit.blobs++;
    commit.inflated += inflated;
    commit.disk += disk;
    let first = true;
    for (const name of names) {
      // Under per-blob, later paths of the same blob are listed but weigh nothing.
      const weighs = first || count === 'per-path';
      first = false;
      paths.add(name, weighs ? inflated : 0, weighs ? disk : 0);
    }
  }
  // A directory's and an extension's sizes are sums over their paths, so each distinct path is
  // added to them once, with its own sums, and not once per blob at it: on libgit2's history that
  // halves the names split into directories and extensions (55k blob-path pairs, 30k paths).
  for (const [name, sizes] of paths.sizes) {
    total.inflated += sizes.inflated;
    total.disk += sizes.disk;
    extensions.add(extensionOf(name), sizes.inflated, sizes.disk);
    for (const directory of directoriesOf(name)) directories.add(directory, sizes.inflated, sizes.disk);
  }
  const extensionDeleted = new Map<string, string | undefined>();
  for (const name of paths.sizes.keys()) {
    const when = rules.fileDeletions.get(name);
    const extension = extensionOf(name);
    if (!extensionDeleted.has(extension)) extensionDeleted.set(extension, when);
    else {
      const known = extensionDeleted.get(extension);
      extensionDeleted.set(
        extension,
        when === undefined || known === undefined ? undefined : known > when ? known : when,
      );
    }
  }
  return {
    count,
    commits: rules.commits.length,
    blobs: rules.names.size,
    missingBlobs,
    total,
    paths: paths.rows((name) => rules.fileDeletions.get(name)),
    directories: directories.rows((name) => rules.treeDeletions.get(name)),
    extensions: extensions.rows((name) => extensionDeleted.get(name)),
    commitsAdding: [...added].sort(([a, x], [b, y]) => y.disk - x.disk || a - b).map(([, commit]) => commit),
    pairs: { pathsOf: rules.names, firstCommit: rules.firstCommit, commits: rules.commits },
  };
}
