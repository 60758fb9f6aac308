import { GitStderrParser, type GitProgress } from '../git/git-progress.ts';
import { gitFailure, runGit } from '../git/run-git.ts';

export interface PackObjectsRun {
  git: string;
  /** Everything after the executable: `--git-dir=…`, `pack-objects`, its options. */
  args: string[];
  /** Added to the cleaned environment (GIT_OBJECT_DIRECTORY of the shadow). */
  env: Record<string, string>;
  cwd: string;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: GitProgress) => void) | undefined;
  /** Called with the child's pid once it runs (tests check that it is gone after a cancel). */
  onSpawn?: ((pid: number) => void) | undefined;
}

/**
 * Runs pack-objects with stdin closed, its progress parsed, and resolves when it exits 0 (with the
 * stdout it printed: the pack's name). On abort the child and its process group get SIGTERM (then
 * SIGKILL), and the promise rejects with an AbortError only after the child has exited, so that the
 * caller can remove the temporary directory knowing that nothing writes to it any more.
 */
export async function runPackObjects(run: PackObjectsRun): Promise<{ stdout: string; otherStderr: string[] }> {
  const stderr = new GitStderrParser((progress) => run.onProgress?.(progress));
  const result = await runGit(run.git, run.args, {
    cwd: run.cwd,
    env: run.env,
    signal: run.signal,
    processGroup: true,
    onStderr: (chunk) => stderr.push(chunk),
    onSpawn: (child) => {
      if (child.pid !== undefined) run.onSpawn?.(child.pid);
    },
  });
  stderr.end();
  if (result.status !== 0) throw gitFailure(result, stderr.otherLines);
  return { stdout: result.stdout.toString('utf8'), otherStderr: stderr.otherLines };
}
