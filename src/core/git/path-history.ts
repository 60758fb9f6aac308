import { fail } from '../errors.ts';
import { gitFailure, runGit, runGitCapture } from './run-git.ts';

// The history's path changes, commit by commit, as `git filter-repo --analyze` reads them: the
// commits of `git rev-list --topo-order --reverse --all`, each diffed by `git diff-tree --stdin
// --always --root -M -t -c --raw --combined-all-paths`. Git itself, not PackScope's own tree walk,
// because the rules that make sizes exact depend on what git's diff decides: which pair of paths
// `-M` calls a rename (a similarity score over the contents, with git's rename limits and
// configuration), and which paths of a merge `-c` shows (only those that differ from every
// parent). Both are git's heuristics; reimplementing them could only approximate them. Both
// commands only read the repository. The output is parsed as it arrives, so that a long history's
// diffs never have to fit in memory at once.

/** One line of diff-tree's raw output. Paths are byte strings (latin1: one char per byte). */
export interface PathChange {
  /** The mode in each parent (one for a commit with at most one parent), then the commit's; `000000` when absent. */
  modes: string[];
  /** The object id in each parent, then the commit's. */
  oids: string[];
  /** One status letter per parent (`M`, `A`, `D`, `T`, `R`…); a single parent's rename keeps git's score (`R086`). */
  status: string;
  /** With a rename, the path in each parent then the commit's; otherwise the one path. Dequoted. */
  paths: string[];
}

export interface HistoryCommit {
  oid: string;
  parents: string[];
  /** The committer date, `%cd` in `--date=short` (YYYY-MM-DD in the committer's own zone). */
  date: string;
  changes: PathChange[];
}

const C_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '"': '"',
  '\\': '\\',
};

/**
 * A path as git quotes it (quote_c_style: `"…"` with `\n`, `\t`, `\"`, `\\` and octal `\303` for
 * bytes it will not print) back to its bytes; an unquoted path is its bytes already.
 */
export function dequoteGitPath(text: string): string {
  if (!text.startsWith('"')) return text;
  if (text.length < 2 || !text.endsWith('"'))
    throw fail('bad-header', undefined, undefined, `unterminated quoted path ${text}`);
  return text
    .slice(1, -1)
    .replace(/\\([0-7]{3}|.)/g, (_, seq: string) =>
      seq.length === 3 ? String.fromCharCode(parseInt(seq, 8) & 0xff) : (C_ESCAPES[seq] ?? seq),
    );
}

/** Parses one change line (`:100644 100644 <a> <b> M\tpath`, or `::…` for a merge of two). */
export function parseChangeLine(line: string, parentCount: number): PathChange {
  const n = 1 + Math.max(1, parentCount);
  const colons = n - 1;
  if (line.length <= colons || line.slice(0, colons) !== ':'.repeat(colons))
    throw fail('bad-header', undefined, undefined, `diff-tree line does not start with ${colons} colons: ${line}`);
  const tab = line.indexOf('\t');
  if (tab < 0) throw fail('bad-header', undefined, undefined, `diff-tree line has no path: ${line}`);
  const fields = line.slice(colons, tab).split(' ');
  if (fields.length !== 2 * n + 1)
    throw fail(
      'bad-header',
      undefined,
      undefined,
      `diff-tree line has ${fields.length} fields, not ${2 * n + 1}: ${line}`,
    );
  return {
    modes: fields.slice(0, n),
    oids: fields.slice(n, 2 * n),
    status: fields[2 * n]!,
    paths: line
      .slice(tab + 1)
      .split('\t')
      .map(dequoteGitPath),
  };
}

/** Turns diff-tree's output, fed in chunks, into commits: a header of three lines, a blank line, the changes. */
export class DiffTreeReader {
  private rest = Buffer.alloc(0);
  private current: HistoryCommit | undefined;
  /** Header lines still expected for the current commit (parents, then date). */
  private headerLeft = 0;

  constructor(private readonly onCommit: (commit: HistoryCommit) => void) {}

  push(chunk: Buffer): void {
    const data = this.rest.length > 0 ? Buffer.concat([this.rest, chunk]) : chunk;
    let start = 0;
    for (let nl = data.indexOf(0x0a, start); nl >= 0; nl = data.indexOf(0x0a, start)) {
      this.line(data.toString('latin1', start, nl));
      start = nl + 1;
    }
    this.rest = Buffer.from(data.subarray(start));
  }

  end(): void {
    if (this.rest.length > 0) this.line(this.rest.toString('latin1'));
    this.rest = Buffer.alloc(0);
    if (this.headerLeft > 0)
      throw fail('truncated', undefined, undefined, 'diff-tree output ends inside a commit header');
    this.flush();
  }

  private line(text: string): void {
    const commit = this.current;
    if (commit && this.headerLeft === 2) {
      commit.parents = text === '' ? [] : text.split(' ');
      this.headerLeft = 1;
    } else if (commit && this.headerLeft === 1) {
      commit.date = text;
      this.headerLeft = 0;
    } else if (text === '') {
      // The blank line between a commit's header and its changes.
    } else if (commit && text.startsWith(':')) {
      commit.changes.push(parseChangeLine(text, commit.parents.length));
    } else {
      this.flush();
      if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(text))
        throw fail(
          'bad-header',
          undefined,
          undefined,
          `diff-tree printed ${JSON.stringify(text)} where a commit id was due`,
        );
      this.current = { oid: text, parents: [], date: '', changes: [] };
      this.headerLeft = 2;
    }
  }

  private flush(): void {
    if (this.current) this.onCommit(this.current);
    this.current = undefined;
  }
}

/**
 * Calls `onCommit` for every commit reachable from any ref, parents before children, with the
 * path changes filter-repo's analysis reads. Rejects with git's own words when either command fails.
 */
export async function readPathHistory(
  git: string,
  gitDir: string,
  onCommit: (commit: HistoryCommit) => void,
  signal?: AbortSignal,
  /** Told how many commits rev-list listed, before diff-tree reads the first (a progress line's total). */
  onListed?: (commits: number) => void,
): Promise<void> {
  const gitDirArg = `--git-dir=${gitDir}`;
  const commits = await runGitCapture(git, [gitDirArg, 'rev-list', '--topo-order', '--reverse', '--all'], {
    cwd: gitDir,
    signal,
    bufferedOutput: true,
  });
  if (commits.length === 0) return;
  let listed = 0;
  for (let at = commits.indexOf(0x0a); at >= 0; at = commits.indexOf(0x0a, at + 1)) listed++;
  onListed?.(listed);
  // A parse error stops git rather than reading the rest of a history whose answer is lost anyway.
  const stop = new AbortController();
  let failure: unknown;
  const reader = new DiffTreeReader(onCommit);
  const run = await runGit(
    git,
    [
      gitDirArg,
      'diff-tree',
      '--stdin',
      '--always',
      '--root',
      '--format=%H%n%P%n%cd',
      '--date=short',
      '-M',
      '-t',
      '-c',
      '--raw',
      '--combined-all-paths',
    ],
    {
      cwd: gitDir,
      input: commits.toString('latin1'),
      bufferedOutput: true,
      signal: signal ? AbortSignal.any([signal, stop.signal]) : stop.signal,
      onStdout: (chunk) => {
        if (failure !== undefined) return;
        try {
          reader.push(chunk);
        } catch (error) {
          failure = error;
          stop.abort();
        }
      },
    },
  ).catch((error: unknown) => {
    if (failure !== undefined) throw failure;
    throw error;
  });
  if (failure !== undefined) throw failure;
  if (run.status !== 0) throw gitFailure(run);
  reader.end();
}
