import { errorMessage } from '../common/error-message.ts';
import { UsageError } from '../core/errors.ts';
import type { ObjectLocation } from '../core/model/object-store.ts';
import { formatBytes, formatCount } from '../common/format.ts';
import { markdownCodeSpan, markdownText } from '../common/markdown-text.ts';
import type { ObjectNames } from '../core/documents/stats-document.ts';
import type { ObjectWhereabouts } from '../core/documents/repository-layout-document.ts';
import type { RepositoryState } from './workspace-registry.ts';

export interface Found {
  state: RepositoryState;
  location: ObjectLocation;
  oid: string;
}

export type Lookup = { kind: 'found'; found: Found } | { kind: 'none'; reason: string };

/**
 * Resolves an id or prefix across repositories. The same id in two repositories (a clone and its
 * origin) is one object; a prefix matching two different ids anywhere is ambiguous, as in git.
 */
export function lookupObject(word: string, states: RepositoryState[]): Lookup {
  let found: Found | undefined;
  const reasons: string[] = [];
  for (const state of states) {
    try {
      const location = state.store.resolve(word);
      const oid = location.model.oidHex(location.object);
      if (found && found.oid !== oid) return { kind: 'none', reason: `${word} is ambiguous: ${found.oid} and ${oid}` };
      found ??= { state, location, oid };
    } catch (error) {
      if (error instanceof UsageError && error.code === 'ambiguous') return { kind: 'none', reason: error.message };
      // not-found / usage (an id longer than this repository's hashes) / a pack that went away
      reasons.push(errorMessage(error));
    }
  }
  return found
    ? { kind: 'found', found }
    : { kind: 'none', reason: reasons[0] ?? `no repository in the workspace has ${word}` };
}

/** The subject and path lines of a hover (none when unknown); the path is rev-list's name for the object. */
function namesMarkdown(type: string, names: ObjectNames, repository: string): string[] {
  const lines: string[] = [];
  if (names.subject !== undefined) lines.push(markdownText(names.subject), '');
  if (names.path === '') lines.push('a root tree (`git rev-list --objects` names it by the empty path)', '');
  else if (names.path) lines.push(`${type === 'tag' ? 'tag name' : 'path'} ${markdownCodeSpan(names.path)}`, '');
  else if (names.path === null) lines.push('no ref reaches it (`git rev-list --objects --all` does not list it)', '');
  else if (names.namesPending)
    lines.push(
      `${type === 'tag' ? 'tag name' : 'path'} *resolving names…${names.namesProgress === undefined ? '' : ` (${markdownText(names.namesProgress)})`}*`,
      '',
    );
  const introduced = names.introducedBy;
  if (introduced?.commit)
    lines.push(
      `introduced by \`${introduced.commit.slice(0, 12)}\`${introduced.subject === undefined ? '' : ` ${markdownText(introduced.subject)}`} ([open](${commandLink('packscope.openObject', introduced.commit, repository)}))`,
      '',
    );
  else if (introduced?.resolving) lines.push('introduced by *resolving names…* (hover again)', '');
  else if (introduced?.reason !== undefined)
    lines.push(`introduced by: unknown (${markdownText(introduced.reason)})`, '');
  return lines;
}

/** "git reads it from this pack (through the multi-pack-index) · also in 2 other packs · also loose". */
export function whereaboutsMarkdown(where: ObjectWhereabouts): string {
  const parts = [
    'pack' in where.answeredBy
      ? `git reads it from this pack${where.answeredBy.viaMidx ? ' (through the multi-pack-index)' : ' (the first in its search order that has it)'}`
      : 'git reads it loose',
  ];
  const others = where.alsoInPacks.length;
  if (others > 0)
    parts.push(
      `also in ${others === 1 ? '1 other pack' : `${formatCount(others)} other packs`}: ${where.alsoInPacks.map((p) => markdownCodeSpan(p.split(/[\\/]/).pop()!)).join(', ')}`,
    );
  if (where.alsoLoose.length > 0)
    parts.push(
      `also loose (${where.alsoLoose.length === 1 ? 'not read while a pack has it' : `${where.alsoLoose.length} copies, not read while a pack has it`})`,
    );
  return parts.join(' · ');
}

/** The word of hex digits around `character` in `line`, or undefined. */
export function hexWordAt(line: string, character: number): { word: string; start: number; end: number } | undefined {
  const isHex = (c: string | undefined): boolean => c !== undefined && /[0-9a-fA-F]/.test(c);
  const isWordChar = (c: string | undefined): boolean => c !== undefined && /[0-9A-Za-z_]/.test(c);
  let start = character;
  let end = character;
  while (start > 0 && isHex(line[start - 1])) start--;
  while (end < line.length && isHex(line[end])) end++;
  const length = end - start;
  if (length < 7 || length > 64) return undefined;
  // A hex run inside a longer identifier (`deadbeefcafeX`) is not an object id.
  if (isWordChar(line[start - 1]) || isWordChar(line[end])) return undefined;
  return { word: line.slice(start, end).toLowerCase(), start, end };
}

/**
 * A trusted command link (the client enables these two commands in hovers). Its arguments are only
 * what PackScope made: an object id it read from an idx (hex, checked) and the repository's id; the
 * whole JSON is percent-encoded, `(`, `)`, `'`, `!` and `*` too, which encodeURIComponent leaves and
 * a Markdown link destination would end at.
 */
function commandLink(
  command: 'packscope.revealObject' | 'packscope.openObject',
  oid: string,
  repository: string,
): string {
  if (!/^[0-9a-f]+$/.test(oid)) throw new Error(`not an object id: ${JSON.stringify(oid)}`);
  const encoded = encodeURIComponent(JSON.stringify([{ oid, repository }])).replace(
    /[()'!*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `command:${command}?${encoded}`;
}

/** The hover's Markdown: type, a commit's subject or an object's path, sizes, pack, offset, depth, chain, family, and links. */
export function hoverMarkdown(found: Found, names: ObjectNames = {}, where?: ObjectWhereabouts): string {
  const { model, object, pack } = found.location;
  const c = model.columns;
  const type = model.typeName(object);
  const inPack = model.isDelta(object) ? (c.inPackType[object] === 6 ? 'ofs-delta' : 'ref-delta') : 'whole';
  const depth = c.depth[object]!;
  const root = model.rootOf(object);
  const packName = pack.files.pack.split(/[\\/]/).pop()!;
  const lines = [
    `**${type}** \`${found.oid}\``,
    '',
    ...namesMarkdown(type, names, found.state.id),
    `${formatBytes(c.resultSize.get(object))} (${formatCount(c.resultSize.get(object))} bytes) · ${formatBytes(c.diskSize.get(object))} in the pack, stored ${inPack}`,
    '',
    `${markdownCodeSpan(packName)} in *${markdownText(found.state.name)}* at offset ${formatCount(c.offset[object]!)}`,
    '',
    ...(where === undefined ? [] : [whereaboutsMarkdown(where), '']),
    depth === 0
      ? `Not a delta · family of ${formatCount(model.familySize(object))} object${model.familySize(object) === 1 ? '' : 's'} rooted here`
      : `Delta depth ${depth}: chain of ${depth + 1} down to root \`${model.oidHex(root).slice(0, 12)}\` (${model.typeName(root)}) · family of ${formatCount(model.familySize(object))} objects`,
    '',
    `${formatCount(model.children(object).length)} direct delta ${model.children(object).length === 1 ? 'child' : 'children'}`,
    '',
    `[Reveal in Packs view](${commandLink('packscope.revealObject', found.oid, found.state.id)}) · [Open object](${commandLink('packscope.openObject', found.oid, found.state.id)})`,
  ];
  return lines.join('\n');
}
