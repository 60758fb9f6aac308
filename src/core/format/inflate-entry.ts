import * as zlib from 'node:zlib';
import { inflateSync } from 'node:zlib';
import { errorMessage } from '../../common/error-message.ts';
import { fail } from '../errors.ts';

/**
 * Inflates one pack entry's zlib data, which must give exactly the `declared` bytes of its header
 * and end exactly where the entry ends. maxOutputLength stops a stream that would inflate past its
 * declared size there, so a few bytes of crafted zlib cannot make it allocate gigabytes. `what`
 * is how the messages name the data: `entry` (a model's reads), `object` (verify-pack's).
 */
export function inflateDeclared(
  compressed: Uint8Array,
  declared: number,
  file: string,
  offset: number,
  what: 'entry' | 'object',
): Buffer {
  let result: { buffer: Buffer; engine: { bytesWritten: number } };
  try {
    result = inflateSync(compressed, {
      info: true,
      maxOutputLength: Math.max(1, declared),
    }) as unknown as typeof result;
  } catch (error) {
    throw fail(
      'bad-zlib',
      file,
      offset,
      `${what} data does not inflate to its declared ${declared} bytes: ${errorMessage(error)}`,
    );
  }
  if (result.buffer.length !== declared)
    throw fail(
      'bad-zlib',
      file,
      offset,
      `${what} inflates to ${result.buffer.length} bytes, its header declares ${declared}`,
    );
  if (result.engine.bytesWritten !== compressed.length)
    throw fail(
      'bad-zlib',
      file,
      offset,
      `zlib stream ends after ${result.engine.bytesWritten} of the entry's ${compressed.length} bytes`,
    );
  return result.buffer;
}

/** The part of a zlib engine's native handle that a reused inflate needs (Node's zlib.js drives it the same way). */
interface ZlibHandle {
  writeSync(
    flush: number,
    input: Uint8Array,
    inputOffset: number,
    inputLength: number,
    output: Uint8Array,
    outputOffset: number,
    outputLength: number,
  ): void;
  reset(): void;
  onerror: (message: string, errno: number) => void;
}

/**
 * inflateDeclared with one zlib stream reused for every entry. inflateSync builds a stream object,
 * a native context and chunk buffers per call: about 6 µs of a walk's 8 µs per small tree delta.
 * This drives the native handle the way zlib.js's own sync path does, into an output of exactly the
 * declared size plus one byte, so the same three checks hold: the stream ends (zlib reports a
 * truncated or corrupt stream, and its checksum), it gives exactly `declared` bytes (the spare
 * byte catches more), and it ends where the entry ends. Node's handle is internal: when it is not
 * there as expected, or gets a sample wrong, every call falls back to inflateDeclared.
 */
export class Inflater {
  private readonly handle: ZlibHandle | undefined;
  private readonly state: Uint32Array | undefined;
  private error: string | undefined;

  constructor() {
    try {
      const engine = zlib.createInflate() as unknown as { _handle?: Partial<ZlibHandle>; _writeState?: unknown };
      const handle = engine._handle;
      const state = engine._writeState;
      if (
        handle &&
        typeof handle.writeSync === 'function' &&
        typeof handle.reset === 'function' &&
        state instanceof Uint32Array &&
        state.length >= 2
      ) {
        handle.onerror = (message: string) => {
          this.error = message;
        };
        this.handle = handle as ZlibHandle;
        this.state = state;
        if (!this.sampleWorks()) this.handle = undefined;
      }
    } catch {
      this.handle = undefined;
    }
  }

  inflate(compressed: Uint8Array, declared: number, file: string, offset: number, what: 'entry' | 'object'): Buffer {
    const { handle, state } = this;
    if (!handle || !state) return inflateDeclared(compressed, declared, file, offset, what);
    const output = Buffer.allocUnsafe(declared + 1);
    this.error = undefined;
    handle.reset();
    handle.writeSync(zlib.constants.Z_FINISH, compressed, 0, compressed.length, output, 0, declared + 1);
    if (this.error !== undefined)
      throw fail(
        'bad-zlib',
        file,
        offset,
        `${what} data does not inflate to its declared ${declared} bytes: ${this.error}`,
      );
    const written = declared + 1 - state[0]!;
    if (written !== declared)
      throw fail(
        'bad-zlib',
        file,
        offset,
        written > declared
          ? `${what} data does not inflate to its declared ${declared} bytes: it gives more`
          : `${what} inflates to ${written} bytes, its header declares ${declared}`,
      );
    if (state[1] !== 0)
      throw fail(
        'bad-zlib',
        file,
        offset,
        `zlib stream ends after ${compressed.length - state[1]!} of the entry's ${compressed.length} bytes`,
      );
    return output.subarray(0, declared);
  }

  private sampleWorks(): boolean {
    const text = Buffer.from('100644 sample\0 a reused inflate must give back exactly this');
    try {
      const back = this.inflate(zlib.deflateSync(text), text.length, '(sample)', 0, 'entry');
      return back.equals(text);
    } catch {
      return false;
    }
  }
}
