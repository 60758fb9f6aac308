import * as fs from 'node:fs';
import * as path from 'node:path';
import { fail } from '../errors.ts';
import { openRegularFile, describeIoError } from '../format/checked-file.ts';
import type { ObjectStore, PackLocation } from '../model/object-store.ts';
import type { TraceLog } from './trace-log.ts';

/**
 * A read list (`packscope simulate --reads FILE`): reads that no git command made, one a line, in
 * the order they are made, each either a full object id or `<pack> <offset>` (a
 * GIT_TRACE_PACK_ACCESS line without its prefix). Unlike a trace it lists every read, hits
 * included, so nothing is hidden from its replay.
 *
 * The file is untrusted input: it is streamed (never read whole), a line may be at most
 * READ_LIST_MAX_LINE_BYTES long, and every line must be a read of this repository: anything else
 * is an error naming the file and the line, since a read left out would change every count after
 * it. Blank lines and lines starting with `#` are skipped.
 */

/** Longer than any object id or pack path plus offset a repository has (paths are at most 4096 bytes on Linux). */
export const READ_LIST_MAX_LINE_BYTES = 4096 + 32;
const CHUNK_BYTES = 1 << 20;
const NEWLINE = 10;
/** What a line shows of itself in an error: enough to recognise it, never the whole of a long one. */
const SHOWN_CHARS = 80;

function shown(line: string): string {
  return JSON.stringify(line.length > SHOWN_CHARS ? `${line.slice(0, SHOWN_CHARS)}…` : line);
}

/** Parses one read list into the reads of a trace, every object located in `store`. */
export class ReadListBuilder {
  private readonly packIds = new Map<PackLocation, number>();
  private readonly packPaths: string[] = [];
  private readonly readPack: number[] = [];
  private readonly readOffset: number[] = [];
  private readonly packsByName = new Map<string, PackLocation>();
  private lineNumber = 0;
  private readonly idLength: number;

  constructor(
    private readonly file: string,
    private readonly store: ObjectStore,
  ) {
    this.idLength = store.repository.hash.size * 2;
    for (const pack of store.packs) this.packsByName.set(path.basename(pack.files.pack), pack);
  }

  /** One line without its newline (a trailing carriage return is dropped). */
  addLine(raw: string): void {
    this.lineNumber++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const text = line.trim();
    if (text === '' || text.startsWith('#')) return;
    const space = text.lastIndexOf(' ');
    if (space < 0) this.addObjectId(text);
    else this.addPackOffset(text.slice(0, space).trim(), text.slice(space + 1));
  }

  finish(bytes: number): TraceLog {
    const reads = this.readPack.length;
    return {
      file: this.file,
      metadata: undefined,
      packPaths: this.packPaths,
      readPack: Uint32Array.from(this.readPack),
      readOffset: Float64Array.from(this.readOffset),
      segments: [{ command: undefined, line: 1, firstRead: 0, endRead: reads }],
      lines: this.lineNumber,
      otherLines: 0,
      malformed: { count: 0, firstLines: [] },
      bytes,
    };
  }

  private error(detail: string): Error {
    return fail('bad-header', this.file, undefined, `line ${this.lineNumber}: ${detail}`);
  }

  private addObjectId(text: string): void {
    if (!/^[0-9a-fA-F]+$/.test(text) || text.length !== this.idLength)
      throw this.error(
        `${shown(text)} is neither a full object id (${this.idLength} hex digits) nor "<pack> <offset>"`,
      );
    const found = this.store.locate(text.toLowerCase());
    if (found === undefined)
      throw fail(
        'not-found',
        this.file,
        undefined,
        `line ${this.lineNumber}: object ${text.toLowerCase()} is not in any pack of ${this.store.repository.gitDir}`,
      );
    this.push(found.pack, found.model.columns.offset[found.object]!);
  }

  private addPackOffset(packPath: string, offsetText: string): void {
    if (!/^[0-9]{1,15}$/.test(offsetText))
      throw this.error(`${shown(offsetText)} (after the last space) is not a decimal offset`);
    const pack = this.packsByName.get(path.basename(packPath));
    if (pack === undefined)
      throw fail(
        'not-found',
        this.file,
        undefined,
        `line ${this.lineNumber}: no pack named ${shown(path.basename(packPath))} in ${this.store.repository.gitDir}`,
      );
    const offset = Number(offsetText);
    if (this.store.model(pack).objectAt(offset) < 0)
      throw this.error(`offset ${offset} is not the start of an object in ${path.basename(pack.files.pack)}`);
    this.push(pack, offset);
  }

  private push(pack: PackLocation, offset: number): void {
    let id = this.packIds.get(pack);
    if (id === undefined) {
      id = this.packPaths.length;
      this.packIds.set(pack, id);
      this.packPaths.push(pack.files.pack);
    }
    this.readPack.push(id);
    this.readOffset.push(offset);
  }
}

/** Streams the read list `file` (any size, in 1 MiB chunks) into a trace of its reads in `store`. */
export function parseReadList(file: string, store: ObjectStore): TraceLog {
  const { fd, stat } = openRegularFile(file);
  try {
    const builder = new ReadListBuilder(file, store);
    const total = stat.size;
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES + READ_LIST_MAX_LINE_BYTES + 1);
    let carried = 0;
    let position = 0;
    let line = 0;
    for (;;) {
      let got: number;
      try {
        // Only the bytes there at open time: a file that keeps growing is not followed.
        got = position < total ? fs.readSync(fd, chunk, carried, Math.min(CHUNK_BYTES, total - position), position) : 0;
      } catch (error) {
        throw fail('io', file, position, `read failed: ${describeIoError(error)}`);
      }
      position += got;
      const filled = carried + got;
      let start = 0;
      for (;;) {
        const newline = chunk.indexOf(NEWLINE, start);
        if (newline < 0 || newline >= filled) break;
        line++;
        if (newline - start > READ_LIST_MAX_LINE_BYTES) throw overlong(file, line);
        builder.addLine(chunk.toString('utf8', start, newline));
        start = newline + 1;
      }
      carried = filled - start;
      if (carried > READ_LIST_MAX_LINE_BYTES) throw overlong(file, line + 1);
      if (got === 0) {
        // The last line may lack its newline: a hand-written list often does.
        if (carried > 0) builder.addLine(chunk.toString('utf8', start, filled));
        break;
      }
      chunk.copy(chunk, 0, start, filled);
    }
    return builder.finish(position);
  } finally {
    fs.closeSync(fd);
  }
}

function overlong(file: string, line: number): Error {
  return fail(
    'too-large',
    file,
    undefined,
    `line ${line} is longer than ${READ_LIST_MAX_LINE_BYTES} bytes: not an object id or "<pack> <offset>"`,
  );
}
