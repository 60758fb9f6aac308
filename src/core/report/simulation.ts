import type { PolicyRunner } from '../sim/policy-definition.ts';
import { simulateSegments, type RecordingBasis } from '../sim/simulate.ts';
import { runSweep, type SweepOptions } from '../sim/sweep.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';
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
  };
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
