/**
 * The one layout of the files PackScope keeps in its model cache (models, object paths): an
 * 8-byte magic, the format version and the header's length (u32 LE each), the header as JSON, zero
 * padding to 8 bytes, the body's arrays, and a seal of all of that under the cache's private key: an
 * HMAC-SHA256 (32 bytes), or for a format that says so a GMAC (AES-256-GCM over the file as
 * additional data: a random 12-byte nonce and the 16-byte tag). A file is trusted only when its
 * seal verifies (nobody without the key can forge one: docs/security.md, "The model cache's threat
 * model"); the reader sizes its buffer by what the caller expects, never by the file.
 *
 * Why two: the HMAC ran at about 1 GB/s and was the largest part of reopening git.git's 33 MB model;
 * GMAC runs on the CPU's AES and carry-less multiply instructions, five times as fast on this
 * project's machines (bench/README.md, "Persisted reopen"). Models use it; the object-path files
 * keep the HMAC of their format.
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { RandomAccessFile } from '../format/random-access-file.ts';

const PREFIX_BYTES = 16;
const HMAC_BYTES = 32;
const GCM_NONCE_BYTES = 12;
const GCM_TAG_BYTES = 16;
/** Small enough to stay in a core's L2 cache between the read and the MAC. */
const DIGEST_CHUNK_BYTES = 256 << 10;
/**
 * The GMAC key is derived from the cache's key, never the key itself: one key is not used by two
 * algorithms (the object-path files' HMAC uses the cache's key as it is).
 */
const GMAC_KEY_LABEL = 'PackScope sealed file: AES-256-GCM key';

/**
 * `gmac-aes-256-sections`: the seal at the end covers the prefix and header only, and the header
 * carries one GMAC per body section (sealSections), checked when the section is first read
 * (readSealedSection): a reader that needs the header and a few columns reads and checks only those.
 */
export type SealKind = 'hmac-sha256' | 'gmac-aes-256' | 'gmac-aes-256-sections';

export interface SealedFormat {
  /** 8 bytes: `PSMODEL\0`, `PSPATHS\0`. */
  magic: Buffer;
  version: number;
  maxHeaderBytes: number;
  /** What the errors call it: `model` ("not a PackScope model file", "model header is truncated"). */
  what: string;
  /** The seal; HMAC-SHA256 unless the format says otherwise. */
  seal?: SealKind;
}

function trailerBytes(format: SealedFormat): number {
  return format.seal === undefined || format.seal === 'hmac-sha256' ? HMAC_BYTES : GCM_NONCE_BYTES + GCM_TAG_BYTES;
}

/** The last key derived: one process uses one cache key, and a sealed model has a dozen sections to check. */
let lastGmacKey: { key: Buffer; derived: Buffer } | undefined;

function gmacKey(key: Buffer): Buffer {
  if (lastGmacKey === undefined || !lastGmacKey.key.equals(key))
    lastGmacKey = { key: Buffer.from(key), derived: createHmac('sha256', key).update(GMAC_KEY_LABEL).digest() };
  return lastGmacKey.derived;
}

/** Bytes a sealed file of this format may take at most, given the body's largest size. */
export function largestSealedFile(format: SealedFormat, maxBodyBytes: number): number {
  return PREFIX_BYTES + format.maxHeaderBytes + 8 + maxBodyBytes + trailerBytes(format);
}

/** The file's bytes: the prefix with `header`, then `body` (each part as it is, in order), then the seal. */
export function sealFile(format: SealedFormat, header: unknown, body: Uint8Array[], key: Buffer): Buffer {
  const headerJson = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(align8(PREFIX_BYTES + headerJson.length));
  format.magic.copy(prefix, 0);
  prefix.writeUInt32LE(format.version, 8);
  prefix.writeUInt32LE(headerJson.length, 12);
  headerJson.copy(prefix, PREFIX_BYTES);
  if (format.seal === 'gmac-aes-256-sections') return Buffer.concat([prefix, ...body, gmacOf([prefix], key)]);
  const parts: Uint8Array[] = [prefix, ...body];
  if (format.seal === 'gmac-aes-256') {
    // A fresh random nonce per file: GCM's one requirement, met with a 2^-96 chance per pair of files.
    const nonce = randomBytes(GCM_NONCE_BYTES);
    const gmac = createCipheriv('aes-256-gcm', gmacKey(key), nonce);
    for (const part of parts) gmac.setAAD(part);
    gmac.final();
    parts.push(nonce, gmac.getAuthTag());
  } else {
    const digest = createHmac('sha256', key);
    for (const part of parts) digest.update(part);
    parts.push(digest.digest());
  }
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
  if (format.seal === 'gmac-aes-256-sections')
    throw new Error('a file sealed by section is opened by openSealedHeader');
  const handle = RandomAccessFile.open(file);
  const { what } = format;
  const trailer = trailerBytes(format);
  let bytes: Buffer;
  let sealed: boolean;
  try {
    if (handle.size > largest) throw new Error(tooLarge);
    if (handle.size < PREFIX_BYTES + trailer) throw new Error(`not a PackScope ${what} file`);
    bytes = Buffer.from(new ArrayBuffer(handle.size));
    sealed = readAndVerify(handle, bytes, format, key);
  } finally {
    handle.close();
  }
  if (!bytes.subarray(0, 8).equals(format.magic)) throw new Error(`not a PackScope ${what} file`);
  if (bytes.readUInt32LE(8) !== format.version)
    throw new Error(`${what} format ${bytes.readUInt32LE(8)} is not ${format.version}`);
  const headerLength = bytes.readUInt32LE(12);
  const bodyEnd = bytes.length - trailer;
  if (headerLength > format.maxHeaderBytes || PREFIX_BYTES + headerLength > bodyEnd)
    throw new Error(`${what} header is truncated`);
  if (!sealed) throw new Error(`${what} file checksum mismatch (corrupt or truncated)`);
  return {
    bytes,
    headerText: bytes.toString('utf8', PREFIX_BYTES, PREFIX_BYTES + headerLength),
    bodyStart: align8(PREFIX_BYTES + headerLength),
    bodyEnd,
  };
}

/**
 * Reads the whole file into `bytes` a chunk at a time and feeds each chunk to the MAC while it is
 * still in the CPU's caches (read whole and then hashed, a 33 MB model went through memory twice).
 * Whether the seal at the end verifies.
 */
function readAndVerify(handle: RandomAccessFile, bytes: Buffer, format: SealedFormat, key: Buffer): boolean {
  const bodyEnd = bytes.length - trailerBytes(format);
  const gcm = format.seal === 'gmac-aes-256';
  // GCM needs its nonce first: read the trailer before the rest.
  const seal = Buffer.alloc(bytes.length - bodyEnd);
  handle.readInto(seal, 0, seal.length, bodyEnd);
  const gmac = gcm ? createDecipheriv('aes-256-gcm', gmacKey(key), seal.subarray(0, GCM_NONCE_BYTES)) : undefined;
  const hmac = gcm ? undefined : createHmac('sha256', key);
  for (let at = 0; at < bytes.length; at += DIGEST_CHUNK_BYTES) {
    const length = Math.min(DIGEST_CHUNK_BYTES, bytes.length - at);
    handle.readInto(bytes, at, length, at);
    if (at >= bodyEnd) continue;
    const chunk = bytes.subarray(at, Math.min(at + length, bodyEnd));
    if (gmac) gmac.setAAD(chunk);
    else hmac!.update(chunk);
  }
  if (!seal.equals(bytes.subarray(bodyEnd))) return false;
  if (hmac) return timingSafeEqual(hmac.digest(), seal);
  gmac!.setAuthTag(seal.subarray(GCM_NONCE_BYTES));
  try {
    gmac!.final();
    return true;
  } catch {
    return false;
  }
}

function align8(n: number): number {
  return (n + 7) & ~7;
}

/** A GMAC of `parts` under a fresh random nonce: the nonce, then the tag. */
function gmacOf(parts: Uint8Array[], key: Buffer): Buffer {
  const nonce = randomBytes(GCM_NONCE_BYTES);
  const gmac = createCipheriv('aes-256-gcm', gmacKey(key), nonce);
  for (const part of parts) gmac.setAAD(part);
  gmac.final();
  return Buffer.concat([nonce, gmac.getAuthTag()]);
}

/**
 * The body of an opened sealed file read back as the arrays it was sealed from, in their order,
 * as views over the file's own buffer (no copies); each length is checked against the body's end,
 * and `end()` refuses bytes left over. `what` names the file in the errors ("paths file").
 */
export class SealedBodyReader {
  private at: number;

  constructor(
    private readonly sealed: OpenedSealedFile,
    private readonly what: string,
  ) {
    this.at = sealed.bodyStart;
  }

  int32(count: number): Int32Array {
    return new Int32Array(this.sealed.bytes.buffer, this.take(count * 4), count);
  }

  uint32(count: number): Uint32Array {
    return new Uint32Array(this.sealed.bytes.buffer, this.take(count * 4), count);
  }

  bytes(count: number): Uint8Array {
    return new Uint8Array(this.sealed.bytes.buffer, this.take(count), count);
  }

  end(): void {
    if (this.at !== this.sealed.bodyEnd) throw new Error(`${this.what} has trailing bytes`);
  }

  private take(length: number): number {
    if (this.at + length > this.sealed.bodyEnd) throw new Error(`${this.what} arrays are truncated`);
    const start = this.at;
    this.at += length;
    return start;
  }
}

/**
 * One seal per section (`gmac-aes-256-sections`), as hex, for the header to carry: the header's own
 * seal then vouches for every section's, and each section is checked only when it is read.
 */
export function sealSections(sections: Uint8Array[], key: Buffer): string[] {
  return sections.map((section) => gmacOf([section], key).toString('hex'));
}

export interface OpenedSealedHeader {
  file: string;
  size: number;
  headerText: string;
  bodyStart: number;
  bodyEnd: number;
  /** A small file's bytes, read with its header (RandomAccessFile.snapshot): its sections are read from them. */
  snapshot: RandomAccessFile | undefined;
}

/**
 * Reads and checks the prefix, header (with its padding) and seal of a `gmac-aes-256-sections` file, none of its body;
 * throws an Error saying what failed. The header's section seals are the caller's to check
 * (readSealedSection) before it uses a section.
 */
export function openSealedHeader(
  file: string,
  format: SealedFormat,
  key: Buffer,
  largest: number,
  tooLarge: string,
): OpenedSealedHeader {
  const handle = RandomAccessFile.open(file);
  const { what } = format;
  const trailer = trailerBytes(format);
  try {
    if (handle.size > largest) throw new Error(tooLarge);
    if (handle.size < PREFIX_BYTES + trailer) throw new Error(`not a PackScope ${what} file`);
    const prefix = handle.read(0, PREFIX_BYTES);
    if (!prefix.subarray(0, 8).equals(format.magic)) throw new Error(`not a PackScope ${what} file`);
    if (prefix.readUInt32LE(8) !== format.version)
      throw new Error(`${what} format ${prefix.readUInt32LE(8)} is not ${format.version}`);
    const headerLength = prefix.readUInt32LE(12);
    const bodyEnd = handle.size - trailer;
    if (headerLength > format.maxHeaderBytes || align8(PREFIX_BYTES + headerLength) > bodyEnd)
      throw new Error(`${what} header is truncated`);
    // The header's padding too: every byte of the file is under a seal.
    const sealed = handle.read(PREFIX_BYTES, align8(PREFIX_BYTES + headerLength) - PREFIX_BYTES);
    const seal = handle.read(bodyEnd, trailer);
    if (!verifyGmac([prefix, sealed], seal, key)) throw new Error(`${what} header checksum mismatch (corrupt)`);
    return {
      file,
      size: handle.size,
      headerText: sealed.toString('utf8', 0, headerLength),
      bodyStart: align8(PREFIX_BYTES + headerLength),
      bodyEnd,
      snapshot: handle.snapshot(),
    };
  } finally {
    handle.close();
  }
}

/**
 * Reads `length` bytes at `position` of `file` (or of a small file's snapshot) into an ArrayBuffer of their own and checks them
 * against `seal` (one of sealSections', from a header whose seal verified), a chunk at a time while
 * each is in the CPU's caches. Throws when they do not match.
 */
export function readSealedSection(
  file: string | RandomAccessFile,
  position: number,
  length: number,
  seal: string,
  key: Buffer,
): ArrayBuffer {
  const sealBytes = Buffer.from(seal, 'hex');
  if (sealBytes.length !== GCM_NONCE_BYTES + GCM_TAG_BYTES) throw new Error('section seal is malformed');
  const bytes = Buffer.from(new ArrayBuffer(length));
  const gmac = createDecipheriv('aes-256-gcm', gmacKey(key), sealBytes.subarray(0, GCM_NONCE_BYTES));
  const handle = typeof file === 'string' ? RandomAccessFile.open(file) : file;
  try {
    for (let at = 0; at < length; at += DIGEST_CHUNK_BYTES) {
      const chunk = Math.min(DIGEST_CHUNK_BYTES, length - at);
      handle.readInto(bytes, at, chunk, position + at);
      gmac.setAAD(bytes.subarray(at, at + chunk));
    }
  } finally {
    if (typeof file === 'string') handle.close();
  }
  gmac.setAuthTag(sealBytes.subarray(GCM_NONCE_BYTES));
  try {
    gmac.final();
  } catch {
    throw new Error('section checksum mismatch (corrupt)');
  }
  return bytes.buffer as ArrayBuffer;
}

function verifyGmac(parts: Uint8Array[], seal: Buffer, key: Buffer): boolean {
  const gmac = createDecipheriv('aes-256-gcm', gmacKey(key), seal.subarray(0, GCM_NONCE_BYTES));
  for (const part of parts) gmac.setAAD(part);
  gmac.setAuthTag(seal.subarray(GCM_NONCE_BYTES));
  try {
    gmac.final();
    return true;
  } catch {
    return false;
  }
}
