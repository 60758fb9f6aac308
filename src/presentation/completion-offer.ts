/**
 * What the Cache Lab offers under a sweep whose cells are bounded wider than 1% of their
 * inflations (src/common/bound-width.ts): to complete the recording at those limits, when the
 * recording says which command it made, where, in exact mode (its header: `record`, or "Record a
 * Git Command…"); else what completion needs. Pure: the webview draws it, tests check it.
 */
import { limitsWiderThan, WIDE_BOUND_SHARE } from '../common/bound-width.ts';
import { formatLimit } from '../common/format.ts';
import { gitCommandLine, shellQuote } from '../common/shell-words.ts';
import type { RecordingInfo, SweepResult } from '../protocol/server-protocol.ts';

export type CompletionOffer =
  /** One action: the button's label, the limits to complete at and the sentence beside it. */
  | { kind: 'action'; limits: number[]; label: string; text: string }
  /** Nothing to run from here: why, and what would make those limits exact. */
  | { kind: 'note'; limits: number[]; text: string };

export function completionOffer(
  info: Pick<RecordingInfo, 'mode' | 'args' | 'cwd'> | undefined,
  result: Pick<SweepResult, 'results'>,
): CompletionOffer | undefined {
  const limits = limitsWiderThan(result.results, WIDE_BOUND_SHARE);
  if (limits.length === 0) return undefined;
  const at = limits.map(formatLimit).join(', ');
  const wide = `Bounds wider than ${WIDE_BOUND_SHARE * 100}% of the inflations at ${at}`;
  const complete = `--complete=${limits.map(formatLimit).join(',')}`;
  if (info === undefined || info.args === null || info.cwd === null)
    return {
      kind: 'note',
      limits,
      text: `${wide}. A terminal recording has no single command to run again: completion needs packscope record --exact ${complete} -- <command>, or Record a Git Command….`,
    };
  if (info.mode !== 'exact')
    return {
      kind: 'note',
      limits,
      text: `${wide}. Completion needs a recording made in exact mode (limit 0): packscope record --exact ${complete} -- ${info.args.map(shellQuote).join(' ')}.`,
    };
  const runs = limits.length + 1;
  return {
    kind: 'action',
    limits,
    label: `Complete at ${at}…`,
    text: `${wide}. Completing runs ${gitCommandLine(info.args)} again ${runs} times (at limit 0 and at each of these) in ${info.cwd} and makes them exact; the completed recording is written beside this one.`,
  };
}
