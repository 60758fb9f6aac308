import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { gitArgumentsTyped } from '../../common/shell-words.ts';
import type { RecordingMetadata } from '../../core/trace/recording.ts';
import { readsStandardInput } from '../../common/standard-input.ts';
import { threadedReader } from '../../common/threaded-readers.ts';
import { fail } from '../../core/errors.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import { refuseInsideAnyRepository, refuseInsideRepository } from '../../core/model/outside-repository.ts';
import { makeDirectories } from '../../core/atomic-file.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { countAccessLines, recordGitCommand } from '../../core/trace/record-git.ts';
import { parseLimits } from '../../core/sim/policy-registry.ts';
import { formatLimit } from '../output.ts';
import { modelStoreFor } from '../open-target.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';
import type { Progress } from '../progress.ts';
import { TraceTail } from '../../core/trace/trace-tail.ts';

const recordHelp = `usage: packscope record [--exact [--complete=LIMITS] | --passive] [--check] [--threads-as-is] [-o FILE] [-C DIR] [--git PATH] -- <git arguments…>

Runs one git command in the repository at DIR (default: the current directory) with
GIT_TRACE_PACK_ACCESS (and GIT_TRACE, unless you set it, to split the log per git process) pointed
at a temporary file, and stores a recording: the trace lines plus the command, directory, git
version, the cache limit it ran with, the packs with their checksums, start and end times and the
exit status. git's own output goes to the terminal; the exit status is git's. The arguments are
git's (\`-- log -p\`); a first \`git\` is dropped (\`-- git log -p\` records the same).

--exact    (default) runs git with core.deltaBaseCacheLimit=0 (through GIT_CONFIG_COUNT, after
           any entries you already pass that way). A replay is exact at 0; at other limits it is
           exact or gives bounds that contain what git does, because the trace cannot show reads
           that hit the cache at limit 0 (git-internals §8.1). git runs slower while recording.
--complete=LIMITS  (with --exact) runs the command again at each limit (e.g. 64k,1m: the command
           runs 1 + N times, the extra runs without output; stdin, when not a terminal, is read
           once and given to every run), finds the reads the limit-0 trace hides from those runs,
           and stores them in the header: the replay is then exact at each of LIMITS and its bounds
           narrower elsewhere. The runs are aligned with every reading kept until it fails; where
           more than one reading explains them all, those places are named in the header and
           bounded instead of chosen (the replay is then exact at LIMITS only where the bounds
           meet). The command must read the same objects every time.
--check    runs the command a second time, as the first (output discarded, stdin given again when
           not a terminal), and compares the two traces: a command whose reads differ run to run
           is never called exact. Done anyway for commands known to read in threads that leave
           the repository as they found it (grep, pack-objects, index-pack). The
           command must leave the repository as it found it (a second checkout, commit or fetch
           reads other objects: the check then says the runs differ).
--threads-as-is  records a command known to read in threads (grep over objects; pack-objects,
           repack, gc; index-pack and the fetch, clone, pull that run it) as it runs. By default
           it is recorded single-threaded (grep.threads=1 or pack.threads=1 through
           GIT_CONFIG_COUNT, for it and every git it starts), which repeats read for read, and
           every number of its replays says so; with threads its reads differ run to run, so no
           replay of it is exact. A --threads=N of your own on the command line wins over both.
Standard input: a command that reads its work from it (cat-file --batch, --stdin, pack-objects;
           with --exact) is given stdin read in full first, and the input is kept beside the
           recording (FILE.input, its size and SHA-256 in the header), so that completing the
           recording later (the Cache Lab, or the command simulate and sweep print) runs the
           command on the same input.
--passive  keeps your own limit: a replay is exact only at that limit.
-o FILE    where to write the recording (default: ~/.cache/packscope/recordings/, or
           PACKSCOPE_RECORDINGS_DIR). PackScope never writes inside the repository.`;

function defaultRecordingPath(repository: Repository, args: string[]): string {
  const base = process.env.PACKSCOPE_RECORDINGS_DIR
    ? path.resolve(process.env.PACKSCOPE_RECORDINGS_DIR)
    : path.join(
        process.env.XDG_CACHE_HOME ? path.resolve(process.env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache'),
        'packscope',
        'recordings',
      );
  const top = repository.workTree ?? repository.commonDir;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const words =
    args
      .filter((a) => /^[\w.-]+$/.test(a))
      .slice(0, 3)
      .join('-') || 'git';
  return path.join(base, `${path.basename(top)}-${words}-${stamp}.psrec`);
}

// Stays long: a linear script: options, the repository and output checks, git's run, then the summary in the order
// printed.
async function runRecord(argv: string[], progress: Progress): Promise<number> {
  const separator = argv.indexOf('--');
  if (separator < 0 || separator === argv.length - 1)
    throw fail(
      'usage',
      undefined,
      undefined,
      'record needs the git arguments after "--", e.g. packscope record -- log --raw -n 1000',
    );
  const { values } = parseArgs({
    args: argv.slice(0, separator),
    allowPositionals: false,
    options: {
      exact: { type: 'boolean' },
      passive: { type: 'boolean' },
      complete: { type: 'string' },
      check: { type: 'boolean' },
      'threads-as-is': { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      C: { type: 'string', short: 'C' },
      git: { type: 'string' },
      ...cacheOptionSpec,
    },
  });
  if (values.exact && values.passive)
    throw fail('usage', undefined, undefined, '--exact and --passive exclude each other');
  const gitArgs = gitArgumentsTyped(argv.slice(separator + 1));
  if (gitArgs.length === 0)
    throw fail(
      'usage',
      undefined,
      undefined,
      'record needs git\'s arguments after "--" (without "git"), e.g. packscope record -- log --raw -n 1000',
    );
  const cwd = path.resolve(values.C ?? '.');
  const repository = discoverRepository(cwd);
  const output = path.resolve(values.output ?? defaultRecordingPath(repository, gitArgs));
  refuseInsideRepository(
    output,
    repository,
    () => 'the recording must be written outside the repository; PackScope never writes inside a repository',
  );
  refuseInsideAnyRepository(
    output,
    () => 'the recording must be written outside the repository; PackScope never writes inside a repository',
  );
  makeDirectories(path.dirname(output), 0o777);
  const store = new ObjectStore(repository, modelStoreFor(cacheOptions(values), repository));
  const complete = values.complete === undefined ? undefined : parseLimits(values.complete);
  if (complete && values.passive)
    throw fail('usage', undefined, undefined, '--complete needs an exact recording (not --passive)');
  const threaded = threadedReader(gitArgs);
  const runsAgain = complete !== undefined || values.check === true || threaded?.rerunReadsAlike === true;
  // Input that runs again, or that completing an exact recording later will need (kept beside it).
  const keepsInput = runsAgain || (!values.passive && readsStandardInput(gitArgs));
  const input = keepsInput && !process.stdin.isTTY ? readStdin() : undefined;
  // While git runs: pack reads so far (the trace, tailed a bounded chunk per tick) and the command
  // it is in. Not when git's output is the terminal too: a pager or git's own lines would be drawn over.
  let tail: TraceTail | undefined;
  const showProgress = !process.stdout.isTTY;
  const record = (): ReturnType<typeof recordGitCommand> =>
    recordGitCommand({
      git: values.git ?? 'git',
      args: gitArgs,
      cwd,
      store,
      mode: values.passive ? 'passive' : 'exact',
      output,
      ...(complete ? { complete } : {}),
      ...(input !== undefined ? { input } : {}),
      ...(values.check ? { check: true } : {}),
      ...(values['threads-as-is'] ? { threads: 'as-is' as const } : {}),
      onRun: runsAgain
        ? (run, runs, limit) =>
            process.stderr.write(
              `packscope: run ${run} of ${runs}: git ${gitArgs.join(' ')} at core.deltaBaseCacheLimit=${formatLimit(limit)}\n`,
            )
        : undefined,
      onSpawn: (_child, traceFile) => {
        tail = new TraceTail(traceFile);
      },
    });
  const describeCommand = `git ${gitArgs.join(' ')}`.slice(0, 60);
  const metadata = showProgress
    ? await progress.activity(
        `Recording \`${describeCommand}\``,
        () => {
          if (!tail) return 'starting';
          tail.poll();
          const now = tail.command && tail.command !== describeCommand ? `, in ${tail.command}` : '';
          return `${tail.reads.toLocaleString('en-US')} pack read${tail.reads === 1 ? '' : 's'}${now}`;
        },
        record,
      )
    : await record();
  const lines = fs.existsSync(output) ? countAccessLines(output) : 0;
  const completeness = metadata.completeAt
    ? `; complete at ${metadata.completeAt.map(formatLimit).join(', ')}: ${(metadata.hiddenReads ?? []).reduce((sum, [, count]) => sum + count, 0)} hidden reads found` +
      (metadata.ambiguousReads
        ? `, ${metadata.ambiguousReads.length} ${metadata.ambiguousReads.length === 1 ? 'place' : 'places'} where the runs allow more than one reading (bounded, not chosen)`
        : '')
    : '';
  if (metadata.singleThreaded !== undefined)
    process.stderr.write(
      `packscope: recorded single-threaded (${metadata.singleThreaded}): ${threaded?.reads ?? 'the command reads in threads'} by default, in an order that differs run to run; its replays are of the single-threaded command\n`,
    );
  else if (threaded !== undefined)
    process.stderr.write(
      `packscope: warning: ${threaded.reads}${threaded.explicitThreads ? ' (--threads on its command line)' : ''}: its reads differ run to run, so no replay of this recording is exact\n`,
    );
  if (metadata.check)
    process.stderr.write(
      metadata.check.identical
        ? `packscope: checked: a second run read the same ${metadata.check.lines[0]} objects in the same order\n`
        : `packscope: warning: not deterministic: a second run read differently (${metadata.check.lines[0]} and ${metadata.check.lines[1]} pack reads${metadata.check.firstDifference !== undefined ? `, parting at read ${metadata.check.firstDifference + 1}` : ''}); no replay of this recording is called exact\n`,
    );
  process.stderr.write(
    `packscope: recorded ${lines} pack reads of \`git ${gitArgs.join(' ')}\` (${metadata.mode}, core.deltaBaseCacheLimit=${formatLimit(metadata.cacheLimit)}${completeness}) to ${output}${gitFailed(metadata)}\n`,
  );
  if (metadata.signal) return 1;
  return metadata.exitStatus ?? 1;
}

/** What the summary line adds when git failed: a recording of a failed command reads what it read before failing. */
function gitFailed(metadata: Pick<RecordingMetadata, 'exitStatus' | 'signal'>): string {
  if (metadata.signal) return `; git was killed by ${metadata.signal}`;
  return metadata.exitStatus !== null && metadata.exitStatus !== 0
    ? `; git exited with status ${metadata.exitStatus}`
    : '';
}

/** Largest stdin a recording keeps (beside it) to give to every run. */
const MAX_STDIN_BYTES = 256 << 20;

/** stdin read in full, as bytes: what a command reads may be binary (a pack for index-pack --stdin). */
function readStdin(): Buffer {
  const chunks: Buffer[] = [];
  let total = 0;
  const chunk = Buffer.allocUnsafe(1 << 16);
  for (;;) {
    let got: number;
    try {
      got = fs.readSync(0, chunk, 0, chunk.length, null);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EAGAIN') continue;
      if ((error as NodeJS.ErrnoException).code === 'EOF') break;
      throw error;
    }
    if (got === 0) break;
    total += got;
    if (total > MAX_STDIN_BYTES)
      throw fail(
        'usage',
        undefined,
        undefined,
        `stdin is over ${MAX_STDIN_BYTES >> 20} MiB: too large to keep with the recording and give to every run`,
      );
    chunks.push(Buffer.from(chunk.subarray(0, got)));
  }
  return Buffer.concat(chunks);
}

export const recordCommand: Command = {
  name: 'record',
  summary: 'record [--exact|--passive] -- <git args>  run a git command and record its pack reads',
  help: recordHelp,
  forwardsAfterDoubleDash: true,
  run: (argv, { progress }) => runRecord(argv, progress),
};
