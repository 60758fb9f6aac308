/**
 * Follows a trace file while git writes it, for a progress line: pack reads so far and the git
 * command last started ("trace: built-in: git …" lines, GIT_TRACE). Each poll reads at most
 * `maxBytesPerPoll` new bytes, so a fast-growing trace costs a bounded amount per tick and the
 * count catches up over later ticks; the full count comes from the finished file as before.
 */
import * as fs from 'node:fs';

const ACCESS_LINE = /\.pack \d+$/;
const COMMAND_LINE = /trace: (?:built-in|exec|run_command): (.*)$/;
/** A line longer than this is no trace line PackScope counts: its bytes are dropped, not kept. */
const MAX_LINE_BYTES = 64 << 10;

export class TraceTail {
  /** Pack-access lines seen so far. */
  reads = 0;
  /** The last git command the trace named (GIT_TRACE), shortened. */
  command: string | undefined;
  private position = 0;
  private partial = '';
  private readonly buffer: Buffer;

  constructor(
    private readonly file: string,
    maxBytesPerPoll = 4 << 20,
  ) {
    this.buffer = Buffer.allocUnsafe(maxBytesPerPoll);
  }

  /** Reads what was added since the last poll (up to the cap); a missing file is an empty trace. */
  poll(): void {
    let fd: number;
    try {
      // O_NONBLOCK: the path is PackScope's own temporary file, but a FIFO there must not block a tick.
      fd = fs.openSync(this.file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
    } catch {
      return;
    }
    try {
      const got = fs.readSync(fd, this.buffer, 0, this.buffer.length, this.position);
      if (got === 0) return;
      this.position += got;
      const lines = (this.partial + this.buffer.toString('latin1', 0, got)).split('\n');
      this.partial = lines.pop()!;
      if (this.partial.length > MAX_LINE_BYTES) this.partial = '';
      for (const line of lines) {
        if (ACCESS_LINE.test(line)) this.reads++;
        else {
          const command = COMMAND_LINE.exec(line);
          if (command) this.command = command[1]!.length > 60 ? `${command[1]!.slice(0, 59)}…` : command[1];
        }
      }
    } finally {
      fs.closeSync(fd);
    }
  }
}
