/**
 * Checks of a request's parameters: the client is not trusted to send the types the protocol
 * declares (a huge `count` once held the server's thread for seconds), so every handler reads its
 * parameters through these, and what a client sent wrong comes back as InvalidParams, in one line.
 */
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';

/** A page of a list holds at most this many items (packscope.view.pageSize's maximum); larger counts are cut to it. */
export const MAX_PAGE_ITEMS = 5000;
/** Paths, ids and other strings of a request: longer ones are refused before any use. */
export const MAX_STRING_LENGTH = 4096;
/** Lists of a request (limits, policies, words, options, recordings): longer ones are refused. */
export const MAX_LIST_LENGTH = 1000;

export function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

/** The parameters as an object whose fields the checks below read. */
export function paramsObject(params: unknown): Record<string, unknown> {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    throw invalid('the parameters must be an object');
  return params as Record<string, unknown>;
}

/** A non-empty string of at most `maxLength` characters. */
export function requireString(value: unknown, name: string, maxLength = MAX_STRING_LENGTH): string {
  if (typeof value !== 'string' || value === '') throw invalid(`${name} must be a non-empty string`);
  if (value.length > maxLength) throw invalid(`${name} is longer than ${maxLength} characters`);
  return value;
}

export function optionalString(value: unknown, name: string, maxLength = MAX_STRING_LENGTH): string | undefined {
  return value === undefined || value === null ? undefined : requireString(value, name, maxLength);
}

/** An integer from `min` to `max`. */
export function requireInteger(value: unknown, name: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max)
    throw invalid(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

export function optionalInteger(
  value: unknown,
  name: string,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  return value === undefined || value === null ? undefined : requireInteger(value, name, min, max);
}

/** A count of items to list: a non-negative integer, cut to MAX_PAGE_ITEMS. */
export function pageCount(value: unknown, name = 'count'): number {
  return Math.min(requireInteger(value, name), MAX_PAGE_ITEMS);
}

/** A list of at most `maxItems` strings, each at most `maxLength` characters (empty strings allowed). */
export function stringList(
  value: unknown,
  name: string,
  maxItems = MAX_LIST_LENGTH,
  maxLength = MAX_STRING_LENGTH,
): string[] {
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string'))
    throw invalid(`${name} must be a list of strings`);
  if (value.length > maxItems) throw invalid(`${name} has more than ${maxItems} items`);
  if (value.some((s: string) => s.length > maxLength))
    throw invalid(`an item of ${name} is longer than ${maxLength} characters`);
  return value as string[];
}

/** Throws unless `limits` are byte counts, at most MAX_LIST_LENGTH of them. */
export function checkLimits(limits: unknown, what = 'limits'): number[] {
  if (!Array.isArray(limits) || limits.some((l) => typeof l !== 'number' || !Number.isSafeInteger(l) || l < 0)) {
    throw invalid(`${what} must be a list of byte counts (non-negative integers)`);
  }
  if (limits.length > MAX_LIST_LENGTH) throw invalid(`${what} has more than ${MAX_LIST_LENGTH} items`);
  return limits as number[];
}

const MAX_CACHE_MIB = 1 << 20;
const MAX_READAHEAD_KIB = 1 << 20;

/** The cold page cache of packscope/locality and packscope/packMapSeeks: 256 MiB and 128 KiB unless given. */
export function pageCacheParams(fields: Record<string, unknown>): { cacheMiB: number; readaheadKiB: number } {
  const cacheMiB = fields.cacheMiB ?? 256;
  const readaheadKiB = fields.readaheadKiB ?? 128;
  if (
    !(typeof cacheMiB === 'number' && cacheMiB > 0 && cacheMiB <= MAX_CACHE_MIB) ||
    !(typeof readaheadKiB === 'number' && readaheadKiB >= 0 && readaheadKiB <= MAX_READAHEAD_KIB)
  ) {
    throw invalid('cacheMiB must be positive and readaheadKiB not negative');
  }
  return { cacheMiB, readaheadKiB };
}
