import { limitsWiderThan, WIDE_BOUND_SHARE } from '../../common/bound-width.ts';
import { formatLimit } from '../../common/format.ts';
import { shellQuote, splitShellWords } from '../../common/shell-words.ts';
import { readsInThreads } from '../../common/threaded-readers.ts';
import type { PolicyRunner } from '../sim/policy-definition.ts';
import { simulateSegments, type RecordingBasis } from '../sim/simulate.ts';
import { runSweep, type SweepOptions } from '../sim/sweep.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';
import { inputPath } from '../../common/recording-sidecar.ts';
import type { RecordingMetadata } from '../trace/recording.ts';
import { recordingSummary } from './recording.ts';
import type { SimResult, SimulationDocument } from '../documents/simulation-documents.ts';

/** Where each git process of the kept reads starts: each replays with its own empty cache (git-internals §1.2). */
function segmentStarts(loaded: LoadedRecording): number[] {
  return loaded.segments.map((s) => s.firstRead);
}

/**
 * What the recording's header says about the reads it may hide (git-internals §8.1): the limit it
 * was made with and, for a complete recording, where it is complete. Reads left out while loading
 * (unknown packs, bad offsets) make a limit-0 replay inconsistent, which the bounds detect.
 */
export function recordingBasis(loaded: LoadedRecording): RecordingBasis {
  const metadata = loaded.log.metadata;
  // completeAt only once load-recording.ts has inserted the hidden reads it found.
  return {
    recordedLimit: metadata?.cacheLimit ?? loaded.environmentLimit,
    completeAt: loaded.completeAt,
    known: loaded.knownPlaces,
    inserted: loaded.insertedReads,
    notDeterministic: notDeterministic(loaded),
    singleThreaded: metadata?.singleThreaded,
    readList: loaded.readList,
  };
}

/**
 * Why the recording's command reads differently run to run, if it does: two runs of `record
 * --check` differed, or a git process of it is known to read in threads and was not made to read
 * in one (src/common/threaded-readers.ts; a raw trace's processes by their command lines).
 */
function notDeterministic(loaded: LoadedRecording): string | undefined {
  const metadata = loaded.log.metadata;
  const check = metadata?.check;
  if (check && !check.identical)
    return `not deterministic: two runs of the command read differently (${check.lines[0]} and ${check.lines[1]} pack reads${check.firstDifference !== undefined ? `, parting at read ${check.firstDifference + 1}` : ''}), so no replay is exact for another run`;
  if (metadata) {
    if (metadata.singleThreaded !== undefined) return undefined;
    const reader = readsInThreads(metadata.command);
    return reader ? threadedText(reader.reads, reader.singleThread) : undefined;
  }
  for (const segment of loaded.segments) {
    const words = splitShellWords(segment.givenCommand ?? segment.command ?? '');
    if (!words || words[0] !== 'git') continue;
    const reader = readsInThreads(words.slice(1));
    if (reader) return threadedText(`${reader.reads} (${segment.command})`, reader.singleThread);
  }
  return undefined;
}

function threadedText(reads: string, single: { key: string; value: string }): string {
  return `not deterministic: ${reads}, so its reads differ run to run and no replay is exact for another run (packscope record runs it with ${single.key}=${single.value})`;
}

/** One policy at one limit over a recording's reads (`packscope simulate`). */
export function simulateRecording(loaded: LoadedRecording, runner: PolicyRunner, limit: number): SimResult {
  return simulateSegments(runner, loaded.objects, loaded.reads, segmentStarts(loaded), limit, recordingBasis(loaded));
}

/** Every policy at every limit over a recording's reads, cells in worker threads: limits in the order given, policies within each. */
export function sweepRecording(
  loaded: LoadedRecording,
  policies: string[],
  limits: number[],
  options: SweepOptions,
): Promise<SimResult[]> {
  return runSweep(
    loaded.objects,
    loaded.reads,
    segmentStarts(loaded),
    policies,
    limits,
    options,
    recordingBasis(loaded),
  );
}

/** `packscope simulate --json` and `packscope sweep --json`. */
export function simulationDocument(
  schema: SimulationDocument['schema'],
  loaded: LoadedRecording,
  results: SimResult[],
): SimulationDocument {
  return { schema, recording: recordingSummary(loaded), results };
}

/**
 * The limits at which a cell of `results` is bounded more widely than WIDE_BOUND_SHARE (in
 * inflations, the count the cache decides), and the `packscope record` command that makes them
 * exact: the recording's own command run again at those limits (`--complete`, git-internals §8.1).
 * Undefined when no cell is that wide, or when the recording cannot say which command it made
 * (a raw trace: then `record` is the way, and `command` is undefined). `file`: the recording, whose
 * kept input (when its command read one) the command is given again.
 */
export function completionAdvice(
  metadata: RecordingMetadata | undefined,
  results: readonly SimResult[],
  file?: string,
): { limits: number[]; command: string | undefined } | undefined {
  const limits = limitsWiderThan(results, WIDE_BOUND_SHARE);
  if (limits.length === 0) return undefined;
  if (metadata === undefined || metadata.mode !== 'exact') return { limits, command: undefined };
  const complete = [...new Set([...(metadata.completeAt ?? []), ...limits])].sort((a, b) => a - b);
  const command = [
    'packscope record',
    `--complete=${complete.map(formatLimit).join(',')}`,
    '-C',
    shellQuote(metadata.cwd),
    '--',
    ...metadata.command.map(shellQuote),
    // The input the command read, kept beside the recording (record-git.ts).
    ...(metadata.input !== undefined && file !== undefined ? ['<', shellQuote(inputPath(file))] : []),
  ].join(' ');
  return { limits, command };
}
