/**
 * Timings on a shared machine: before every timed run the bench waits until other processes
 * leave the CPUs alone, and after it checks how much CPU they took meanwhile (from /proc/stat,
 * minus this process and the children it waited for, from /proc/self/stat). A run during which
 * others used more than NOISY_CORES on average is repeated; if it stays noisy it is kept and
 * flagged. On systems without /proc the checks are skipped (load reported as NaN).
 */
import * as fs from 'node:fs';

/** /proc tick rate (USER_HZ); 100 on every Linux the bench is meant for. */
const TICKS_PER_SECOND = 100;
/** Average CPU use by other processes, in cores, below which the machine counts as quiet. */
export const QUIET_CORES = 0.15;
/** Average CPU use by other processes during a timed run above which the run is repeated. */
export const NOISY_CORES = 0.25;
const MAX_ATTEMPTS = 3;

export interface Snapshot {
  at: number;
  busy: number;
  own: number;
}

const hasProc = fs.existsSync('/proc/stat') && fs.existsSync('/proc/self/stat');

export function snapshot(): Snapshot {
  const at = performance.now();
  if (!hasProc) return { at, busy: NaN, own: NaN };
  const cpu = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = cpu.reduce((a, b) => a + b, 0);
  const idle = cpu[3]! + cpu[4]!;
  const self = fs.readFileSync('/proc/self/stat', 'utf8');
  // Fields after "(comm)": state ppid … utime(14) stime(15) cutime(16) cstime(17).
  const fields = self.slice(self.lastIndexOf(')') + 2).split(' ');
  const own = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
  return { at, busy: total - idle, own };
}

/** Cores' worth of CPU used by processes other than this one and its waited-for children. */
export function otherCores(from: Snapshot, to: Snapshot): number {
  const seconds = (to.at - from.at) / 1000;
  if (seconds <= 0) return 0;
  return Math.max(0, to.busy - from.busy - (to.own - from.own)) / TICKS_PER_SECOND / seconds;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

export class QuietGate {
  /** Other processes' load seen after each accepted run, for the report. */
  readonly loads: number[] = [];
  repeats = 0;
  waitedMs = 0;

  constructor(
    private readonly maxWaitMs: number,
    private readonly log: (line: string) => void,
  ) {}

  /** Waits (at most maxWaitMs) for a one-second window in which others use under QUIET_CORES. */
  waitForQuiet(): void {
    if (!hasProc || this.maxWaitMs <= 0) return;
    const started = performance.now();
    let announced = 0;
    for (;;) {
      const a = snapshot();
      sleep(1000);
      const load = otherCores(a, snapshot());
      if (load < QUIET_CORES) break;
      const waited = performance.now() - started;
      if (waited > this.maxWaitMs) {
        this.log(
          `      machine still busy (${load.toFixed(2)} cores used by other processes) after ${(waited / 1000).toFixed(0)} s: measuring anyway`,
        );
        break;
      }
      if (waited - announced > 15_000 || announced === 0) {
        this.log(`      waiting for other processes to go quiet (${load.toFixed(2)} cores busy)…`);
        announced = waited || 1;
      }
    }
    this.waitedMs += performance.now() - started;
  }

  /**
   * Runs `work` once the machine is quiet; repeats it (up to MAX_ATTEMPTS in all) while other
   * processes used more than NOISY_CORES during it. Returns the last result and its load.
   */
  run<T>(label: string, work: () => T): { value: T; load: number } {
    let value!: T;
    let load = 0;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      this.waitForQuiet();
      const a = snapshot();
      value = work();
      load = otherCores(a, snapshot());
      if (!(load > NOISY_CORES)) break;
      if (attempt < MAX_ATTEMPTS) {
        this.repeats++;
        this.log(`      ${label}: other processes used ${load.toFixed(2)} cores meanwhile; repeating`);
      } else {
        this.log(`      ${label}: still ${load.toFixed(2)} cores used by other processes; kept, flagged`);
      }
    }
    this.loads.push(load);
    return { value, load };
  }
}
