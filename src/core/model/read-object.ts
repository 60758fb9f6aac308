import { inflateDeclared, Inflater } from '../format/inflate-entry.ts';
import { isUtf8 } from 'node:buffer';
import { fail, type PackFormatError, PackScopeError } from '../errors.ts';
import { applyDelta, DeltaError, deltaInstructions, readDeltaSizes } from '../format/delta.ts';
import {
  MAX_OBJECT_HEADER_BYTES,
  ObjectHeader,
  OBJ_REF_DELTA,
  readObjectHeader,
  TYPE_NAMES,
} from '../format/pack-file.ts';
import { RandomAccessFile } from '../format/random-access-file.ts';
import type { PackModel } from './pack-model.ts';

export interface ReadLimits {
  /** Largest object, delta or intermediate chain result held in memory. */
  maxObjectBytes: number;
  /**
   * Total bytes of delta results one rebuild may produce (a chain of 200 deltas over a 64 MiB blob
   * rebuilds 12.8 GB from a 70 KB pack); none when absent.
   */
  maxRebuiltBytes?: number;
}

/**
 * The full content of object `n`: its chain's root inflated, then each delta up the chain applied
 * (git-internals §1.4, unpack_entry). Reads only the chain's entries, from a file opened and closed
 * here. Refuses, before reading, any entry whose declared size or chain result is above the limit.
 */
export function readObjectContent(model: PackModel, n: number, limits: ReadLimits): Buffer {
  const chain = chainToRoot(model, n);
  checkChainSizes(model, chain, limits);
  return withPackEntries(model, n, limits, (entries) => {
    let content = entries.inflate(chain[chain.length - 1]!);
    let rebuilt = 0;
    for (let k = chain.length - 2; k >= 0; k--) {
      const delta = chain[k]!;
      const payload = entries.inflate(delta);
      rebuilt += readDeltaSizes(payload, payload.length)?.resultSize ?? 0;
      if (limits.maxRebuiltBytes !== undefined && rebuilt > limits.maxRebuiltBytes)
        throw overBudget(model, n, chain.length - 1, limits.maxRebuiltBytes);
      content = applyDeltaOf(model, delta, content, payload, limits);
    }
    return content;
  });
}

function overBudget(model: PackModel, n: number, deltas: number, budget: number): PackFormatError {
  return fail(
    'too-large',
    model.files.pack,
    model.columns.offset[n],
    `rebuilding this object applies ${deltas} deltas whose results add up to more than the ${budget}-byte budget of one read: not rebuilt`,
  );
}

/** The inflated delta payload of delta entry `n` (base size, result size, instructions). */
export function readDeltaData(model: PackModel, n: number, limits: ReadLimits): Buffer {
  if (!model.isDelta(n)) {
    throw fail(
      'usage',
      model.files.pack,
      model.columns.offset[n],
      `object ${model.oidHex(n)} is stored whole (${model.typeName(n)}), not as a delta`,
    );
  }
  checkEntrySizes(model, n, limits);
  return withPackEntries(model, n, limits, (entries) => entries.inflate(n));
}

export type ListedDeltaInstruction =
  | { op: 'copy'; baseOffset: number; length: number }
  /**
   * `dataAt`: where the inserted bytes start in the delta payload; `data`: a copy of them (at most
   * 127 bytes, git-internals §6.1); `preview`: them quoted as JGit does.
   */
  | { op: 'insert'; length: number; preview: string; dataAt: number; data: Uint8Array };

export interface DeltaListing {
  baseSize: number;
  resultSize: number;
  /** The first `maxInstructions` instructions, in order. */
  instructions: ListedDeltaInstruction[];
  totalInstructions: number;
  /** Over all instructions, listed or not; their sum is the result size. */
  copiedBytes: number;
  insertedBytes: number;
}

/**
 * Decodes a delta payload into its instructions (git-internals §6.1), checking every one against the
 * declared sizes; throws DeltaError (with the payload position) on a malformed delta.
 */
export function formatDeltaInstructions(delta: Uint8Array, options: { maxInstructions: number }): DeltaListing {
  const sizes = readDeltaSizes(delta, delta.length);
  if (!sizes) throw new DeltaError('delta header is truncated', delta.length);
  const instructions: ListedDeltaInstruction[] = [];
  let totalInstructions = 0;
  let copiedBytes = 0;
  let insertedBytes = 0;
  for (const instruction of deltaInstructions(delta)) {
    totalInstructions++;
    if (instruction.op === 'copy') {
      copiedBytes += instruction.length;
      if (instructions.length < options.maxInstructions)
        instructions.push({ op: 'copy', baseOffset: instruction.baseOffset, length: instruction.length });
    } else {
      insertedBytes += instruction.length;
      if (instructions.length < options.maxInstructions) {
        const data = delta.subarray(instruction.dataAt, instruction.dataAt + instruction.length);
        instructions.push({
          op: 'insert',
          length: instruction.length,
          preview: quoteLikeJGitPath(data),
          dataAt: instruction.dataAt,
          data: data.slice(),
        });
      }
    }
  }
  return {
    baseSize: sizes.baseSize,
    resultSize: sizes.resultSize,
    instructions,
    totalInstructions,
    copiedBytes,
    insertedBytes,
  };
}

/** The listing of delta entry `n`, with a malformed delta reported at the entry's offset. */
export function readDeltaListing(
  model: PackModel,
  n: number,
  limits: ReadLimits & { maxInstructions: number },
): DeltaListing {
  const delta = readDeltaData(model, n, limits);
  try {
    return formatDeltaInstructions(delta, limits);
  } catch (error) {
    if (error instanceof DeltaError)
      throw fail(
        'bad-delta',
        model.files.pack,
        model.columns.offset[n],
        `malformed delta: ${error.message} (at delta byte ${error.at})`,
      );
    throw error;
  }
}

/** Bytes JGit's GitPathStyle prints as themselves (QuotedString.java, since 2aa4196f1f, 2010). */
const PLAIN_BYTES = new Set(
  Buffer.from('0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ $%&*+,-./:;=?@_^|~', 'latin1'),
);
/** Bytes JGit's GitPathStyle escapes with a letter; every other byte becomes a 3-digit octal escape. */
const LETTER_ESCAPES = new Map<number, string>([
  [0x07, 'a'],
  [0x08, 'b'],
  [0x0c, 'f'],
  [0x0a, 'n'],
  [0x0d, 'r'],
  [0x09, 't'],
  [0x0b, 'v'],
  [0x5c, '\\'],
  [0x22, '"'],
]);

/**
 * INSERT text as JGit prints it: `QuotedString.GIT_PATH.quote(RawParseUtils.decode(bytes))`.
 * decode takes the bytes as UTF-8 when they are valid UTF-8, and otherwise (the platform charset
 * being UTF-8 or ASCII) as ISO-8859-1; quote encodes the string as UTF-8 again and escapes every
 * byte outside PLAIN_BYTES, wrapping the whole in double quotes only when something was escaped.
 * So an insert that is not valid UTF-8 (binary data, or a character split between two inserts)
 * shows each byte of 0x80 and above as the two octal escapes of its UTF-8 form: 0xE9 alone and
 * the UTF-8 "é" both print as "\303\251". The preview is JGit's, ambiguity included; `dataAt`
 * gives the exact bytes.
 */
export function quoteLikeJGitPath(bytes: Uint8Array): string {
  if (bytes.length === 0) return '""';
  const encoded = isUtf8(bytes) ? bytes : Buffer.from(Buffer.from(bytes).toString('latin1'), 'utf8');
  let text = '';
  let escaped = false;
  for (const c of encoded) {
    if (PLAIN_BYTES.has(c)) {
      text += String.fromCharCode(c);
      continue;
    }
    escaped = true;
    const letter = LETTER_ESCAPES.get(c);
    text += letter === undefined ? `\\${c.toString(8).padStart(3, '0')}` : `\\${letter}`;
  }
  return escaped ? `"${text}"` : text;
}

/** [n, base(n), …, root], checked: a delta whose base is not in this pack cannot be rebuilt. */
function chainToRoot(model: PackModel, n: number): number[] {
  const { base, offset } = model.columns;
  const chain = [n];
  let current = n;
  while (model.isDelta(current)) {
    const next = base[current]!;
    if (next < 0) {
      // A thin pack names REF_DELTA bases that only the receiving repository has (index-pack --fix-thin
      // appends them, git-internals §2.4); this reader has nothing else to take them from.
      const baseName =
        model.columns.inPackType[current] === OBJ_REF_DELTA ? readRefBaseHex(model, current) : 'its base';
      throw fail(
        'missing-base',
        model.files.pack,
        offset[current],
        `delta base ${baseName} is not in this pack (a thin pack?): the object cannot be rebuilt from this pack alone`,
      );
    }
    if (chain.length > model.count)
      throw fail('delta-cycle', model.files.pack, offset[n], 'delta chain does not reach a whole object');
    chain.push(next);
    current = next;
  }
  return chain;
}

/** Every size the chain declares, against the limit, before any byte is read or allocated. */
function checkChainSizes(model: PackModel, chain: number[], limits: ReadLimits): void {
  const { resultSize, offset } = model.columns;
  const max = limits.maxObjectBytes;
  let rebuilt = 0;
  for (const k of chain) {
    checkEntrySizes(model, k, limits);
    // 0 when the model was a header-only scan; applyDeltaOf checks the delta's own header then.
    if (resultSize.get(k) > max)
      throw fail(
        'too-large',
        model.files.pack,
        offset[k],
        `object of ${resultSize.get(k)} bytes is over the ${max}-byte limit`,
      );
    if (model.isDelta(k)) rebuilt += resultSize.get(k);
  }
  // The same budget readObjectContent checks per delta, refused here before any byte is read.
  if (limits.maxRebuiltBytes !== undefined && rebuilt > limits.maxRebuiltBytes)
    throw overBudget(model, chain[0]!, chain.length - 1, limits.maxRebuiltBytes);
}

function checkEntrySizes(model: PackModel, k: number, limits: ReadLimits): void {
  const { size, diskSize, offset } = model.columns;
  const max = limits.maxObjectBytes;
  const what = model.isDelta(k) ? 'delta' : TYPE_NAMES[model.columns.inPackType[k]!]!;
  if (size.get(k) > max)
    throw fail(
      'too-large',
      model.files.pack,
      offset[k],
      `${what} of ${size.get(k)} bytes is over the ${max}-byte limit`,
    );
  if (diskSize.get(k) > maxEntryBytes(max))
    throw fail(
      'too-large',
      model.files.pack,
      offset[k],
      `entry of ${diskSize.get(k)} bytes in the pack is more than ${max} bytes can compress to`,
    );
}

/** zlib's worst case (stored blocks) adds 5 bytes per 16 KiB-64 KiB block; an eighth is ample. */
function maxEntryBytes(maxObjectBytes: number): number {
  return maxObjectBytes + Math.ceil(maxObjectBytes / 8) + MAX_OBJECT_HEADER_BYTES + 64;
}

function applyDeltaOf(model: PackModel, n: number, base: Buffer, delta: Buffer, limits: ReadLimits): Buffer {
  const path = model.files.pack;
  const offset = model.columns.offset[n];
  const declared = readDeltaSizes(delta, delta.length)?.resultSize ?? 0;
  if (declared > limits.maxObjectBytes)
    throw fail(
      'too-large',
      path,
      offset,
      `delta declares a result of ${declared} bytes, over the ${limits.maxObjectBytes}-byte limit`,
    );
  try {
    return applyDelta(base, delta, limits.maxObjectBytes);
  } catch (error) {
    if (error instanceof DeltaError)
      throw fail(
        'bad-delta',
        path,
        offset,
        `delta does not apply to its base: ${error.message} (at delta byte ${error.at})`,
      );
    throw error;
  }
}

interface PackEntries {
  inflate(n: number): Buffer;
}

/** A pack kept open for many reads (a walk over its trees); the caller closes it. */
export interface OpenPackEntries extends PackEntries {
  /** Applies delta entry `n`'s inflated payload to its base's content, checked as readObjectContent checks it. */
  applyDelta(n: number, base: Buffer, payload: Buffer): Buffer;
  close(): void;
}

/**
 * Opens the pack of `model` for many entry reads, refusing a pack that is not the size its model
 * was built from (as withPackEntries does per read).
 */
export function openPackEntries(model: PackModel, limits: ReadLimits): OpenPackEntries {
  const path = model.files.pack;
  const file = RandomAccessFile.open(path);
  if (file.size !== model.packSize) {
    file.close();
    const code = file.size < model.packSize ? 'truncated' : 'changed';
    throw fail(
      code,
      path,
      undefined,
      `pack is now ${file.size} bytes; it had ${model.packSize} when its model was built`,
    );
  }
  const header = new ObjectHeader();
  // Many reads in a row: one zlib stream and one buffer for the compressed bytes serve them all.
  const reuse: EntryReuse = { inflater: new Inflater(), scratch: Buffer.allocUnsafe(64 * 1024) };
  return {
    inflate: (k) => inflateEntry(model, file, header, k, limits, reuse),
    applyDelta: (k, base, payload) => applyDeltaOf(model, k, base, payload, limits),
    close: () => file.close(),
  };
}

/**
 * Opens the pack for one read and closes it after. A pack that is no longer the size it had when the
 * model was built was rewritten or cut short since: it is refused, naming the entry asked for.
 */
function withPackEntries<T>(model: PackModel, n: number, limits: ReadLimits, read: (entries: PackEntries) => T): T {
  const path = model.files.pack;
  const file = RandomAccessFile.open(path);
  try {
    if (file.size !== model.packSize) {
      const code = file.size < model.packSize ? 'truncated' : 'changed';
      throw fail(
        code,
        path,
        model.columns.offset[n],
        `pack is now ${file.size} bytes; it had ${model.packSize} when its model was built`,
      );
    }
    const header = new ObjectHeader();
    return read({ inflate: (k) => inflateEntry(model, file, header, k, limits) });
  } catch (error) {
    // Bytes rewritten under the read explain whatever they broke better than the error they caused.
    if (error instanceof PackScopeError && error.code !== 'changed' && error.code !== 'truncated')
      file.assertUnchanged();
    throw error;
  } finally {
    file.close();
  }
}

/** What an open pack's reads share: the reused inflate and the buffer the entries are read into. */
interface EntryReuse {
  inflater: Inflater;
  scratch: Buffer;
}

/** Reads entry `k` (its bytes only), checks its header against the model and inflates it to exactly its declared size. */
function inflateEntry(
  model: PackModel,
  file: RandomAccessFile,
  header: ObjectHeader,
  k: number,
  limits: ReadLimits,
  reuse?: EntryReuse,
): Buffer {
  const path = model.files.pack;
  const offset = model.columns.offset[k]!;
  const entryBytes = model.columns.diskSize.get(k);
  let bytes: Buffer;
  if (reuse) {
    // Checked before the buffer grows to it, as read() checks before it allocates.
    if (entryBytes > maxEntryBytes(limits.maxObjectBytes))
      throw fail(
        'too-large',
        path,
        offset,
        `entry of ${entryBytes} bytes in the pack is more than ${limits.maxObjectBytes} bytes can compress to`,
      );
    if (reuse.scratch.length < entryBytes)
      reuse.scratch = Buffer.allocUnsafe(Math.max(entryBytes, reuse.scratch.length * 2));
    file.readInto(reuse.scratch, 0, entryBytes, offset);
    bytes = reuse.scratch.subarray(0, entryBytes);
  } else bytes = file.read(offset, entryBytes);
  readObjectHeader(path, bytes, 0, entryBytes, offset, model.hash.size, header);
  const declared = header.size;
  if (header.type !== model.columns.inPackType[k] || declared !== model.columns.size.get(k)) {
    throw fail(
      'changed',
      path,
      offset,
      `entry header (type ${header.type}, ${declared} bytes) differs from the one the model was built from`,
    );
  }
  if (declared > limits.maxObjectBytes)
    throw fail('too-large', path, offset, `entry of ${declared} bytes is over the ${limits.maxObjectBytes}-byte limit`);
  const compressed = bytes.subarray(header.headerLength);
  return reuse
    ? reuse.inflater.inflate(compressed, declared, path, offset, 'entry')
    : inflateDeclared(compressed, declared, path, offset, 'entry');
}

/** The base id a REF_DELTA entry names, for the error that says it is missing. */
function readRefBaseHex(model: PackModel, n: number): string {
  const offset = model.columns.offset[n]!;
  const file = RandomAccessFile.open(model.files.pack);
  try {
    const length = Math.min(model.columns.diskSize.get(n), MAX_OBJECT_HEADER_BYTES);
    const bytes = file.read(offset, length);
    const header = new ObjectHeader();
    readObjectHeader(model.files.pack, bytes, 0, length, offset, model.hash.size, header);
    return bytes.toString('hex', header.baseOidAt, header.baseOidAt + model.hash.size);
  } finally {
    file.close();
  }
}
