import * as fs from 'node:fs';
import * as path from 'node:path';
import { alternateObjectDirs } from '../model/object-store.ts';

/**
 * pack-objects creates its temporary files (`tmp_pack_*`, `tmp_idx_*`, `tmp_rev_*`) in
 * `<objects>/pack/` of the repository it runs in, whatever the output path (pack-write.c
 * odb_mkstemp), and leaves them behind when it is killed. A preview must not, so pack-objects runs
 * with GIT_OBJECT_DIRECTORY set to this shadow: a real directory in the preview's temporary
 * directory whose entries are symbolic links to the repository's (loose-object fan-out
 * directories, every file of `pack/`: packs, idx, rev, keep, promisor, bitmaps, multi-pack-index;
 * `info/` files such as the commit-graph), and whose `info/alternates` names the repository's
 * alternates by absolute path. Every pack stays local (so `.keep` files are honoured as in the
 * repository), and the only files git creates land in the shadow's own `pack/` directory.
 */
export function createShadowObjectsDir(objectsDir: string, shadow: string): void {
  fs.mkdirSync(path.join(shadow, 'pack'), { recursive: true });
  fs.mkdirSync(path.join(shadow, 'info'), { recursive: true });
  for (const entry of fs.readdirSync(objectsDir)) {
    if (entry === 'pack' || entry === 'info') continue;
    fs.symlinkSync(path.join(objectsDir, entry), path.join(shadow, entry));
  }
  linkEntries(
    path.join(objectsDir, 'pack'),
    path.join(shadow, 'pack'),
    (name) => !name.startsWith('tmp_') && !name.startsWith('.tmp-'),
  );
  linkEntries(path.join(objectsDir, 'info'), path.join(shadow, 'info'), (name) => name !== 'alternates');
  const alternates = alternateObjectDirs(objectsDir).filter((dir) => fs.existsSync(dir));
  if (alternates.length > 0)
    fs.writeFileSync(
      path.join(shadow, 'info', 'alternates'),
      alternates.map((dir) => `${path.resolve(dir)}\n`).join(''),
    );
}

function linkEntries(from: string, to: string, keep: (name: string) => boolean): void {
  let names: string[];
  try {
    names = fs.readdirSync(from);
  } catch {
    return;
  }
  for (const name of names) if (keep(name)) fs.symlinkSync(path.join(from, name), path.join(to, name));
}
