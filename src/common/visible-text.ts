// Text from a repository, a trace or a recording shown to the user (a dialog, a hover, a tooltip,
// an exported document): control characters and bidirectional overrides would let it rearrange or
// hide what the user reads (U+202E turns `gol` into `log`, a newline starts a new line of a modal),
// so each is shown as its escape instead.

/**
 * C0 and C1 controls, DEL, the bidi controls (Unicode TR9: ALM, LRM, RLM, LRE..RLO, LRI..PDI), the
 * zero-width characters and the line and paragraph separators.
 */
const INVISIBLE = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/gu;

const SHORT_ESCAPES: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `text` with every control, bidi and invisible character written as `\n`, `\t`, `\r` or `\u202E`. */
export function visibleText(text: string): string {
  return text.replace(
    INVISIBLE,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
}
