/**
 * git's progress meter on stderr (progress.c): `Title: N`, `Title: P% (done/total)`, each
 * optionally followed by `, <throughput>` and `, done.`, redrawn with `\r` and ended with `\n`.
 * A pure parser, fed chunks split anywhere, so that a line cut between two reads still counts.
 */
export interface GitProgress {
  /** git's title: `Enumerating objects`, `Counting objects`, `Compressing objects`, `Writing objects`. */
  phase: string;
  done: number;
  /** undefined for meters without a total (`Enumerating objects: 1234`). */
  total: number | undefined;
  /** The meter's last redraw (`, done.`). */
  finished: boolean;
}

const METER = /^([A-Z][A-Za-z ]*?):\s+(?:\d+%\s+\((\d+)\/(\d+)\)|(\d+))(.*)$/;

export function parseProgressLine(line: string): GitProgress | undefined {
  const match = METER.exec(line.trim());
  if (!match) return undefined;
  const finished = /, done\.\s*$/.test(match[5] ?? '');
  if (match[2] !== undefined) return { phase: match[1]!, done: Number(match[2]), total: Number(match[3]), finished };
  return { phase: match[1]!, done: Number(match[4]), total: undefined, finished };
}

/** Splits stderr into progress updates and the other lines (kept for error messages). */
export class GitStderrParser {
  private pending = '';
  readonly otherLines: string[] = [];

  constructor(private readonly onProgress: (progress: GitProgress) => void) {}

  push(chunk: string): void {
    const text = this.pending + chunk;
    const parts = text.split(/[\r\n]/);
    this.pending = parts.pop() ?? '';
    for (const part of parts) this.line(part);
  }

  end(): void {
    if (this.pending !== '') this.line(this.pending);
    this.pending = '';
  }

  private line(line: string): void {
    if (line.trim() === '') return;
    const progress = parseProgressLine(line);
    if (progress) this.onProgress(progress);
    else if (this.otherLines.length < 200) this.otherLines.push(line);
  }
}
