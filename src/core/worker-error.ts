/**
 * The one way an error crosses from a worker thread to the thread that started it (structured
 * clone keeps an Error's message and drops its class and fields): the worker encodes what it
 * caught, the other side decodes it into the error the same code would have thrown on its own
 * thread, with the same class, message and fields.
 */
import { CancelledError, fail, GitCommandError, PackScopeError, type PackErrorCode } from './errors.ts';

export interface WorkerError {
  message: string;
  /** A PackScopeError's code, file, offset and detail (its class follows from the code). */
  code?: PackErrorCode;
  file?: string;
  offset?: number;
  detail?: string;
  /** GitCommandError's details (git's argv, exit status and everything it printed). */
  git?: { argv: string[]; exitStatus: number | null; gitStderr: string };
  /** The work was cancelled (a CancelledError or another AbortError). */
  aborted?: boolean;
  /** Anything else is a bug in the worker: its stack, for the internal error. */
  stack?: string;
}

export function encodeWorkerError(error: unknown): WorkerError {
  if (error instanceof GitCommandError)
    return {
      message: error.message,
      code: error.code,
      git: { argv: error.argv, exitStatus: error.exitStatus, gitStderr: error.gitStderr },
    };
  if (error instanceof CancelledError || (error instanceof Error && error.name === 'AbortError'))
    return { message: error.message, aborted: true };
  if (error instanceof PackScopeError) {
    const encoded: WorkerError = { message: error.message, code: error.code, detail: error.detail };
    if (error.file !== undefined) encoded.file = error.file;
    if (error.offset !== undefined) encoded.offset = error.offset;
    return encoded;
  }
  if (error instanceof Error)
    return error.stack === undefined ? { message: error.message } : { message: error.message, stack: error.stack };
  return { message: String(error) };
}

/** Whether the worker failed by a bug of its own (no PackScope error): the caller reports it as internal. */
export function isWorkerCrash(error: WorkerError): boolean {
  return error.code === undefined && error.aborted !== true;
}

/**
 * The error the worker caught. A crash becomes a plain Error, its message after `crashPrefix`
 * (`scan worker: …`) when given, so that a bug in a worker reads as one.
 */
export function decodeWorkerError(error: WorkerError, crashPrefix?: string): Error {
  if (error.aborted) return new CancelledError(error.message);
  if (error.git) return new GitCommandError(error.git.argv, error.git.exitStatus, error.git.gitStderr, error.message);
  if (error.code !== undefined) return fail(error.code, error.file, error.offset, error.detail ?? error.message);
  const crash = new Error(crashPrefix === undefined ? error.message : `${crashPrefix}: ${error.message}`);
  if (error.stack !== undefined) crash.stack = error.stack;
  return crash;
}
