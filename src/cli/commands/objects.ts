import { parseArgs } from 'node:util';
import { fail, type PackFormatError } from '../../core/errors.ts';
import type { ObjectStore } from '../../core/model/object-store.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import { AsciiWriter } from '../ascii-writer.ts';
import { TYPE_NAMES } from '../../core/format/pack-file.ts';
import { forEachDistinctName } from '../../core/model/merged-names.ts';
import { openObjectStore } from '../open-target.ts';
import type { Progress } from '../progress.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const objectsHelp = `usage: packscope objects [--no-cache | --cache-dir DIR] [path]

Every packed object of the repository at [path] (or of one .pack/.idx), sorted by id, one line each,
exactly as git prints them with
  git cat-file --batch-all-objects \\
    --batch-check='%(objectname) %(objecttype) %(objectsize) %(objectsize:disk) %(deltabase)'
(for packed objects; loose objects are not listed). An object in several packs is listed once,
from the pack git would read it from: the multi-pack-index's choice, else the first pack in git's
search order.`;

/** The empty tree's id per hash algorithm. */
const EMPTY_TREE: Record<string, string> = {
  sha1: '4b825dc642cb6eb9a060e54bf8d69288fbee4904',
  sha256: '6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321',
};

function runObjects(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({ args: argv, allowPositionals: true, options: { ...cacheOptionSpec } });
  if (positionals.length > 1) throw fail('usage', undefined, undefined, 'objects takes at most one path');
  const store = openObjectStore(positionals[0] ?? '.', cacheOptions(values), progress);
  const models = store.packs.map((pack) => progress.track('Reading packs', () => store.model(pack)));
  const out = new AsciiWriter();
  const hashSize = store.repository.hash.size;
  // The fields that repeat, as bytes: " blob ", and the null id of every object that is no delta.
  const typeFields = TYPE_NAMES.map((name) => Buffer.from(` ${name} `, 'latin1'));
  const nullOidHex = Buffer.from('0'.repeat(2 * hashSize), 'latin1');
  const print = (model: PackModel, n: number): void => {
    const c = model.columns;
    const index = model.index;
    const base = c.base[n]!;
    out.hex(index.bytes, index.namePosition(n), hashSize).bytes(typeFields[c.type[n]!]!);
    out.number(c.resultSize.get(n)).byte(32).number(c.diskSize.get(n)).byte(32);
    if (base >= 0) out.hex(index.bytes, index.namePosition(base), hashSize);
    else out.bytes(nullOidHex);
    out.endLine();
  };
  const emptyTree = EMPTY_TREE[store.repository.hash.name];
  // git-internals §1.1: the empty tree is answered from memory before any pack is searched.
  const printEmptyTree = (): void => {
    out.text(emptyTree).text(' tree 0 0 ').bytes(nullOidHex).endLine();
  };
  // git's lookup (§1.12): every MIDX first, then the packs no MIDX covers in most-recently-used
  // order; the pack a lookup hits moves to the front, so duplicates depend on what came before.
  // A pack's place in that list is its last use: a stamp, larger for more recent, so that moving
  // to the front is O(1); packs not used yet keep their search order behind every used one.
  const midxes = [...store.midxByObjectsDir.values()];
  const midxPackPositions = packPositionsByMidx(store);
  const covered = store.packs.map((pack) => store.coveredByMidx(pack));
  const lastUse = Float64Array.from(store.packs, (_, position) => -position);
  let clock = 0;
  const emptyTreeBytes = Buffer.from(emptyTree, 'hex');
  const midxFaults = new Map<string, PackFormatError>();
  const lookup = (holders: number[], objects: number[]): void => {
    const first = models[holders[0]!]!.index;
    const oid = first.oidBytes(objects[0]!);
    if (oid[0] === emptyTreeBytes[0] && oid.equals(emptyTreeBytes)) return printEmptyTree();
    for (let m = 0; m < midxes.length; m++) {
      const hit = midxes[m]!.lookup(oid);
      if (!hit) continue;
      // What store.locate answers when the MIDX's pack holds the id at the MIDX's offset: that pack.
      const position = midxPackPositions[m]!.get(hit.packName);
      const h = position === undefined ? -1 : holders.indexOf(position);
      if (h >= 0 && models[position!]!.columns.offset[objects[h]!] === hit.offset)
        return print(models[position!]!, objects[h]!);
      const located = store.locate(oid.toString('hex'));
      if (located) return print(located.model, located.object);
    }
    let chosen = -1;
    for (let h = 0; h < holders.length; h++) {
      const pack = holders[h]!;
      if (!covered[pack] && (chosen < 0 || lastUse[pack]! > lastUse[holders[chosen]!]!)) chosen = h;
    }
    if (chosen < 0) {
      // Only packs a MIDX covers hold it and the MIDX does not lead there: git prints it missing.
      const fault = store.midxFaultFor(oid);
      if (fault && !midxFaults.has(fault.message)) midxFaults.set(fault.message, fault);
      out.hex(oid, 0, hashSize).text(' missing').endLine();
      return;
    }
    lastUse[holders[chosen]!] = ++clock;
    print(models[holders[chosen]!]!, objects[chosen]!);
  };
  if (models.length === 1 && midxes.length === 0) {
    listOnePack(models[0]!, emptyTree, print, printEmptyTree);
    out.flush();
    return 0;
  }
  // The idx name tables are each sorted: merge them, one lookup per distinct id.
  forEachDistinctName(
    models.map((model) => model.index),
    lookup,
  );
  out.flush();
  warnOfMidxFaults(midxFaults.values());
  return 0;
}

/** One pack and no MIDX: every lookup lands in it, in idx order. */
function listOnePack(
  model: PackModel,
  emptyTree: string,
  print: (model: PackModel, n: number) => void,
  printEmptyTree: () => void,
): void {
  const emptyTreeAt = model.findHex(emptyTree);
  for (let n = 0; n < model.count; n++) {
    if (n === emptyTreeAt) printEmptyTree();
    else print(model, n);
  }
}

/**
 * Per MIDX, the position in store.packs of each pack it names (the first such pack of its objects
 * directory, as store.locate picks it), so that a hit is checked against the merge's holders
 * without a search: locate's id to hex and back, second MIDX lookup and idx search per object were
 * a sixth of the time on the 213-pack monorepo-shaped bench repository.
 */
function packPositionsByMidx(store: ObjectStore): Map<string, number>[] {
  return [...store.midxByObjectsDir.keys()].map((objectsDir) => {
    const positions = new Map<string, number>();
    store.packs.forEach((pack, position) => {
      if (pack.objectsDir === objectsDir && !positions.has(pack.idxName)) positions.set(pack.idxName, position);
    });
    return positions;
  });
}

/** One warning per broken multi-pack-index entry the listing met, saying what git does with it. */
function warnOfMidxFaults(faults: Iterable<PackFormatError>): void {
  // What the words claim is what test/cli/corrupt-midx.test.ts checks against git on such a file:
  // the listing of every object says missing, while a lookup by id trusts the entry (git 2.39.5's
  // cat-file -e and rev-list --objects name an object whose offset the MIDX has wrong).
  for (const fault of faults)
    process.stderr.write(
      `packscope: warning: ${fault.message} (git multi-pack-index verify reports it; git cat-file --batch-all-objects --batch-check prints such an object as missing, and so does this list; git commands that look it up by id follow the multi-pack-index's entry and may still find it, as git cat-file -e and git rev-list --objects do when only its offset is wrong)\n`,
    );
}

export const objectsCommand: Command = {
  name: 'objects',
  summary: 'objects [path]                            every packed object, as git cat-file --batch-check',
  help: objectsHelp,
  run: (argv, { progress }) => runObjects(argv, progress),
};
