// The line `simulate` and `sweep` print under cells whose bounds are too wide to act on: the
// command that makes them exact, ready to paste.
import { formatLimit } from '../common/format.ts';
import type { SimResult } from '../core/documents/simulation-documents.ts';
import { WIDE_BOUND_SHARE } from '../common/bound-width.ts';
import { completionAdvice } from '../core/report/simulation.ts';
import type { LoadedRecording } from '../core/trace/load-recording.ts';

export function completionAdviceLines(loaded: LoadedRecording, results: readonly SimResult[]): string[] {
  const advice = completionAdvice(loaded.log.metadata, results, loaded.log.file);
  if (advice === undefined) return [];
  const where = advice.limits.map(formatLimit).join(', ');
  const wide = `bounds wider than ${WIDE_BOUND_SHARE * 100}% of the count at ${where}`;
  if (advice.command === undefined)
    return [
      `note: ${wide}; a recording made with packscope record --exact --complete=${advice.limits.map(formatLimit).join(',')} -- <command> is exact there`,
    ];
  return [`note: ${wide}; this runs the command again at those limits and makes them exact:`, `  ${advice.command}`];
}
