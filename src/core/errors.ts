/**
 * Every problem found in untrusted input is a PackFormatError: it names the file and, where one
 * applies, the byte offset, so that a user can find the bad bytes with `xxd -s`.
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
  | 'usage';

export class PackFormatError extends Error {
  override readonly name = 'PackFormatError';
  constructor(
    readonly code: PackErrorCode,
    readonly file: string | undefined,
    readonly offset: number | undefined,
    readonly detail: string,
  ) {
    super(formatLocation(file, offset) + detail);
  }
}

function formatLocation(file: string | undefined, offset: number | undefined): string {
  if (file === undefined) return '';
  return offset === undefined ? `${file}: ` : `${file}: offset ${offset}: `;
}

/** Shorthand used by the readers: `throw fail('truncated', file, at, 'idx ends inside the fan-out table')`. */
export function fail(
  code: PackErrorCode,
  file: string | undefined,
  offset: number | undefined,
  detail: string,
): PackFormatError {
  return new PackFormatError(code, file, offset, detail);
}
