/** Messages between the --full verifier and its worker threads (one module per boundary). */
import type { WorkerError } from '../worker-error.ts';
import type { TransferredIndex } from '../format/idx.ts';

export interface FullVerifyTask {
  kind: 'families';
  packPath: string;
  hashName: 'sha1' | 'sha256';
  hashSize: number;
  /** idx name table: `count` ids of `hashSize` bytes, in object-number order. */
  names: Uint8Array;
  offset: Float64Array;
  inPackType: Uint8Array;
  type: Uint8Array;
  size: Float64Array;
  diskSize: Float64Array;
  childStart: Uint32Array;
  childList: Uint32Array;
  /** Chain roots this worker resolves, with their whole families. */
  roots: Uint32Array;
}

/** What the pass threw: a PackScopeError about the pack, or the worker's own bug (the CLI calls that an internal error). */
export interface WorkerFailure {
  kind: 'failed';
  error: WorkerError;
}

export type FullVerifyMessage =
  | { kind: 'progress'; objects: number }
  | { kind: 'done'; objects: number; inflatedBytes: number; mismatches: HashMismatch[] }
  | WorkerFailure;

/** The checksum pass, run beside the model build (it needs only the idx and the pack). */
export interface ChecksumTask {
  kind: 'checksums';
  pack: string;
  idx: string;
  hashName: 'sha1' | 'sha256';
  /** The idx the caller already parsed (and checked): the worker then does not read and parse it again. */
  index?: TransferredIndex;
}

export type VerifyWorkerTask = FullVerifyTask | ChecksumTask;

export type ChecksumMessage =
  { kind: 'checksums'; report: { packChecksum: string; idxChecksum: string; crcChecked: number } } | WorkerFailure;

/** An object that rebuilds to another id than the idx gives it. */
export interface HashMismatch {
  object: number;
  /** The id its content hashes to, hex. */
  oid: string;
  offset: number;
}
