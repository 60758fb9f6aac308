/** Checks of a request's parameters: what a client sent wrong comes back as InvalidParams, in one line. */
import { ErrorCodes, ResponseError } from 'vscode-languageserver/node';

export function invalid(message: string): ResponseError<void> {
  return new ResponseError(ErrorCodes.InvalidParams, message);
}

/** Throws unless `limits` are byte counts. */
export function checkLimits(limits: unknown, what = 'limits'): number[] {
  if (!Array.isArray(limits) || limits.some((l) => typeof l !== 'number' || !Number.isSafeInteger(l) || l < 0)) {
    throw invalid(`${what} must be a list of byte counts (non-negative integers)`);
  }
  return limits as number[];
}
