/**
 * README "Trust and safety", what the server reads: a file its client names (a recording or trace,
 * a pack outside the workspace, measure's working directory) is read only when it lies, symbolic
 * links resolved, below
 *   - the recording directory named at initialization (the extension's storage),
 *   - a workspace folder, or a repository the server reads (workspace and `packscope.repositories`),
 *   - a repository an allowed recording was recorded in (its packs for index-pack, measure's cwd),
 * or is a file the client said the user picked (`packscope/allowRead`: the extension sends it for a
 * file chosen in an open dialog, a quick pick or a command's argument). Anything else is refused
 * with an error naming the path, before it is opened: a client cannot make the server read
 * `~/.ssh/id_rsa` as a "recording" and return its lines in errors or results.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { invalid } from './request-params.ts';

/** The real path of an existing file or directory; undefined when it does not exist. */
function realPath(file: string): string | undefined {
  try {
    return fs.realpathSync.native(file);
  } catch {
    return undefined;
  }
}

function isBelow(file: string, directory: string): boolean {
  const relative = path.relative(directory, file);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

export class ReadRules {
  /** Real paths of files the user picked (packscope/allowRead). */
  private readonly granted = new Set<string>();
  /** Repositories (work tree or git directory) of recordings that were allowed and opened. */
  private readonly recorded = new Set<string>();

  /** `roots`: the recording directory, workspace folders and the server's repositories, as they are now. */
  constructor(private readonly roots: () => readonly (string | undefined)[]) {}

  /** The user picked this file: it may be read as a recording, a trace or a pack. */
  grant(file: string): string {
    const resolved = path.resolve(file);
    const real = realPath(resolved);
    if (real === undefined) throw invalid(`${resolved}: no such file`);
    this.granted.add(real);
    return resolved;
  }

  /** A repository an allowed recording was recorded in: its packs and directories become readable. */
  addRecordedRepository(...directories: (string | undefined)[]): void {
    for (const directory of directories) {
      const real = directory === undefined ? undefined : realPath(directory);
      if (real !== undefined) this.recorded.add(real);
    }
  }

  /**
   * The absolute path of `file` when the rules allow reading it; else an InvalidParams error naming it.
   * A file that does not exist is left to the caller (which says "no such file").
   */
  check(file: string, what: string): string {
    const resolved = path.resolve(file);
    const real = realPath(resolved);
    if (real === undefined) return resolved;
    if (this.granted.has(real)) return resolved;
    for (const root of [...this.roots(), ...this.recorded]) {
      const realRoot = root === undefined ? undefined : realPath(root);
      if (realRoot !== undefined && isBelow(real, realRoot)) return resolved;
    }
    throw invalid(
      `${resolved}: the server reads a ${what} only below its recording directory, its workspace folders and repositories, ` +
        `or a file the user picked (packscope/allowRead); this one is outside them` +
        (real === resolved ? '' : ` (it leads to ${real})`),
    );
  }
}
