/**
 * The one layout of the files PackScope keeps in its model cache (models, object paths): an
 * 8-byte magic, the format version and the header's length (u32 LE each), the header as JSON, zero
 * padding to 8 bytes, the body's arrays, and an HMAC-SHA256 of all of that under the cache's
 * private key. A file is trusted only when the HMAC matches (nobody without the key can forge
 * one); the reader sizes its buffer by what the caller expects, never by the file.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { RandomAccessFile } from '../format/random-access-file.ts';

const PREFIX_BYTES = 16;
const TRAILER_BYTES = 32;
/** Small enough to stay in a core's L2 cache between the read and the HMAC. */
const DIGEST_CHUNK_BYTES = 256 << 10;

export interface SealedFormat {
  /** 8 bytes: `PSMODEL\0`, `PSPATHS\0`. */
  magic: Buffer;
  version: number;
  maxHeaderBytes: number;
  /** What the errors call it: `model` ("not a PackScope model file", "model header is truncated"). */
  what: string;
}

/** Bytes a sealed file of this format may take at most, given the body's largest size. */
export function largestSealedFile(format: SealedFormat, maxBodyBytes: number): number {
  return PREFIX_BYTES + format.maxHeaderBytes + 8 + maxBodyBytes + TRAILER_BYTES;
}

/** The file's bytes: the prefix with `header`, then `body` (each part as it is, in order), then the seal. */
export function sealFile(format: SealedFormat, header: unknown, body: Uint8Array[], key: Buffer): Buffer {
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align8(PREFIX_BYTES + headerJson.length));
  format.magic.copy(prefix, 0);
  prefix.writeUInt32LE(format.version, 8);
  prefix.writeUInt32LE(headerJson.length, 12);
  headerJson.copy(prefix, PREFIX_BYTES);
  const parts: Uint8Array[] = [prefix, ...body];
  const digest = createHmac('sha256', key);
  for (const part of parts) digest.update(part);
  parts.push(digest.digest());
  return Buffer.concat(parts);
}

export interface OpenedSealedFile {
  /** The whole file, in an ArrayBuffer of its own (typed views of the body stay aligned). */
  bytes: Buffer;
  /** The header's JSON text, for the caller to parse and check. */
  headerText: string;
  /** Where the body starts (8-aligned) and ends (the seal's first byte). */
  bodyStart: number;
  bodyEnd: number;
}

/**
 * Reads `file` and checks its magic, version and seal; throws an Error saying which failed (the
 * caller then builds afresh). `largest` bounds the allocation; past it, `tooLarge` is the error.
 */
export function openSealedFile(
  file: string,
  format: SealedFormat,
  key: Buffer,
  largest: number,
  tooLarge: string,
): OpenedSealedFile {
  const handle = RandomAccessFile.open(file);
  const { what } = format;
  let bytes: Buffer;
  let digest: Buffer;
  try {
    if (handle.size > largest) throw new Error(tooLarge);
    if (handle.size < PREFIX_BYTES + TRAILER_BYTES) throw new Error(`not a PackScope ${what} file`);
    bytes = Buffer.from(new ArrayBuffer(handle.size));
    digest = readAndDigest(handle, bytes, key);
  } finally {
    handle.close();
  }
  if (!bytes.subarray(0, 8).equals(format.magic)) throw new Error(`not a PackScope ${what} file`);
  if (bytes.readUInt32LE(8) !== format.version)
    throw new Error(`${what} format ${bytes.readUInt32LE(8)} is not ${format.version}`);
  const headerLength = bytes.readUInt32LE(12);
  const bodyEnd = bytes.length - TRAILER_BYTES;
  if (headerLength > format.maxHeaderBytes || PREFIX_BYTES + headerLength > bodyEnd)
    throw new Error(`${what} header is truncated`);
  if (!timingSafeEqual(digest, bytes.subarray(bodyEnd)))
    throw new Error(`${what} file checksum mismatch (corrupt or truncated)`);
  return {
    bytes,
    headerText: bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength),
    bodyStart: align8(PREFIX_BYTES + headerLength),
    bodyEnd,
  };
}

/**
 * Reads the whole file into `bytes` a chunk at a time and feeds each chunk to the HMAC while it is
 * still in the CPU's caches: read whole and then hashed, a 33 MB model of git.git went through
 * memory twice, and the seal was the largest part of a reopen (bench/README.md, "Persisted reopen").
 * Returns the tag of everything before the trailer.
 */
function readAndDigest(handle: RandomAccessFile, bytes: Buffer, key: Buffer): Buffer {
  const hmac = createHmac('sha256', key);
  const bodyEnd = bytes.length - TRAILER_BYTES;
  for (let at = 0; at < bytes.length; at += DIGEST_CHUNK_BYTES) {
    const length = Math.min(DIGEST_CHUNK_BYTES, bytes.length - at);
    handle.readInto(bytes, at, length, at);
    if (at < bodyEnd) hmac.update(bytes.subarray(at, Math.min(at + length, bodyEnd)));
  }
  return hmac.digest();
}

function align8(n: number): number {
  return (n + 7) & ~7;
}
