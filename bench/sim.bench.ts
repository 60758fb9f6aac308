/**
 * Simulator benchmark (part of `npm run bench`; see bench/README.md). On a recording of
 * `git log -p --all` made on the repository the pack benchmark generates (cached in .bench/), it prints:
 *   1. replay rate of the `git` policy on one thread, in reads per second (target >= 5,000,000),
 *      after one warm-up replay (the JIT's first pass is reported too);
 *   2. a sweep of 8 limits x 8 policies over the first 250,000 reads, in worker threads on every
 *      core, wall time (target < 5 s);
 *   3. trace parsing throughput in MB/s on a 256 MiB trace made by repeating the recording's
 *      lines (target >= 100 MB/s);
 *   4. with --scale: the same sweep over a 5,000,000-read recording, the recording's
 *      reads repeated end to end over the same pack (target < 30 s on 2 cores).
 * PACKSCOPE_SIM_RECORDING=FILE npm run bench measures a recording of your own instead.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { loadRecording } from '../src/cli/load-recording.ts';
import { Progress } from '../src/cli/progress.ts';
import { parsePolicy } from '../src/core/sim/policy-registry.ts';
import { runSweep } from '../src/core/sim/sweep.ts';
import { parseTraceFile } from '../src/core/trace/trace-log.ts';
import { benchDir, DEFAULT_HISTORY, generatedPack, generatedRecording, projectRoot } from './generate.ts';
import { recordFigures } from './results.ts';

const SWEEP_READS = 250_000;
const SWEEP_LIMITS = [0, 1 << 20, 4 << 20, 16 << 20, 32 << 20, 64 << 20, 96 << 20, 256 << 20];
const SWEEP_POLICIES = [
  'git',
  'git-legacy',
  'separate-blob-lru',
  'admit-max:1m',
  'keep-on-hit',
  'gdsf',
  'libgit2',
  'belady',
];
const BIG_TRACE_BYTES = 256 << 20;

const SCALE_SWEEP_READS = 5_000_000;
const { values } = parseArgs({ options: { json: { type: 'boolean' }, scale: { type: 'boolean' } }, strict: false });
const log = (line: string): void => void process.stderr.write(`${line}\n`);

function recordingOfGeneratedRepository(): string {
  const generated = generatedPack(DEFAULT_HISTORY, log);
  return generatedRecording(generated.key, path.dirname(path.dirname(path.dirname(generated.pack))), log);
}

function bigTrace(recording: string): string {
  const file = path.join(benchDir, `trace-${BIG_TRACE_BYTES}.trace`);
  if (fs.existsSync(file) && fs.statSync(file).size >= BIG_TRACE_BYTES) return file;
  const lines = fs.readFileSync(recording, 'utf8').split('\n').slice(1).join('\n');
  const block = Buffer.from(lines.endsWith('\n') ? lines : `${lines}\n`);
  const fd = fs.openSync(file, 'w');
  for (let written = 0; written < BIG_TRACE_BYTES; written += block.length) fs.writeSync(fd, block);
  fs.closeSync(fd);
  return file;
}

async function main(): Promise<void> {
  const recording = process.env.PACKSCOPE_SIM_RECORDING
    ? path.resolve(process.env.PACKSCOPE_SIM_RECORDING)
    : recordingOfGeneratedRepository();
  const loaded = loadRecording(recording, { cacheDir: path.join(benchDir, 'models') }, new Progress(false));
  const reads = loaded.reads;
  log(`simulator: ${recording}: ${reads.length} reads over ${loaded.objects.count} objects`);

  // 1. Replay rate, git policy, one thread.
  const git = parsePolicy('git');
  const replay = (): number => {
    const started = performance.now();
    git.run(loaded.objects, reads, 96 << 20);
    return (performance.now() - started) / 1000;
  };
  const cold = replay();
  let warm = Infinity;
  for (let i = 0; i < 5; i++) warm = Math.min(warm, replay());
  const replayRate = reads.length / warm;

  // 2. Sweep 8 x 8 over the first 250,000 reads.
  const sweepReads = reads.subarray(0, Math.min(SWEEP_READS, reads.length));
  const sweepStarted = performance.now();
  await runSweep(loaded.objects, sweepReads, [0], SWEEP_POLICIES, SWEEP_LIMITS, {
    workerScript: path.join(projectRoot, 'dist', 'sim-worker.js'),
  });
  const sweepSeconds = (performance.now() - sweepStarted) / 1000;

  // 3. Trace parsing throughput.
  const big = bigTrace(recording);
  let parseSeconds = Infinity;
  let parsedLines = 0;
  for (let i = 0; i < 2; i++) {
    const started = performance.now();
    parsedLines = parseTraceFile(big).readPack.length;
    parseSeconds = Math.min(parseSeconds, (performance.now() - started) / 1000);
  }
  const parseRate = fs.statSync(big).size / 1e6 / parseSeconds;

  // 4. Sweep 8 x 8 over 5 M reads (--scale): the recording's reads repeated, so every read is one
  //    git made on this pack and the cache sees the same pattern again and again.
  let scaleSweep: { reads: number; seconds: number; target: number; pass: boolean } | undefined;
  if (values.scale) {
    const many = new Int32Array(SCALE_SWEEP_READS);
    for (let at = 0; at < many.length; at += reads.length)
      many.set(reads.subarray(0, Math.min(reads.length, many.length - at)), at);
    log(`sweep 8 x 8 over ${many.length} reads…`);
    const started = performance.now();
    await runSweep(loaded.objects, many, [0], SWEEP_POLICIES, SWEEP_LIMITS, {
      workerScript: path.join(projectRoot, 'dist', 'sim-worker.js'),
    });
    const seconds = (performance.now() - started) / 1000;
    scaleSweep = { reads: many.length, seconds, target: 30, pass: seconds < 30 };
  }

  const results = {
    recording,
    reads: reads.length,
    replay: {
      readsPerSecond: Math.round(replayRate),
      firstReplaySeconds: cold,
      bestOfFiveSeconds: warm,
      target: 5_000_000,
      pass: replayRate >= 5_000_000,
    },
    sweep: {
      cells: SWEEP_LIMITS.length * SWEEP_POLICIES.length,
      policies: SWEEP_POLICIES,
      reads: sweepReads.length,
      seconds: sweepSeconds,
      target: 5,
      pass: sweepSeconds < 5,
    },
    ...(scaleSweep ? { scaleSweep } : {}),
    traceParse: {
      file: big,
      bytes: fs.statSync(big).size,
      lines: parsedLines,
      seconds: parseSeconds,
      megabytesPerSecond: parseRate,
      target: 100,
      pass: parseRate >= 100,
    },
  };
  if (scaleSweep)
    recordFigures('sim', [
      {
        target: 'sweep-5m',
        subject: `${path.basename(recording)}, repeated to ${scaleSweep.reads} reads`,
        value: `${scaleSweep.seconds.toFixed(1)} s`,
        met: scaleSweep.pass,
        note: `8 limits x 8 policies (${SWEEP_POLICIES.join(', ')}) in worker threads on ${os.availableParallelism()} cores`,
      },
    ]);
  if (values.json) {
    process.stdout.write(`${JSON.stringify(results, null, 2)}\n`);
    return;
  }
  const mark = (pass: boolean): string => (pass ? 'PASS' : 'MISS');
  console.log(
    `\nSimulator (${reads.length} reads of ${path.basename(recording)}; ${loaded.objects.count} objects touched)`,
  );
  console.log(
    `  replay, git policy, 1 thread   ${(replayRate / 1e6).toFixed(2)} M reads/s (best of 5 after a first, cold pass of ${(cold * 1000).toFixed(0)} ms)   target >= 5 M/s   ${mark(results.replay.pass)}`,
  );
  console.log(
    `  sweep 8 limits x 8 policies    ${sweepSeconds.toFixed(2)} s over ${sweepReads.length} reads (${SWEEP_POLICIES.join(', ')})   target < 5 s   ${mark(results.sweep.pass)}`,
  );
  if (scaleSweep)
    console.log(
      `  sweep 8 x 8, 5 M reads          ${scaleSweep.seconds.toFixed(2)} s over ${scaleSweep.reads} reads (the recording repeated)   target < 30 s   ${mark(scaleSweep.pass)}`,
    );
  console.log(
    `  trace parsing                  ${parseRate.toFixed(0)} MB/s (${(results.traceParse.bytes / 2 ** 20).toFixed(0)} MiB, ${parsedLines} reads in ${parseSeconds.toFixed(2)} s)   target >= 100 MB/s   ${mark(results.traceParse.pass)}`,
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.stack : error);
  process.exitCode = 1;
});
