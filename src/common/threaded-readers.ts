/**
 * git commands whose pack reads depend on threads (git-internals §1.11, §8.3), checked with git
 * 2.39.5 on a two-core machine by recording the same command several times at limit 0:
 * - `grep` over objects (a revision, a tree, `--cached`): worker threads read the blobs under
 *   obj_read_lock, so the order of the reads, and so the trace, differs run to run
 *   (grep.threads, --threads); with one thread the trace repeats line for line;
 * - `pack-objects` (and `repack`, `gc`, which run it): the delta search reads objects in its
 *   threads (pack.threads, --threads); with pack.threads=1 it repeats;
 * - `index-pack` (and `fetch`, `clone`, `pull`, `fetch-pack`, `receive-pack`, which run it): its
 *   threads read the objects the repository already holds to compare them (pack.threads, --threads).
 * `status` (its preload threads only stat files) and `checkout` with the default one worker
 * repeated their traces; `checkout.workers` above 1 (parallel checkout, not the default) did not,
 * and is not recognised from the command line here: `record --check` finds it.
 * Pure, as the extension's recorder may use it too.
 */

export interface ThreadedReader {
  /** The git command that reads in threads, or runs one that does. */
  command: string;
  /** What reads in threads, for messages. */
  reads: string;
  /** Config that makes it, and every git process it starts, read in one thread. */
  singleThread: { key: string; value: string };
  /** The command line asks for threads itself (`--threads=N`, N ≠ 1): the config cannot override it. */
  explicitThreads: boolean;
  /**
   * Running it a second time to check it (`record --check`) reads what the first run read: false
   * for commands that change the repository (fetch, clone, pull, gc, repack), which `record`
   * then does not run again unless asked.
   */
  rerunReadsAlike: boolean;
}

const READERS: Record<string, { reads: string; key: string; option: boolean; rerun: boolean }> = {
  grep: {
    reads: 'git grep reads the blobs it searches in several threads',
    key: 'grep.threads',
    option: true,
    rerun: true,
  },
  'pack-objects': {
    reads: "pack-objects' delta search reads objects in several threads",
    key: 'pack.threads',
    option: true,
    rerun: true,
  },
  repack: {
    reads: 'the pack-objects it runs reads objects in several threads (delta search)',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  gc: {
    reads: 'the pack-objects it runs reads objects in several threads (delta search)',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  'index-pack': {
    reads: 'index-pack reads existing objects in several threads',
    key: 'pack.threads',
    option: true,
    rerun: true,
  },
  fetch: {
    reads: 'the index-pack it runs reads objects in several threads',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  clone: {
    reads: 'the index-pack it runs reads objects in several threads',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  pull: {
    reads: 'the index-pack it runs reads objects in several threads',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  'fetch-pack': {
    reads: 'the index-pack it runs reads objects in several threads',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
  'receive-pack': {
    reads: 'the index-pack it runs reads objects in several threads',
    key: 'pack.threads',
    option: false,
    rerun: false,
  },
};

/** git's options before the command that take the next word as their value. */
const OPTIONS_WITH_VALUE = new Set([
  '-c',
  '-C',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--exec-path',
]);

/** The command word of git's arguments (without "git"), skipping the options before it. */
export function gitCommandWord(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (OPTIONS_WITH_VALUE.has(arg)) {
      i++;
      continue;
    }
    if (arg.startsWith('-')) continue;
    return arg;
  }
  return undefined;
}

/** Whether git's arguments (without "git") run a command known to read in threads, and how to make it read in one. */
export function threadedReader(args: readonly string[]): ThreadedReader | undefined {
  const command = gitCommandWord(args);
  if (command === undefined) return undefined;
  const reader = READERS[command];
  if (reader === undefined) return undefined;
  const after = args.slice(args.indexOf(command) + 1);
  let threads: string | undefined;
  if (reader.option)
    for (let i = 0; i < after.length; i++) {
      const arg = after[i]!;
      if (arg === '--') break;
      if (arg.startsWith('--threads=')) threads = arg.slice('--threads='.length);
      else if (arg === '--threads') threads = after[++i];
    }
  return {
    command,
    reads: reader.reads,
    singleThread: { key: reader.key, value: '1' },
    explicitThreads: threads !== undefined && threads !== '1',
    rerunReadsAlike: reader.rerun,
  };
}

/**
 * The same for one command line as GIT_TRACE prints it (`git grep -e x HEAD`), and single-threaded
 * when its own options say so (`--threads=1`): a raw trace's processes.
 */
export function readsInThreads(args: readonly string[]): ThreadedReader | undefined {
  const reader = threadedReader(args);
  if (reader === undefined) return undefined;
  const command = args.indexOf(reader.command);
  const own = args.slice(command + 1);
  const single =
    own.includes('--threads=1') ||
    own.some((arg, i) => arg === '--threads' && own[i + 1] === '1') ||
    args.slice(0, command).some((arg, i, all) => all[i - 1] === '-c' && arg === `${reader.singleThread.key}=1`);
  return single ? undefined : reader;
}
