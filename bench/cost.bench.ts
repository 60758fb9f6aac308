/**
 * Predicted against measured time: each workload is recorded once (packscope record,
 * limit 0, into a temporary directory: PackScope never writes inside a repository, and git.git's
 * mirror is read-only), priced by `packscope sweep --time` at limits 0, 1m, 16m and 96m, then run
 * for real, best of 3, with -c core.deltaBaseCacheLimit=L and its output to /dev/null. Prints
 * predicted and measured seconds and speed-ups (against limit 0) side by side, and the speed-up
 * error against the 15% bar.
 *
 * Measured time is git's CPU time (user + system, the calibration's measure too), with the wall
 * time beside it: on a shared machine (2 cores, several benches) wall time is mostly other
 * processes' load. The non-read time comes from the limit-0 run measured here (sweep --time
 * --recorded-seconds), not from the recording's own wall time.
 *
 * The sweep replays each recording's reads on git first (sweep --replay, read-replay.ts) unless
 * --no-replay, which prices them with the calibration's lists alone.
 *
 *   node scripts/build.mjs && node --import tsx bench/cost.bench.ts [--skip-git-git] [--skip-generated] [--commits N] [--no-replay] [--pinned]
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { childUsage } from '../src/core/git/child-usage.ts';
import { CALIBRATION_TUNABLES } from '../src/core/cost/calibrate.ts';
import { DEFAULT_HISTORY, generatedPack, gitEnv, projectRoot } from './generate.ts';

const LIMITS = ['0', '1m', '16m', '96m'];
/**
 * --pinned: the measured runs too get the calibration's malloc thresholds (GLIBC_TUNABLES), so
 * that glibc keeps freed memory as the calibration's and the replay's cat-file do: what is left
 * between predicted and measured is then the model's, not the command's heap.
 */
const PINNED = process.argv.includes('--pinned');
const BAR = 0.15;
const args = process.argv.slice(2);
const commitsArg = args.indexOf('--commits');
const commits = commitsArg >= 0 ? Number(args[commitsArg + 1]) : 2000;
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-cost-bench-'));
const cache = path.join(scratch, 'cache');
const cli = path.join(projectRoot, 'dist', 'cli.js');

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

/** git's CPU time and minor page faults (src/core/git/child-usage.ts): the memory effects the model prices only in part (the cache's peak), printed beside each limit's time (bench/README, 2026-12-03). */
async function runGit(
  repository: string,
  limit: string,
  gitArgs: string[],
): Promise<{ cpu: number; wall: number; faults: number | null }> {
  const started = process.hrtime.bigint();
  const env = PINNED ? { ...gitEnv(), GLIBC_TUNABLES: CALIBRATION_TUNABLES } : gitEnv();
  const usage = await childUsage(
    'git',
    ['-C', repository, '-c', `core.deltaBaseCacheLimit=${limit}`, ...gitArgs],
    env,
    undefined,
  );
  return { cpu: usage.cpuSeconds, wall: Number(process.hrtime.bigint() - started) / 1e9, faults: usage.minorFaults };
}

interface Row {
  limit: string;
  predicted: number;
  measured: number;
  wall: number;
  /** Minor page faults of the run with the best CPU time (null where /proc does not give them). */
  faults: number | null;
}

async function workload(name: string, repository: string, gitArgs: string[]): Promise<Row[]> {
  const recording = path.join(scratch, `${name.replace(/\W+/g, '-')}.psrec`);
  log(`${name}: recording (limit 0)…`);
  const devNull = fs.openSync('/dev/null', 'w');
  const recorded = spawnSync(
    process.execPath,
    [cli, 'record', '--exact', '-o', recording, '-C', repository, '--cache-dir', cache, '--', ...gitArgs],
    { cwd: scratch, stdio: ['ignore', devNull, 'inherit'], env: { ...gitEnv(), PACKSCOPE_NO_PROGRESS: '1' } },
  );
  fs.closeSync(devNull);
  if (recorded.status !== 0) throw new Error(`recording ${name} failed`);
  // Interleaved (0, 1m, 16m, 96m, 0, 1m, …), not three in a row per limit: on a shared machine a
  // burst of someone else's load then lands on every limit alike instead of on one.
  const runs = new Map<string, { cpu: number; wall: number; faults: number | null }[]>(LIMITS.map((l) => [l, []]));
  for (let r = 0; r < 3; r++)
    for (const limit of LIMITS) runs.get(limit)!.push(await runGit(repository, limit, gitArgs));
  const measured = new Map<string, { cpu: number; wall: number; faults: number | null }>();
  for (const limit of LIMITS) {
    const list = runs.get(limit)!;
    log(
      `${name}: ${limit} measured cpu ${list.map((x) => x.cpu.toFixed(2)).join(', ')}s, wall ${list.map((x) => x.wall.toFixed(2)).join(', ')}s`,
    );
    const best = list.reduce((a, x) => (x.cpu < a.cpu ? x : a));
    measured.set(limit, { cpu: best.cpu, wall: Math.min(...list.map((x) => x.wall)), faults: best.faults });
  }
  log(
    `${name}: load average after the runs ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const sweep = spawnSync(
    process.execPath,
    [
      cli,
      'sweep',
      '--time',
      ...(args.includes('--no-replay') ? ['--no-replay'] : ['--replay']),
      '--json',
      '--recorded-seconds',
      String(measured.get('0')!.cpu),
      '--limits',
      LIMITS.join(','),
      '--policies',
      'git',
      '--cache-dir',
      cache,
      recording,
    ],
    {
      cwd: scratch,
      encoding: 'utf8',
      maxBuffer: 1 << 28,
      env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  if (sweep.status !== 0) throw new Error(`sweep --time of ${name} failed`);
  const time = (
    JSON.parse(sweep.stdout) as {
      time: {
        cells: { policy: string; limit: number; predictedSeconds: number }[];
        nonRead: { seconds: number; recordedSeconds: number };
        calibration: { parameters: object };
        basis: object;
      };
    }
  ).time;
  log(
    `${name}: recorded ${time.nonRead.recordedSeconds.toFixed(2)}s, non-read ${time.nonRead.seconds.toFixed(2)}s; parameters ${JSON.stringify(time.calibration.parameters)}; basis ${JSON.stringify(time.basis)}`,
  );
  const rows: Row[] = [];
  for (const limit of LIMITS) {
    const bytes = limit === '0' ? 0 : Number(limit.slice(0, -1)) * (1 << 20);
    const cell = time.cells.find((c) => c.policy === 'git' && c.limit === bytes)!;
    rows.push({
      limit,
      predicted: cell.predictedSeconds,
      measured: measured.get(limit)!.cpu,
      wall: measured.get(limit)!.wall,
      faults: measured.get(limit)!.faults,
    });
  }
  return rows;
}

function report(name: string, rows: Row[]): boolean {
  const base = rows[0]!;
  let ok = true;
  console.log(
    `\n${name}   (load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')})`,
  );
  console.log(
    'limit   predicted  cpu meas.  (wall)      speed-up pred  meas  (wall)   error                      page faults',
  );
  for (const row of rows) {
    const ps = base.predicted / row.predicted;
    const ms = base.measured / row.measured;
    const error = Math.abs(ps / ms - 1);
    if (error > BAR) ok = false;
    const ws = base.wall / row.wall;
    console.log(
      `${row.limit.padEnd(7)} ${row.predicted.toFixed(2).padStart(8)}s ${row.measured.toFixed(2).padStart(8)}s ${`(${row.wall.toFixed(2)}s)`.padStart(9)}   ${ps.toFixed(2).padStart(8)}× ${ms.toFixed(2).padStart(5)}× ${`(${ws.toFixed(2)}×)`.padStart(8)}  ${(error * 100).toFixed(1).padStart(5)}% ${(error > BAR ? 'OVER the 15% bar' : 'within 15%').padEnd(17)} ${row.faults === null ? 'n/a' : String(row.faults).padStart(8)}`,
    );
  }
  return ok;
}

async function main(): Promise<void> {
  const results: [string, Row[]][] = [];
  console.log(
    `cost bench: ${os.cpus().length} CPUs, load average at the start ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(
        ' ',
      )}${PINNED ? `; measured runs with GLIBC_TUNABLES=${CALIBRATION_TUNABLES}` : ''}${args.includes('--no-replay') ? '; no replay' : '; reads replayed (sweep --replay)'}`,
  );
  try {
    if (!args.includes('--skip-git-git')) {
      const gitGit = '/work/.mirror/git+git/repo';
      for (const [name, gitArgs] of [
        ['git.git log --raw -n 20000', ['log', '--raw', '-n', '20000']],
        ['git.git log -p -n 2000', ['log', '-p', '-n', '2000']],
        ['git.git blame -- Makefile', ['blame', 'HEAD', '--', 'Makefile']],
      ] as [string, string[]][]) {
        const rows = await workload(name, gitGit, gitArgs);
        results.push([name, rows]);
        report(name, rows);
      }
    }
    if (!args.includes('--skip-generated')) {
      const generated = generatedPack({ ...DEFAULT_HISTORY, commits }, log);
      const gitDir = path.dirname(path.dirname(path.dirname(generated.pack)));
      const name = `generated (${commits} commits) log -p --all`;
      const rows = await workload(name, gitDir, ['log', '-p', '--all']);
      results.push([name, rows]);
      report(name, rows);
    }
    console.log('\nsummary');
    for (const [name, rows] of results) console.log(`${report(name, rows) ? 'within' : 'OVER'} the 15% bar: ${name}`);
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
