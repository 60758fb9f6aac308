/** How a request's cancellation reaches the work it started: promises, signals and the one error the client sees. */
import { LSPErrorCodes, ResponseError, type CancellationToken } from 'vscode-languageserver/node';

export function cancelledError(): ResponseError<void> {
  return new ResponseError(LSPErrorCodes.RequestCancelled, 'cancelled');
}

export function throwIfCancelled(token: CancellationToken): void {
  if (token.isCancellationRequested) throw cancelledError();
}

/** Resolves when the request is cancelled (what ModelLoader observes). */
export function cancelledPromise(token: CancellationToken): Promise<void> {
  return new Promise((resolve) => {
    if (token.isCancellationRequested) resolve();
    else token.onCancellationRequested(() => resolve());
  });
}

/** An AbortSignal that fires when the request is cancelled. */
export function abortSignalFor(token: CancellationToken): AbortSignal {
  const controller = new AbortController();
  if (token.isCancellationRequested) controller.abort();
  else token.onCancellationRequested(() => controller.abort());
  return controller.signal;
}
