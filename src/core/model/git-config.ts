/**
 * Just enough of git's config syntax to read the keys PackScope needs (extensions.objectFormat,
 * core.bare, core.deltaBaseCacheLimit): sections, subsections, `key = value`, quotes, comments.
 * Includes are not followed. Keys are returned as `section.key` or `section.subsection.key`,
 * section and key lower-cased as git does.
 */
export function parseGitConfig(text: string): Map<string, string> {
  const values = new Map<string, string>();
  let section = '';
  for (const rawLine of text.split(/\r?\n/)) {
    let line = rawLine.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    if (line.startsWith('[')) {
      const close = line.indexOf(']');
      if (close < 0) continue;
      const header = line.slice(1, close).trim();
      const quoted = /^([^\s"]+)\s+"((?:[^"\\]|\\.)*)"$/.exec(header);
      if (quoted) section = `${quoted[1]!.toLowerCase()}.${quoted[2]!.replace(/\\(.)/g, '$1')}`;
      else section = header.toLowerCase();
      line = line.slice(close + 1).trim();
      if (line === '') continue;
    }
    const match = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!match || section === '') continue;
    const key = `${section}.${match[1]!.toLowerCase()}`;
    values.set(key, match[2] === undefined ? 'true' : unquoteValue(match[2]));
  }
  return values;
}

function unquoteValue(raw: string): string {
  let out = '';
  let inQuotes = false;
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '"') {
      inQuotes = !inQuotes;
    } else if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += next === 'n' ? '\n' : next === 't' ? '\t' : next;
    } else if (!inQuotes && (c === '#' || c === ';')) {
      break;
    } else {
      out += c;
    }
  }
  return out.trim();
}
