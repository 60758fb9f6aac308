/**
 * Progress on stderr for long work, only when stderr is a terminal (like git's --progress default),
 * so that output captured by scripts and tests stays clean.
 */
export class Progress {
  private lastDraw = 0;
  constructor(private readonly enabled: boolean) {}

  static forStderr(): Progress {
    return new Progress(Boolean(process.stderr.isTTY) && !process.env.PACKSCOPE_NO_PROGRESS);
  }

  track<T>(title: string, work: (onProgress: (done: number, total: number) => void) => T): T {
    const result = work((done, total) => this.draw(title, done, total));
    this.finish();
    return result;
  }

  async trackAsync<T>(title: string, work: (onProgress: (done: number, total: number) => void) => Promise<T>): Promise<T> {
    const result = await work((done, total) => this.draw(title, done, total));
    this.finish();
    return result;
  }

  private draw(title: string, done: number, total: number): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.lastDraw < 100 && done < total) return;
    this.lastDraw = now;
    const percent = total === 0 ? 100 : Math.floor((done / total) * 100);
    process.stderr.write(`\r${title}: ${percent}% (${done}/${total})\x1b[K`);
  }

  private finish(): void {
    if (this.enabled && this.lastDraw !== 0) process.stderr.write('\r\x1b[K');
    this.lastDraw = 0;
  }
}
