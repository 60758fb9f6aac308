import { createHash, type Hash } from 'node:crypto';

/** git-internals §6.5: SHA-256 repositories change only the hash size everywhere. */
export interface HashAlgorithm {
  readonly name: 'sha1' | 'sha256';
  /** Bytes in one object id. */
  readonly size: 20 | 32;
  /** The format id used in .rev and MIDX headers (1 = SHA-1, 2 = SHA-256). */
  readonly formatId: 1 | 2;
  readonly nullOidHex: string;
  create(): Hash;
}

export const SHA1: HashAlgorithm = {
  name: 'sha1',
  size: 20,
  formatId: 1,
  nullOidHex: '0'.repeat(40),
  create: () => createHash('sha1'),
};

export const SHA256: HashAlgorithm = {
  name: 'sha256',
  size: 32,
  formatId: 2,
  nullOidHex: '0'.repeat(64),
  create: () => createHash('sha256'),
};

export function hashAlgorithmByName(name: string): HashAlgorithm | undefined {
  const lower = name.toLowerCase();
  if (lower === 'sha1') return SHA1;
  if (lower === 'sha256') return SHA256;
  return undefined;
}

export function hashAlgorithmByFormatId(id: number): HashAlgorithm | undefined {
  if (id === 1) return SHA1;
  if (id === 2) return SHA256;
  return undefined;
}
