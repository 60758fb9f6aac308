/**
 * Commands chosen from a repository's own history, so that one list runs on any repository: its
 * most-edited text file (blame, log -L, --follow), a frequent word in it (log -S, grep) and its
 * busiest directory (log -p). The exactness bench and the policies bench ask for them.
 */
import { spawnSync } from 'node:child_process';

/** Runs git in the repository and returns its stdout (throws on failure). */
export type GitRunner = (args: string[]) => string;

/** The text file at HEAD that the most of the last 3,000 commits changed. */
export function hottestTextFile(git: GitRunner, gitPath: string, repo: string, env: NodeJS.ProcessEnv): string {
  const counts = new Map<string, number>();
  for (const line of git(['log', '--format=', '--name-only', '-n', '3000', 'HEAD']).split('\n'))
    if (line) counts.set(line, (counts.get(line) ?? 0) + 1);
  const atHead = new Set(git(['ls-tree', '-r', '--name-only', 'HEAD']).split('\n'));
  for (const [file] of [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))) {
    if (!atHead.has(file)) continue;
    const head = spawnSync(gitPath, ['cat-file', 'blob', `HEAD:${file}`], { cwd: repo, env, maxBuffer: 1 << 30 });
    if (head.status === 0 && !head.stdout.subarray(0, 8000).includes(0) && head.stdout.length > 2000) return file;
  }
  throw new Error('no text file at HEAD among the last 3,000 commits');
}

/** The most frequent identifier of 8 or more characters in the file. */
export function frequentWord(git: GitRunner, file: string): string {
  const counts = new Map<string, number>();
  for (const word of git(['cat-file', 'blob', `HEAD:${file}`]).match(/[A-Za-z_][A-Za-z0-9_]{7,}/g) ?? [])
    counts.set(word, (counts.get(word) ?? 0) + 1);
  const best = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0];
  if (!best) throw new Error(`no identifier of 8 characters in ${file}`);
  return best[0];
}

/** The top-level directory the last 3,000 commits changed most. */
export function busiestDirectory(git: GitRunner): string {
  const counts = new Map<string, number>();
  for (const line of git(['log', '--format=', '--name-only', '-n', '3000', 'HEAD']).split('\n')) {
    const slash = line.indexOf('/');
    if (slash > 0) counts.set(line.slice(0, slash + 1), (counts.get(line.slice(0, slash + 1)) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '.';
}
