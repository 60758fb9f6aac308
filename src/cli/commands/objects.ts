import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import { AsciiWriter } from '../ascii-writer.ts';
import { TYPE_NAMES } from '../../core/format/pack-file.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';

export const objectsHelp = `usage: packscope objects [--no-cache | --cache-dir DIR] [path]

Every packed object of the repository at [path] (or of one .pack/.idx), sorted by id, one line each,
exactly as git prints them with
  git cat-file --batch-all-objects \\
    --batch-check='%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)'
(for packed objects; loose objects are not listed). An object in several packs is listed once,
from the pack git would read it from: the multi-pack-index's choice, else the first pack in git's
search order.`;

export function runObjects(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...cacheOptionSpec } });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'objects takes at most one path');
  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values));
  const models = store.packs.map((pack) => progress.track('Reading packs', () => store.model(pack)));
  const out = new AsciiWriter();
  const hashSize = store.repository.hash.size;
  const nullOid = new Uint8Array(hashSize);
  const print = (model: PackModel, n: number): void => {
    const c = model.columns;
    const index = model.index;
    const base = c.base[n]!;
    out.hex(index.bytes, index.namePosition(n), hashSize).byte(32).text(TYPE_NAMES[c.type[n]!]!).byte(32);
    out.number(c.resultSize.get(n)).byte(32).number(c.diskSize.get(n)).byte(32);
    if (base >= 0) out.hex(index.bytes, index.namePosition(base), hashSize);
    else out.hex(nullOid, 0, hashSize);
    out.endLine();
  };
  if (models.length === 1) {
    const model = models[0]!;
    for (let n = 0; n < model.count; n++) print(model, n);
  } else {
    // k-way merge of the idx name tables (each already sorted).
    const cursor = models.map(() => 0);
    const heads = models.map((m) => (m.count > 0 ? m.oidHex(0) : undefined));
    for (;;) {
      let smallest: string | undefined;
      for (const head of heads) if (head !== undefined && (smallest === undefined || head < smallest)) smallest = head;
      if (smallest === undefined) break;
      const holders: number[] = [];
      heads.forEach((head, i) => {
        if (head === smallest) holders.push(i);
      });
      if (holders.length === 1) {
        const i = holders[0]!;
        print(models[i]!, cursor[i]!);
      } else {
        const chosen = store.locate(smallest)!;
        print(chosen.model, chosen.object);
      }
      for (const i of holders) {
        cursor[i]!++;
        heads[i] = cursor[i]! < models[i]!.count ? models[i]!.oidHex(cursor[i]!) : undefined;
      }
    }
  }
  out.flush();
  return 0;
}
