// The Repack Preview's state as VS Code gives it back after a reload, made safe to use.
import {
  REPACK_PREVIEW_PROTOCOL_VERSION,
  type RepackPreviewRun,
  type RepackPreviewState,
} from '../protocol/repack-preview-protocol.ts';

/** A state given back by VS Code (setState of an older or foreign page): kept only when it holds a run. */
export function normalizeRepackPreviewState(value: unknown): RepackPreviewState {
  const run = (value as { run?: unknown } | null | undefined)?.run;
  const ok =
    typeof run === 'object' &&
    run !== null &&
    typeof (run as RepackPreviewRun).result === 'object' &&
    (run as RepackPreviewRun).result !== null &&
    (run as RepackPreviewRun).result.schema === 'packscope.repack-preview/1' &&
    typeof (run as RepackPreviewRun).request === 'object';
  return { version: REPACK_PREVIEW_PROTOCOL_VERSION, run: ok ? (run as RepackPreviewRun) : null };
}
