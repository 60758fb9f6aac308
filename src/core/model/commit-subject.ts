import { OBJ_COMMIT, OBJ_TAG } from '../format/pack-file.ts';
import type { PackModel } from './pack-model.ts';
import { readObjectContent } from './read-object.ts';

/** A commit or tag above this is not read for its subject (a hover must stay cheap). */
const SUBJECT_MAX_OBJECT_BYTES = 1 << 20;
/** Nor one whose chain rebuilds more than this. */
const SUBJECT_MAX_REBUILT_BYTES = 4 << 20;
/** Characters of a subject kept; git prints all of it, a hover need not. */
export const SUBJECT_MAX_CHARS = 1000;

/**
 * The subject of commit or tag `n` as `git log -1 --format=%s` (or for a tag
 * `%(contents:subject)`) prints it: the message's first paragraph after leading blank lines, each
 * line stripped of trailing whitespace and the lines joined by one space (pretty.c,
 * format_subject). Undefined for other types; decoded as UTF-8 (git re-encodes a commit with an
 * `encoding` header; PackScope does not). Read on demand; throws, naming the object, when the
 * object cannot be read within the limits.
 */
export function readSubject(model: PackModel, n: number): string | undefined {
  const type = model.columns.type[n];
  if (type !== OBJ_COMMIT && type !== OBJ_TAG) return undefined;
  const content = readObjectContent(model, n, {
    maxObjectBytes: SUBJECT_MAX_OBJECT_BYTES,
    maxRebuiltBytes: SUBJECT_MAX_REBUILT_BYTES,
  });
  return subjectOf(content);
}

/** The subject of a commit or tag object's content (its header ends at the first empty line). */
export function subjectOf(content: Buffer): string {
  const headerEnd = content.indexOf('\n\n', 0, 'latin1');
  if (headerEnd < 0) return '';
  const lines = content.toString('utf8', headerEnd + 2).split('\n');
  let i = 0;
  while (i < lines.length && isBlank(lines[i]!)) i++;
  const subject: string[] = [];
  for (; i < lines.length && !isBlank(lines[i]!); i++) subject.push(lines[i]!.replace(/[ \t\r\v\f]+$/, ''));
  const joined = subject.join(' ');
  return joined.length > SUBJECT_MAX_CHARS ? `${joined.slice(0, SUBJECT_MAX_CHARS)}…` : joined;
}

function isBlank(line: string): boolean {
  return /^[ \t\r\v\f]*$/.test(line);
}
