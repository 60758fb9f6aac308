/**
 * PackScope's errors, one class per kind under one base (docs/architecture.md "Errors by kind"
 * gives each kind's CLI exit status and LSP error code). Every one names the file and, where one
 * applies, the byte offset, so that a user can find the bad bytes with `xxd -s`; its code says
 * what exactly is wrong, and the code decides the class (`fail`).
 */
export type PackErrorCode =
  | 'io'
  | 'truncated'
  | 'bad-magic'
  | 'bad-version'
  | 'bad-fanout'
  | 'bad-offset'
  | 'bad-header'
  | 'bad-delta-base'
  | 'missing-base'
  | 'delta-cycle'
  | 'bad-zlib'
  | 'bad-delta'
  | 'too-large'
  | 'mismatch'
  | 'checksum'
  | 'crc'
  | 'hash'
  | 'changed'
  | 'not-found'
  | 'ambiguous'
  | 'not-a-repository'
  | 'usage'
  | 'git'
  | 'cancelled';

/**
 * usage: what the user asked for cannot be done as asked (options, arguments, an object or
 * repository that is not there); git: a git command failed or could not run; format: the bytes
 * read are malformed, over a bound, or changed while they were read; io: a file could not be
 * opened or read as one; cancelled: the user or the client stopped the work.
 */
export type ErrorKind = 'usage' | 'git' | 'format' | 'io' | 'cancelled';

type UsageCode = 'usage' | 'not-found' | 'ambiguous' | 'not-a-repository';

export abstract class PackScopeError extends Error {
  abstract readonly kind: ErrorKind;
  constructor(
    readonly code: PackErrorCode,
    readonly file: string | undefined,
    readonly offset: number | undefined,
    readonly detail: string,
  ) {
    super(formatLocation(file, offset) + detail);
  }
}

export class UsageError extends PackScopeError {
  override readonly name = 'UsageError';
  readonly kind = 'usage';
}

/** Malformed or inconsistent input: bytes a reader cannot accept (the kind named format). */
export class PackFormatError extends PackScopeError {
  override readonly name = 'PackFormatError';
  readonly kind = 'format';
}

export class InputOutputError extends PackScopeError {
  override readonly name = 'InputOutputError';
  readonly kind = 'io';
}

/** Named "AbortError", as fetch and node:timers name theirs, so that code testing the name sees it too. */
export class CancelledError extends PackScopeError {
  override readonly name: string = 'AbortError';
  readonly kind = 'cancelled';
  constructor(message = 'cancelled') {
    super('cancelled', undefined, undefined, message);
  }
}

function formatLocation(file: string | undefined, offset: number | undefined): string {
  if (file === undefined) return '';
  return offset === undefined ? `${file}: ` : `${file}: offset ${offset}: `;
}

type ErrorFor<C extends PackErrorCode> = C extends UsageCode
  ? UsageError
  : C extends 'io'
    ? InputOutputError
    : PackFormatError;

const USAGE_CODES: ReadonlySet<PackErrorCode> = new Set<UsageCode>([
  'usage',
  'not-found',
  'ambiguous',
  'not-a-repository',
]);

/**
 * Shorthand used by the readers: `throw fail('truncated', file, at, 'idx ends inside the fan-out table')`.
 * The code picks the class: a usage code a UsageError, 'io' an InputOutputError, any other a
 * PackFormatError ('git' and 'cancelled' belong to GitCommandError and CancelledError, which have
 * constructors of their own).
 */
export function fail<C extends PackErrorCode>(
  code: C,
  file: string | undefined,
  offset: number | undefined,
  detail: string,
): ErrorFor<C> {
  if (USAGE_CODES.has(code)) return new UsageError(code, file, offset, detail) as ErrorFor<C>;
  if (code === 'io') return new InputOutputError(code, file, offset, detail) as ErrorFor<C>;
  return new PackFormatError(code, file, offset, detail) as ErrorFor<C>;
}

/**
 * The kind of anything caught: a PackScopeError's own; an AbortError (AbortSignal's reason, a
 * DOMException) is a cancellation; node:util parseArgs's refusals are usage; everything else is
 * PackScope's own bug, 'internal'.
 */
export function errorKind(error: unknown): ErrorKind | 'internal' {
  if (error instanceof PackScopeError) return error.kind;
  if (error instanceof Error && error.name === 'AbortError') return 'cancelled';
  if (
    error instanceof Error &&
    'code' in error &&
    typeof error.code === 'string' &&
    error.code.startsWith('ERR_PARSE_ARGS')
  )
    return 'usage';
  return 'internal';
}

/** git failed, is missing, or refused an option: carries git's own stderr (README.md, "Trust and safety": one clear message). */
export class GitCommandError extends PackScopeError {
  override readonly name = 'GitCommandError';
  readonly kind = 'git';
  constructor(
    readonly argv: string[],
    readonly exitStatus: number | null,
    readonly gitStderr: string,
    summary: string,
  ) {
    super('git', undefined, undefined, summary);
  }
}
