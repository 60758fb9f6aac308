// Strings from a repository or a file (pack and repository names, paths, git's messages, recorded
// commands) placed into Markdown: as text that renders as itself, never as a link, an image, HTML
// or a command. CommonMark 0.31 §2.4 (any ASCII punctuation may be backslash-escaped), §6.1 (code
// spans), GFM §6.9 (extended autolinks: `www.`, `scheme://`, emails).
import { visibleText } from './visible-text.ts';

/**
 * `text` escaped to render literally as Markdown inline text (a paragraph, a list item or a table
 * cell): the characters that open emphasis, code, links, images, HTML, entities and table cells are
 * backslash-escaped, autolinks are broken up, control and bidi characters are shown as escapes.
 */
export function markdownText(text: string): string {
  return visibleText(text)
    .replace(/[\\`*_[\]<>|!&~@]/g, '\\$&')
    .replace(/:\/\//g, '\\://')
    .replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}\\.`);
}

/**
 * `text` as a Markdown code span: the fence is one backtick longer than the longest run of
 * backticks in it, so nothing in `text` can close the span early (§6.1), and a space pads a text
 * that starts or ends with a backtick (or a space at both ends, which the span would strip).
 */
export function markdownCodeSpan(text: string): string {
  const shown = visibleText(text);
  const longestRun = Math.max(0, ...(shown.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longestRun + 1);
  const pad =
    shown.startsWith('`') ||
    shown.endsWith('`') ||
    (shown.startsWith(' ') && shown.endsWith(' ') && shown.trim() !== '') ||
    shown === ''
      ? ' '
      : '';
  return `${fence}${pad}${shown}${pad}${fence}`;
}
