// The extension's one way to write a file: the same rule as the engine's writeFileAtomically
// (src/core/atomic-file.ts), which the extension may not import (docs/architecture.md: it never
// imports src/core), and which src/common cannot hold (it is Node-free, for the webviews). The
// extension's storage is private to the user, but a predictable temporary name there would still
// follow a link planted at it to any file the user can write: so a random name, created
// exclusively without following links, written, synced and renamed over the target (rename
// replaces a link, never what it names).
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';

const EXCLUSIVE_CREATE =
  fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | (fs.constants.O_NOFOLLOW ?? 0);

/** Writes `text` to `target` through a fresh temporary file beside it, then renames it into place. */
export function writeTextFileAtomically(target: string, text: string, mode = 0o600): void {
  const temporary = `${target}.${randomBytes(12).toString('hex')}.tmp`;
  const fd = fs.openSync(temporary, EXCLUSIVE_CREATE, mode);
  try {
    try {
      const bytes = Buffer.from(text, 'utf8');
      for (let done = 0; done < bytes.length;) done += fs.writeSync(fd, bytes, done, bytes.length - done);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(temporary, target);
  } catch (error) {
    // Only this call created the file, so removing it cannot remove anyone else's.
    fs.rmSync(temporary, { force: true });
    throw error;
  }
}
