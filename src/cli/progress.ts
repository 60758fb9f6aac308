/**
 * The one progress line every CLI command uses: on stderr, only when stderr is a terminal (like
 * git's --progress default), so output captured by scripts and tests stays clean; and only once a
 * job has run for a while (PACKSCOPE_PROGRESS_DELAY milliseconds, default 1000), so short jobs print
 * nothing. PACKSCOPE_NO_PROGRESS turns it off. The line carries the elapsed time: on a long job
 * that is what tells a user it is still working.
 */
const DEFAULT_DELAY_MS = 1000;
/** Redraws at most this often (a terminal redrawn per object would cost more than the work). */
const REDRAW_MS = 100;
/** Async jobs redraw on a timer too, so the elapsed time moves while no count does. */
const TICK_MS = 250;

export type ProgressCallback = (done: number, total: number) => void;

export function progressDelayMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = env.PACKSCOPE_PROGRESS_DELAY;
  if (value === undefined || value === '') return DEFAULT_DELAY_MS;
  const n = Number(value);
  return Number.isFinite(n) && n >= 0 ? n : DEFAULT_DELAY_MS;
}

import * as path from 'node:path';
import { percent } from '../common/format.ts';
import type { ObjectStore } from '../core/model/object-store.ts';

const count = (n: number): string => n.toLocaleString('en-US');

function elapsed(ms: number): string {
  const s = ms / 1000;
  return s < 60 ? `${s.toFixed(1)} s` : `${Math.floor(s / 60)} min ${String(Math.floor(s % 60)).padStart(2, '0')} s`;
}

export class Progress {
  private lastDraw = 0;
  private drawn = false;
  private started = 0;
  private title = '';
  private detail = '';
  /** Jobs under way, outermost first: a model build inside "Walking…" shows as its own title, then gives the line back. */
  private depth = 0;
  private readonly titles: string[] = [];

  constructor(
    private readonly enabled: boolean,
    private readonly delayMs = DEFAULT_DELAY_MS,
    private readonly write: (text: string) => void = (text) => process.stderr.write(text),
  ) {}

  static forStderr(): Progress {
    return new Progress(Boolean(process.stderr.isTTY) && !process.env.PACKSCOPE_NO_PROGRESS, progressDelayMs());
  }

  /** Synchronous work that reports counts: the line is drawn from its callbacks. */
  track<T>(title: string, work: (onProgress: ProgressCallback) => T): T {
    this.begin(title);
    try {
      return work((done, total) => this.counted(done, total));
    } finally {
      this.finish();
    }
  }

  /** Asynchronous work that reports counts; the elapsed time also moves between reports. */
  async trackAsync<T>(title: string, work: (onProgress: ProgressCallback) => Promise<T>, unit?: string): Promise<T> {
    this.begin(title);
    const timer = this.tick();
    try {
      return await work((done, total) => this.counted(done, total, unit));
    } finally {
      clearInterval(timer);
      this.finish();
    }
  }

  /**
   * Asynchronous work that reports free text ("12,345 pack reads"): recording a git command, whose
   * only measure is the trace it writes. `poll` is called on each tick to refresh the text.
   */
  async activity<T>(title: string, poll: () => string, work: () => Promise<T>): Promise<T> {
    this.begin(title);
    const timer = this.tick(() => {
      this.detail = poll();
    });
    try {
      return await work();
    } finally {
      clearInterval(timer);
      this.finish();
    }
  }

  /** Model builds of `store` (read on first use, inside any command) draw on this line too. */
  reportBuilds(store: ObjectStore): void {
    // Off, nothing would be drawn: no progress callback for each build (3,000 packs made 3,000).
    if (!this.enabled) return;
    store.onBuildProgress = (pack, done, total) =>
      this.nested(`Reading ${path.basename(pack.files.pack)}`, done, total);
  }

  /** A count from work that has no track of its own: inside a job it borrows the line, else it is one. */
  private nested(title: string, done: number, total: number): void {
    if (this.depth === 0) {
      if (done === 0 || this.title !== title) this.begin(title, false);
      this.counted(done, total);
      if (done >= total) this.finish();
      return;
    }
    const outer = this.title;
    this.title = title;
    this.counted(done, total);
    this.title = outer;
    this.detail = '';
  }

  private begin(title: string, counts = true): void {
    // The elapsed time is the whole job's: an inner step (a build inside a walk) does not restart it.
    if (this.depth === 0) {
      this.started = Date.now();
      this.lastDraw = 0;
    }
    if (counts) {
      this.titles.push(title);
      this.depth++;
    }
    this.title = title;
    this.detail = '';
  }

  private tick(before?: () => void): NodeJS.Timeout | undefined {
    if (!this.enabled) return undefined;
    const timer = setInterval(() => {
      before?.();
      this.draw(true);
    }, TICK_MS);
    timer.unref();
    return timer;
  }

  /** `unit` names what is counted ("52% (12,943 of 24,842 commits)"). */
  private counted(done: number, total: number, unit?: string): void {
    if (!this.enabled) return;
    this.detail = `${percent(done, total)}% (${count(done)} of ${count(total)}${unit === undefined ? '' : ` ${unit}`})`;
    this.draw(done >= total);
  }

  private draw(force: boolean): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.started < this.delayMs) return;
    if (!force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    this.drawn = true;
    const detail = this.detail === '' ? '' : `: ${this.detail}`;
    this.write(`\r${this.title}${detail}, ${elapsed(now - this.started)}\x1b[K`);
  }

  private finish(): void {
    if (this.depth > 0) {
      this.depth--;
      this.titles.pop();
    }
    if (this.depth > 0) {
      this.title = this.titles[this.titles.length - 1]!;
      this.detail = '';
      return;
    }
    if (this.enabled && this.drawn) this.write('\r\x1b[K');
    this.drawn = false;
  }
}
