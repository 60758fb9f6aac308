/**
 * One full garbage collection, for when the server goes idle after work: V8 otherwise keeps the
 * pages a load grew its heap to (44 MiB committed for 10 MiB live after bench/server-load.bench.ts)
 * until allocation resumes. Without `--expose-gc` on the command line, the flag set at run time makes
 * `gc` available to a new context.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | undefined;

export function collectGarbage(): void {
  if (!collect) {
    setFlagsFromString('--expose-gc');
    collect = runInNewContext('gc') as () => void;
  }
  collect();
}
