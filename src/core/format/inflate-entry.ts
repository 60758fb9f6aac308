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
