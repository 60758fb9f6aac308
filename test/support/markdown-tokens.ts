// Markdown as a renderer reads it (markdown-it, CommonMark with HTML and GFM-style autolinks on), to
// check that text PackScope escaped renders as text: no link, image, HTML or code span of its own.
import { createRequire } from 'node:module';

interface Token {
  type: string;
  content: string;
  attrGet(name: string): string | null;
  children: Token[] | null;
}

interface MarkdownIt {
  parse(source: string, env: object): Token[];
  parseInline(source: string, env: object): Token[];
  linkify: { set(options: { fuzzyLink: boolean }): void };
}

const MarkdownItConstructor = createRequire(__filename)('markdown-it') as new (options: object) => MarkdownIt;
// VS Code's renderer (marked, GFM) links `scheme://…`, `www.…` and emails but not bare `host.tld`.
const markdown = new MarkdownItConstructor({ html: true, linkify: true });
markdown.linkify.set({ fuzzyLink: false });

/** Every inline token of `source` (a document), flattened. */
export function inlineTokens(source: string): Token[] {
  return markdown.parse(source, {}).flatMap((block) => [block, ...(block.children ?? [])]);
}

/** The inline tokens of one line of inline Markdown. */
export function inlineTokensOf(source: string): Token[] {
  return markdown.parseInline(source, {}).flatMap((block) => block.children ?? []);
}

/** The targets of every link and image in `source`, and whether any HTML is in it. */
export function linksOf(source: string): { links: string[]; images: string[]; html: boolean } {
  const tokens = inlineTokens(source);
  return {
    links: tokens.filter((t) => t.type === 'link_open').map((t) => t.attrGet('href') ?? ''),
    images: tokens.filter((t) => t.type === 'image').map((t) => t.attrGet('src') ?? ''),
    html: tokens.some((t) => t.type === 'html_inline' || t.type === 'html_block'),
  };
}
