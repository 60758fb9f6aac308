import { CancelledError, GitCommandError } from '../errors.ts';
import { gitFailure, runGit } from './run-git.ts';

/**
 * Which commit introduced a blob or tree under its path: the oldest commit that adds it there.
 * `git log --all --find-object=<oid>` lists each commit whose diff against a parent has the object
 * on either side (git-log(1): "differences that change the number of occurrences of the specified
 * object"), in its walk's order: newest first by commit date, so that the last it lists adding the
 * object at the path (its diff against some parent has the object as the new side there, not the
 * old) is the oldest commit that adds it there. Merges are diffed against each parent
 * (`--diff-merges=separate`), so a merge that adds the object itself counts; renames are not
 * detected (`--no-renames`), so a rename adds the object at its new path. When commit dates
 * follow history (no parent newer than its child), this is also the oldest commit of `git
 * rev-list --all` whose tree has the object at that path, as the tests check with `git ls-tree`.
 */
export const INTRODUCING_RULE =
  'the oldest commit that adds the object at its path: the last one `git log --all --find-object=<oid> --no-renames --diff-merges=separate` lists with the object added there';

/** How long one search may take before it is given up (git/git's Makefile: about 4 s). */
export const INTRODUCING_TIMEOUT_MS = 60_000;

export interface IntroducingSearch {
  git: string;
  gitDir: string;
  /** git's working directory: the work tree's top when there is one (so a pathspec is from the top). */
  cwd: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The commit that introduced `oid` (a blob or a tree) at `path`, or null when no commit of the
 * walk has it there. `path` '' is a root tree: the oldest commit whose tree it is. One bounded
 * `git log`, limited to the path (so that only the trees along it are compared, not whole
 * histories), reading nothing but the repository; configuration that would change what it
 * prints (renames, follow, merges' diffs, root diffs, quoting) is overridden on its command line.
 */
export async function findIntroducingCommit(
  oid: string,
  path: string,
  search: IntroducingSearch,
): Promise<string | null> {
  const timeout = AbortSignal.timeout(search.timeoutMs ?? INTRODUCING_TIMEOUT_MS);
  const signal = search.signal === undefined ? timeout : AbortSignal.any([search.signal, timeout]);
  const reader = path === '' ? new RootTreeReader(oid) : new RawDiffReader(oid, path);
  const lossy = path.includes(UNDECODABLE);
  const args =
    path === ''
      ? ['log', '--all', '--no-show-signature', '--format=%H %T %P']
      : [
          '-c',
          'log.follow=false',
          ...(lossy ? [] : ['--literal-pathspecs']),
          'log',
          '--all',
          '--full-history',
          '--no-show-signature',
          '--format=%H',
          '-z',
          '--raw',
          '--no-abbrev',
          '--no-renames',
          '--no-relative',
          '--root',
          '--diff-merges=separate',
          `--find-object=${oid}`,
          '--',
          lossy ? lossyPathspec(path) : path,
        ];
  let run;
  try {
    run = await runGit(search.git, [`--git-dir=${search.gitDir}`, ...args], {
      cwd: search.cwd,
      signal,
      onStdout: (chunk) => reader.push(chunk),
    });
  } catch (error) {
    if (search.signal?.aborted !== true && timeout.aborted)
      throw new GitCommandError(
        [search.git, ...args],
        null,
        '',
        `git log took more than ${Math.round((search.timeoutMs ?? INTRODUCING_TIMEOUT_MS) / 1000)} s to find the commit that introduced ${oid}; given up`,
      );
    if (error instanceof Error && error.name === 'AbortError') throw new CancelledError();
    throw error;
  }
  if (run.status !== 0) throw gitFailure(run);
  return reader.finish();
}

/** `%H %T %P` lines: the last commit whose root tree is the object while a parent's is not (or it has none). */
class RootTreeReader {
  private rest = '';
  private readonly commits: { commit: string; tree: string; parents: string[] }[] = [];
  private readonly treeOf = new Map<string, string>();
  constructor(private readonly oid: string) {}

  push(chunk: Buffer): void {
    const lines = (this.rest + chunk.toString('latin1')).split('\n');
    this.rest = lines.pop()!;
    for (const line of lines) this.line(line);
  }

  private line(line: string): void {
    const [commit, tree, ...parents] = line.split(' ').filter(Boolean);
    if (commit === undefined || tree === undefined) return;
    this.treeOf.set(commit, tree);
    if (tree === this.oid) this.commits.push({ commit, tree, parents });
  }

  finish(): string | null {
    if (this.rest !== '') this.line(this.rest);
    let last: string | null = null;
    for (const { commit, parents } of this.commits)
      if (parents.length === 0 || parents.some((parent) => this.treeOf.get(parent) !== this.oid)) last = commit;
    return last;
  }
}

/**
 * What a path's bytes that are not UTF-8 decode to (path-table.ts decodes names as UTF-8, as VS Code
 * shows them). Such a path cannot be handed to git as it is: Node passes arguments as UTF-8.
 */
const UNDECODABLE = '\uFFFD';

/**
 * A pathspec for a path some of whose bytes were not UTF-8: each run of undecodable bytes becomes a
 * glob `*` (within one path component, as git's wildmatch matches), every other character stands
 * for itself (glob characters escaped). It may match other paths that decode the same way; the
 * reader keeps only the object at a path that decodes exactly to `path`.
 */
function lossyPathspec(path: string): string {
  return `:(glob)${path
    .split(/\uFFFD+/)
    .map((part) => part.replace(/[\\*?[]/g, '\\$&'))
    .join('*')}`;
}

/**
 * `git log -z --raw --format=%H` output: NUL-separated fields, each commit's id, then per changed
 * path a `:<mode> <mode> <old> <new> <status>` field followed by the path's field (a path is never
 * read as a header: the field after a header always is the path). The last commit with the object
 * as the new side at exactly `path`, and not as the old side, is kept.
 */
class RawDiffReader {
  private pending: Buffer[] = [];
  private commit: string | undefined;
  private header: string | undefined;
  private last: string | null = null;
  private readonly pathBytes: Buffer;

  constructor(
    private readonly oid: string,
    private readonly path: string,
  ) {
    this.pathBytes = Buffer.from(path, 'utf8');
  }

  /** The path git printed is `path`: byte for byte, or as decoded when `path` lost bytes that were not UTF-8. */
  private isPath(bytes: Buffer): boolean {
    return this.path.includes(UNDECODABLE) ? bytes.toString('utf8') === this.path : bytes.equals(this.pathBytes);
  }

  push(chunk: Buffer): void {
    let from = 0;
    for (let nul = chunk.indexOf(0, from); nul >= 0; nul = chunk.indexOf(0, from)) {
      this.pending.push(chunk.subarray(from, nul));
      this.field(Buffer.concat(this.pending));
      this.pending = [];
      from = nul + 1;
    }
    if (from < chunk.length) this.pending.push(Buffer.from(chunk.subarray(from)));
  }

  private field(bytes: Buffer): void {
    if (this.header !== undefined) {
      const [, , before, after] = this.header.split(' ');
      if (after === this.oid && before !== this.oid && this.commit !== undefined && this.isPath(bytes))
        this.last = this.commit;
      this.header = undefined;
      return;
    }
    // A commit's raw lines follow its id after a newline.
    const text = bytes.toString('latin1').replace(/^\n+/, '');
    if (text.startsWith(':')) this.header = text.slice(1);
    else if (/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(text)) this.commit = text;
    else if (text !== '')
      throw new Error(
        `git log printed a field that is neither a commit nor a change: ${JSON.stringify(text.slice(0, 80))}`,
      );
  }

  finish(): string | null {
    if (this.pending.length > 0) this.field(Buffer.concat(this.pending));
    return this.last;
  }
}
