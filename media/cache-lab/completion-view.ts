// Under the sweep table: where cells are bounded wider than 1%, the offer to complete the recording
// at those limits (src/presentation/completion-offer.ts), or what completion needs.
import { completionOffer, type CompletionOffer } from '../../src/presentation/completion-offer.ts';
import { replaceChildren } from '../common/dom.ts';
import { completeButton, completeCancelButton, completionBox, completionText } from './layout.ts';
import { received } from './page.ts';

/** The offer of the sweep shown now, if any. */
export function currentCompletionOffer(): CompletionOffer | undefined {
  const sweep = received.sweep;
  return sweep === undefined ? undefined : completionOffer(received.info ?? sweep.result.recording, sweep.result);
}

export function renderCompletion(): void {
  const offer = currentCompletionOffer();
  completionBox.hidden = offer === undefined;
  if (offer === undefined) {
    replaceChildren(completionText);
    return;
  }
  replaceChildren(completionText, offer.text);
  const action = offer.kind === 'action';
  completeButton.hidden = !action;
  completeCancelButton.hidden = !action;
  if (action) replaceChildren(completeButton, offer.label);
}
