// The text of an object document (`packscope:/<oid>`), from the server's `packscope/objectContent`
// answer. Pure: no vscode, no I/O, so that it can be read and tested on its own.
import { deltaLines, jgitInstructionLine } from '../presentation/delta-text.ts';
import type { DeltaInstructionItem, ObjectContent, ObjectDetails, ObjectItem } from '../protocol/server-protocol.ts';
import { formatBytes, formatCount } from './format-units.ts';

/** Binary content is shown as a hex dump of at most this many bytes. */
export const HEX_DUMP_LIMIT = 64 * 1024;

export function renderObjectDocument(content: ObjectContent): string {
  const lines: string[] = [];
  lines.push(...renderFacts(content.details), '');
  lines.push(...renderChain(content.details.chain), '');
  if (content.delta !== undefined) lines.push(...renderDelta(content.delta, resultTreeEntries(content)), '');
  const body = renderContent(content);
  lines.push(body.heading);
  return `${lines.join('\n')}\n${body.text}`;
}

/**
 * The content section: a heading line starting `content: `, then the content itself — text as it
 * is, a tree as `git cat-file -p` lists it, anything else binary as a hex dump.
 */
export function renderContent(content: ObjectContent): { heading: string; text: string } {
  const bytes = Buffer.from(content.contentBase64, 'base64');
  const total = content.details.size;
  const parts = [`content: ${formatCount(total)} bytes`];
  const cut = (shown: number): void => {
    if (content.truncated || shown < total)
      parts.push(`truncated: ${formatCount(shown)} of ${formatCount(total)} bytes shown`);
  };
  if (!content.binary) {
    cut(bytes.length);
    return { heading: parts.join(' · '), text: bytes.toString('utf8') };
  }
  const listing =
    content.details.type === 'tree' && !content.truncated
      ? treeListing(bytes, content.details.oid.length / 2)
      : undefined;
  if (listing !== undefined) {
    parts.push('tree, as git cat-file -p lists it');
    return { heading: parts.join(' · '), text: listing };
  }
  const shown = bytes.subarray(0, HEX_DUMP_LIMIT);
  parts.push(`binary, hex dump`);
  cut(shown.length);
  return { heading: parts.join(' · '), text: hexDump(shown) };
}

/** One entry of a tree object: `<mode> SP <name> NUL <id bytes>`, with where its id lies in the tree's bytes. */
export interface TreeEntrySpan {
  mode: string;
  type: 'tree' | 'commit' | 'blob';
  /** The name as git prints it (quoted when it has odd bytes). */
  name: string;
  oid: string;
  /** The id's bytes are `idStart .. idStart + hashBytes` of the tree. */
  idStart: number;
}

/**
 * The entries of a tree's bytes, in order. `complete: false` when the bytes end inside an entry (a
 * truncated content); undefined when they are not a tree.
 */
export function treeEntries(
  bytes: Uint8Array,
  hashBytes: number,
): { entries: TreeEntrySpan[]; complete: boolean } | undefined {
  const entries: TreeEntrySpan[] = [];
  let position = 0;
  while (position < bytes.length) {
    const space = bytes.indexOf(0x20, position);
    const nul = space < 0 ? -1 : bytes.indexOf(0, space + 1);
    if (space < 0 || nul < 0 || nul + 1 + hashBytes > bytes.length)
      return entries.length > 0 || space >= 0 ? { entries, complete: false } : undefined;
    const mode = Buffer.from(bytes.subarray(position, space)).toString('latin1');
    if (!/^[0-7]{5,6}$/.test(mode)) return undefined;
    const oid = Buffer.from(bytes.subarray(nul + 1, nul + 1 + hashBytes)).toString('hex');
    const type = mode === '40000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';
    entries.push({
      mode: mode.padStart(6, '0'),
      type,
      name: quotePath(bytes.subarray(space + 1, nul)),
      oid,
      idStart: nul + 1,
    });
    position = nul + 1 + hashBytes;
  }
  return { entries, complete: true };
}

/** `<mode> <type> <id>\t<name>` per entry, as `git cat-file -p <tree>`; undefined when the bytes are not a tree. */
export function treeListing(bytes: Uint8Array, hashBytes: number): string | undefined {
  const parsed = treeEntries(bytes, hashBytes);
  if (parsed === undefined || !parsed.complete) return undefined;
  return parsed.entries.map((e) => `${e.mode} ${e.type} ${e.oid}\t${e.name}\n`).join('');
}

/** A tree delta's result entries (what its inserted id bytes can be matched with); undefined for other objects. */
function resultTreeEntries(content: ObjectContent): { entries: TreeEntrySpan[]; hashBytes: number } | undefined {
  if (content.details.type !== 'tree') return undefined;
  const hashBytes = content.details.oid.length / 2;
  const parsed = treeEntries(Buffer.from(content.contentBase64, 'base64'), hashBytes);
  return parsed === undefined ? undefined : { entries: parsed.entries, hashBytes };
}

/** Git's `quote_c_style` with `core.quotePath` on (its default): odd bytes as C escapes, the name in quotes. */
function quotePath(name: Uint8Array): string {
  const escapes: Record<number, string> = {
    7: '\\a',
    8: '\\b',
    9: '\\t',
    10: '\\n',
    11: '\\v',
    12: '\\f',
    13: '\\r',
    0x22: '\\"',
    0x5c: '\\\\',
  };
  let quoted = '';
  let needsQuotes = false;
  for (const byte of name) {
    if (byte >= 0x20 && byte < 0x7f && byte !== 0x22 && byte !== 0x5c) {
      quoted += String.fromCharCode(byte);
      continue;
    }
    needsQuotes = true;
    quoted += escapes[byte] ?? `\\${byte.toString(8).padStart(3, '0')}`;
  }
  return needsQuotes ? `"${quoted}"` : quoted;
}

/** The subject and path rows (the path is the name `git rev-list --objects --all` gives the object). */
function namesFacts(details: ObjectDetails): [string, string][] {
  const facts: [string, string][] = [];
  if (details.subject !== undefined) facts.push(['subject', details.subject]);
  if (details.path === '') facts.push(['path', '(a root tree)']);
  else if (details.path) facts.push([details.type === 'tag' ? 'tag name' : 'path', details.path]);
  else if (details.path === null) facts.push(['path', 'none: no ref reaches it']);
  else if (details.namesPending)
    facts.push([
      details.type === 'tag' ? 'tag name' : 'path',
      `resolving names…${details.namesProgress === undefined ? '' : ` (${details.namesProgress})`}`,
    ]);
  const introduced = details.introducedBy;
  if (introduced?.commit)
    facts.push([
      'introduced by',
      `${introduced.commit}${introduced.subject === undefined ? '' : ` ${introduced.subject}`}`,
    ]);
  else if (introduced?.resolving) facts.push(['introduced by', 'resolving names…']);
  else if (introduced?.reason !== undefined) facts.push(['introduced by', `unknown: ${introduced.reason}`]);
  return facts;
}

export function renderFacts(details: ObjectDetails): string[] {
  const facts: [string, string][] = [
    ['id', details.oid],
    ['type', details.type],
    ...namesFacts(details),
    ['stored as', details.inPackType],
    ['size', sizeText(details.size)],
    ['size on disk', sizeText(details.diskSize)],
    ['pack', details.packName],
    ['offset', formatCount(details.offset)],
    ['depth', String(details.depth)],
    ['chain root', details.root],
    ['family size', formatCount(details.familySize)],
    ['children', formatCount(details.children)],
    ['repository', details.repositoryName],
  ];
  const width = Math.max(...facts.map(([name]) => name.length)) + 2;
  return facts.map(([name, value]) => `${name.padEnd(width)}${value}`);
}

/** One line per link, the object first and its root last. */
export function renderChain(chain: ObjectItem[]): string[] {
  const lines = [
    `chain (${chain.length === 1 ? 'not a delta' : `${chain.length - 1} delta${chain.length === 2 ? '' : 's'} down to the root`}):`,
  ];
  for (const link of chain) {
    lines.push(
      `  ${link.oid}  ${link.type.padEnd(6)}  ${link.inPackType.padEnd(9)}  size ${formatCount(link.size)}  on disk ${formatCount(link.diskSize)}  offset ${formatCount(link.offset)}`,
    );
  }
  return lines;
}

/** A line saying what the delta is, then the delta as JGit's `debug-show-pack-delta` prints it (src/presentation/delta-text.ts). */
export function renderDelta(
  delta: NonNullable<ObjectContent['delta']>,
  tree?: { entries: TreeEntrySpan[]; hashBytes: number },
): string[] {
  return [
    `delta against ${delta.base} (${formatCount(delta.deltaBytes)} delta bytes, ${formatCount(delta.totalInstructions)} instructions: ${formatCount(delta.copiedBytes)} bytes copied, ${formatCount(delta.insertedBytes)} inserted):`,
    ...deltaLines(delta, (instruction, resultAt) => renderInstruction(instruction, resultAt, tree)),
  ];
}

/**
 * A copy as JGit prints it; an insert of text too (the server quoted it as JGit's
 * QuotedString.GIT_PATH does). Inserted bytes that are not text (a tree's raw ids, binary data)
 * are shown as hex instead of JGit's Latin-1 escapes, and in a tree delta each id they hold is
 * named with its entry. `resultAt`: where the instruction's bytes start in the result.
 */
export function renderInstruction(
  instruction: DeltaInstructionItem,
  resultAt = 0,
  tree?: { entries: TreeEntrySpan[]; hashBytes: number },
): string[] {
  if (instruction.op === 'copy') return [jgitInstructionLine(instruction)];
  const data = Buffer.from(instruction.dataBase64, 'base64');
  if (looksLikeText(data)) return [jgitInstructionLine(instruction)];
  const lines = [
    `  INSERT(${formatCount(data.length)} bytes, hex) ${[...data].map((b) => b.toString(16).padStart(2, '0')).join(' ')}`,
  ];
  for (const entry of tree?.entries ?? []) {
    const from = Math.max(resultAt, entry.idStart);
    const to = Math.min(resultAt + data.length, entry.idStart + tree!.hashBytes);
    if (from >= to) continue;
    const whole = from === entry.idStart && to === entry.idStart + tree!.hashBytes;
    const which = whole ? 'the id' : `bytes ${from - entry.idStart}–${to - entry.idStart - 1} of the id`;
    lines.push(
      `        bytes ${from - resultAt}–${to - resultAt - 1}: ${which} of tree entry ${entry.name} (${entry.mode} ${entry.type} ${entry.oid})`,
    );
  }
  return lines;
}

/** UTF-8 text without control characters other than tab, newline and carriage return. */
function looksLikeText(data: Uint8Array): boolean {
  for (const byte of data)
    if ((byte < 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) || byte === 0x7f) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(data);
    return true;
  } catch {
    return false;
  }
}

/** `hexdump -C` layout: offset, 16 bytes in two groups of 8, then the printable ASCII. */
export function hexDump(bytes: Uint8Array): string {
  const lines: string[] = [];
  for (let start = 0; start < bytes.length; start += 16) {
    const row = bytes.subarray(start, Math.min(bytes.length, start + 16));
    let hex = '';
    let ascii = '';
    for (let index = 0; index < 16; index += 1) {
      if (index === 8) hex += ' ';
      const byte = row[index];
      hex += byte === undefined ? '   ' : `${byte.toString(16).padStart(2, '0')} `;
      if (byte !== undefined) ascii += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : '.';
    }
    lines.push(`${start.toString(16).padStart(8, '0')}  ${hex} |${ascii}|`);
  }
  lines.push(bytes.length.toString(16).padStart(8, '0'));
  return `${lines.join('\n')}\n`;
}

function sizeText(bytes: number): string {
  return bytes < 1024 ? `${formatCount(bytes)} bytes` : `${formatCount(bytes)} bytes (${formatBytes(bytes)})`;
}
