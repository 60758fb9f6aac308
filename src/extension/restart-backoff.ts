/**
 * When to restart a server that died: exponentially later with every crash in a row, so that a
 * server that crashes on start-up does not spin, and not at all after `maxCrashes` in a row. A run
 * that lasted `stableMs` ends the streak.
 */
export class RestartBackoff {
  private streak = 0;
  private startedAt = 0;

  constructor(
    private readonly firstDelayMs = 1000,
    private readonly maxDelayMs = 60_000,
    private readonly maxCrashes = 8,
    private readonly stableMs = 3 * 60_000,
  ) {}

  /** Call when the server (re)starts. */
  noteStart(now: number): void {
    this.startedAt = now;
  }

  /** Call when the server died; returns the delay before the next start, or undefined to stop trying. */
  noteCrash(now: number): number | undefined {
    if (this.startedAt !== 0 && now - this.startedAt >= this.stableMs) this.streak = 0;
    this.streak += 1;
    if (this.streak > this.maxCrashes) return undefined;
    return Math.min(this.maxDelayMs, this.firstDelayMs * 2 ** (this.streak - 1));
  }

  /** Crashes in the current streak. */
  get crashes(): number {
    return this.streak;
  }

  /** A restart the user asked for starts a new streak. */
  reset(): void {
    this.streak = 0;
  }
}
