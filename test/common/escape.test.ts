// The one escaping of strings from repositories and files (README, "Trust and safety"): as visible text
// (dialogs), as Markdown text and as a Markdown code span (hovers, tooltips, exported documents).
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { markdownCodeSpan, markdownText } from '../../src/common/markdown-text.ts';
import { visibleText } from '../../src/common/visible-text.ts';
import { inlineTokensOf, linksOf } from '../support/markdown-tokens.ts';

const HOSTILE = [
  'pack-`](http://evil.example/x)![i](https://evil.example/i.png)[c](command:packscope.openObject?%5B%5D)`.pack',
  '``` <img src=https://evil.example/i.png> ```',
  'www.evil.example and mail@evil.example and <https://evil.example>',
  'name\n\n# heading\n[ref]: https://evil.example\n> quote',
  'gol\u202E.txt \u2066x\u2069 \u200B',
  '&#x202E; &lt;img&gt; \\[x](y)',
  '| a | b |',
];

test('visibleText shows controls, bidi and invisible characters as escapes and leaves the rest', () => {
  assert.equal(visibleText('log -p'), 'log -p');
  assert.equal(visibleText('a\nb\r\tc'), 'a\\nb\\r\\tc');
  assert.equal(visibleText('gol\u202Etxt.exe'), 'gol\\u202Etxt.exe');
  assert.equal(
    visibleText('\u2066\u2069\u200E\u061C\u0000\u007F\u0085\uFEFF\u2028'),
    '\\u2066\\u2069\\u200E\\u061C\\u0000\\u007F\\u0085\\uFEFF\\u2028',
  );
  assert.equal(visibleText('Grüße, 日本語 😀'), 'Grüße, 日本語 😀');
  fc.assert(
    fc.property(
      fc.string({ unit: 'binary' }),
      (text) => !/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(visibleText(text)),
    ),
  );
});

test('a code span is fenced longer than any backtick run in the text and holds the text exactly', () => {
  assert.equal(markdownCodeSpan('pack-1234.pack'), '`pack-1234.pack`');
  assert.equal(markdownCodeSpan('a`b'), '``a`b``');
  assert.equal(markdownCodeSpan('a``b`c'), '```a``b`c```');
  assert.equal(markdownCodeSpan('`x`'), '`` `x` ``');
  assert.equal(markdownCodeSpan('a\nb'), '`a\\nb`');
  for (const text of [...HOSTILE, 'x', '`', '``', ' `` ', '  ']) {
    const tokens = inlineTokensOf(markdownCodeSpan(text));
    assert.deepEqual(
      tokens.map((t) => t.type),
      ['code_inline'],
      text,
    );
    assert.equal(tokens[0]!.content, visibleText(text), text);
  }
  fc.assert(
    fc.property(
      fc.string({ minLength: 1, unit: fc.constantFrom('`', ' ', 'a', '\n', '<', '[', ']', '(', ')', '!', '\u202E') }),
      (text) => {
        const tokens = inlineTokensOf(markdownCodeSpan(text));
        return tokens.length === 1 && tokens[0]!.type === 'code_inline' && tokens[0]!.content === visibleText(text);
      },
    ),
  );
});

test('Markdown text renders as the text itself: no link, image, HTML, code, emphasis or entity', () => {
  assert.equal(markdownText('my-repo.git'), 'my-repo.git');
  assert.equal(markdownText('a|b'), 'a\\|b');
  for (const text of HOSTILE) {
    const source = markdownText(text);
    assert.deepEqual(linksOf(source), { links: [], images: [], html: false }, source);
    const tokens = inlineTokensOf(source);
    assert.ok(
      tokens.every((t) => t.type === 'text' || t.type === 'text_special'),
      `${source}: ${tokens.map((t) => t.type).join(' ')}`,
    );
    assert.equal(tokens.map((t) => t.content).join(''), visibleText(text), source);
  }
  fc.assert(
    fc.property(
      fc.string({
        unit: fc.constantFrom(
          '`',
          '*',
          '_',
          '[',
          ']',
          '(',
          ')',
          '!',
          '<',
          '>',
          '&',
          '#',
          ';',
          'a',
          'h',
          't',
          'p',
          's',
          ':',
          '/',
          'w',
          '.',
          '@',
          '\\',
          '|',
          '~',
          ' ',
          '\n',
          '-',
          '=',
        ),
      }),
      (text) => {
        const source = markdownText(text);
        const { links, images, html } = linksOf(source);
        return links.length === 0 && images.length === 0 && !html && !/\n/.test(source);
      },
    ),
    { numRuns: 2000 },
  );
});
