import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail, PackFormatError, PackScopeError } from '../../core/errors.ts';
import { hashAlgorithmByName, type HashAlgorithm } from '../../core/format/hash-algorithm.ts';
import { TYPE_NAMES } from '../../core/format/pack-file.ts';
import { buildPackModel, loadIdx, packFilesFor } from '../../core/model/build-pack-model.ts';
import { cliBuildOptions } from '../open-target.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import { discoverRepository, hashAlgorithmNear } from '../../core/model/repository.ts';
import { checksumsInWorker, IdMismatchError, verifyFull } from '../../core/verify/full-verify.ts';
import { AsciiWriter } from '../ascii-writer.ts';
import { reportError } from '../report-error.ts';
import type { Progress } from '../progress.ts';
import type { Command } from '../command.ts';

const verifyPackHelp = `usage: packscope verify-pack [-v | -s] [--full] [--threads N] [--object-format sha1|sha256] <pack|repository>...

Checks packs and prints what \`git verify-pack\` prints, byte for byte: with -v one line per
object in pack order ("<oid> <type> <size> <size-in-pack> <offset> [<depth> <base-oid>]"), the
chain-length histogram and "<pack>.pack: ok"; with -s only the histogram and the ok line; with
neither, nothing unless something is wrong. <pack> may name the .pack, the .idx, or neither; or a
repository (any directory in one): each of its own packs, in name order, named as above.

What "ok" verifies here:
  default   the idx checksum, the pack's trailing checksum over all its bytes, that the idx was
            written for that pack, the object count, every object's CRC32 against the idx (idx v2),
            every object header, every OFS/REF base (no cycles), and every delta's header.
  --full    also what git checks: every object is inflated (its zlib stream must fill its entry
            and give its declared size), every delta applied to its base, and every result hashed
            and compared with its id in the idx. Runs in worker threads (--threads, default: one
            per core).

Exit status 0 when every pack is ok, 1 otherwise (with one line per problem on stderr).`;

export interface VerifyPackContext {
  workerScript: string;
  progress: Progress;
}

// Stays long: a linear script: options, then each pack verified and printed in turn.
async function runVerifyPack(argv: string[], context: VerifyPackContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      verbose: { type: 'boolean', short: 'v' },
      'stat-only': { type: 'boolean', short: 's' },
      full: { type: 'boolean' },
      threads: { type: 'string' },
      'object-format': { type: 'string' },
    },
  });
  if (positionals.length === 0)
    throw fail('usage', undefined, undefined, 'verify-pack needs at least one pack (see packscope verify-pack --help)');
  let forcedHash: HashAlgorithm | undefined;
  if (values['object-format'] !== undefined) {
    forcedHash = hashAlgorithmByName(values['object-format']);
    if (!forcedHash)
      throw fail('usage', undefined, undefined, `unknown object format "${values['object-format']}" (sha1 or sha256)`);
  }
  const threads = values.threads === undefined ? undefined : Number(values.threads);
  if (threads !== undefined && (!Number.isInteger(threads) || threads < 1))
    throw fail('usage', undefined, undefined, '--threads needs a positive integer');
  const statOnly = values['stat-only'] ?? false;
  const verbose = (values.verbose ?? false) && !statOnly;

  let status = 0;
  const shownNames: string[] = [];
  for (const argument of positionals) {
    try {
      shownNames.push(...packNamesOf(argument));
    } catch (error) {
      if (!(error instanceof PackScopeError)) throw error;
      reportError(error);
      status = 1;
    }
  }
  for (const shownName of shownNames) {
    let held: HeldOutput | undefined;
    try {
      const files = packFilesFor(path.resolve(shownName));
      const hash = forcedHash ?? hashAlgorithmNear(files.pack);
      const index = loadIdx(files, hash);
      // The checksum pass reads the whole pack; it runs in a worker while the model is built.
      const checksums = checksumsInWorker(context.workerScript, files, index.hash.name, index);
      let model: PackModel;
      try {
        model = context.progress.track(`Reading ${path.basename(files.pack)}`, (onProgress) =>
          buildPackModel(files, { index, onProgress, ...cliBuildOptions(1) }),
        );
      } catch (error) {
        checksums.cancel();
        throw error;
      }
      // Like `git index-pack --verify-stat`, the listing comes before the comparison with the idx:
      // an idx that disagrees with a sound pack still gets the listing, then "bad".
      // Without --full the listing is formatted while the checksum worker runs (it was a third of
      // the main thread's time after the build), held back until the checksums say whether it is
      // printed; past LISTING_HOLD_BYTES the formatting waits for them.
      // Whether the listing is printed: yes when the checksums pass or fail only against the idx.
      const listingVerdict = checksums.result.then(
        () => true,
        (error: unknown) => error instanceof PackFormatError && isIdxProblem(error, files.idx),
      );
      held = (verbose || statOnly) && !values.full ? new HeldOutput() : undefined;
      const listing = held ? printPackInfo(model, statOnly, undefined, held, listingVerdict) : undefined;
      // A listing given up (the checksums failed) stops at its next write; that rejection is expected.
      listing?.catch(() => undefined);
      let idxProblem: PackFormatError | undefined;
      try {
        await context.progress.trackAsync(`Checking ${path.basename(files.pack)}`, () => checksums.result);
        if (values.full) {
          await context.progress.trackAsync(`Resolving ${path.basename(files.pack)}`, (onProgress) =>
            verifyFull(
              model,
              threads === undefined
                ? { workerScript: context.workerScript, onProgress }
                : { workerScript: context.workerScript, onProgress, threads },
            ),
          );
        }
      } catch (error) {
        if (!(error instanceof PackFormatError) || !isIdxProblem(error, files.idx)) throw error;
        idxProblem = error;
      }
      if (held) {
        await listing;
        held.release();
      } else if (verbose || statOnly) {
        await printPackInfo(model, statOnly, idxProblem instanceof IdMismatchError ? idxProblem.computed : undefined);
      }
      if (idxProblem) throw idxProblem;
      // builtin/verify-pack.c: "ok" only with -v; -s prints the histogram alone.
      if (verbose) process.stdout.write(`${shownName}: ok\n`);
    } catch (error) {
      if (!(error instanceof PackScopeError)) throw error;
      held?.discard();
      reportError(error);
      if (verbose || statOnly) process.stdout.write(`${shownName}: bad\n`);
      status = 1;
    }
  }
  return status;
}

/**
 * The packs an argument names, as git's verify-pack would print them: a pack as given, with .idx
 * (or nothing) turned into .pack; a directory is a repository (any directory in one), whose own
 * packs are checked one by one in name order, each named by the directory given and the path
 * below it (as `git verify-pack repo/.git/objects/pack/pack-….idx` names it).
 */
function packNamesOf(argument: string): string[] {
  // A name ending in .pack or .idx is a pack whatever it is on disk: a directory so named is a pack
  // that is not a regular file, as the pack reader says, not a repository to look for.
  const namesAPack = argument.endsWith('.pack') || argument.endsWith('.idx');
  if (namesAPack || !fs.statSync(argument, { throwIfNoEntry: false })?.isDirectory())
    return [
      argument.endsWith('.idx')
        ? `${argument.slice(0, -4)}.pack`
        : argument.endsWith('.pack')
          ? argument
          : `${argument}.pack`,
    ];
  const repository = discoverRepository(argument);
  const packDir = path.join(repository.objectsDir, 'pack');
  // A new repository has no pack directory yet: no packs, as with an empty one.
  const packs = (fs.existsSync(packDir) ? fs.readdirSync(packDir) : []).filter((name) => name.endsWith('.pack')).sort();
  if (packs.length === 0)
    throw fail(
      'not-found',
      packDir,
      undefined,
      `the repository at ${argument} has no packs to verify (its objects are loose; git gc packs them)`,
    );
  const relative = path.relative(path.resolve(argument), packDir);
  return packs.map((name) =>
    path.isAbsolute(relative) ? path.join(relative, name) : path.join(argument, relative, name),
  );
}

/** Problems git finds only when it compares the idx it rebuilt with the one on disk. */
function isIdxProblem(error: PackFormatError, idxFile: string): boolean {
  return (
    error.file === idxFile && (error.code === 'checksum' || error.code === 'crc' || error instanceof IdMismatchError)
  );
}

/** Listing bytes formatted ahead of the checksums' verdict before formatting waits for it. */
const LISTING_HOLD_BYTES = 64 << 20;

/** Output kept back until released (then written, and everything after it directly) or discarded. */
class HeldOutput {
  private chunks: Buffer[] | undefined = [];
  heldBytes = 0;
  discarded = false;

  write(chunk: Buffer): void {
    if (this.discarded) throw new Error('listing discarded');
    if (this.chunks) {
      this.chunks.push(chunk);
      this.heldBytes += chunk.length;
    } else {
      process.stdout.write(chunk);
    }
  }

  get holding(): boolean {
    return this.chunks !== undefined;
  }

  release(): void {
    const chunks = this.chunks ?? [];
    this.chunks = undefined;
    // Chunk by chunk: one Buffer.concat of a big pack's listing copied tens of megabytes again.
    for (const chunk of chunks) process.stdout.write(chunk);
  }

  discard(): void {
    this.discarded = true;
    this.chunks = [];
  }
}

/** The object lines and histogram of `git index-pack --verify-stat` (builtin/index-pack.c show_pack_info). */
async function printPackInfo(
  model: PackModel,
  statOnly: boolean,
  computedIds?: Map<number, string>,
  held?: HeldOutput,
  verdict?: Promise<boolean>,
): Promise<void> {
  const out = held ? new AsciiWriter((chunk) => held.write(chunk)) : new AsciiWriter();
  const c = model.columns;
  const count = model.count;
  const names = model.index.bytes;
  const hashSize = model.hash.size;
  // printf("%-6s") of the type name.
  const paddedTypes = TYPE_NAMES.map((name) => name.padEnd(6));
  // index-pack prints the ids it computed; where they differ from the idx, show those.
  const writeId = (n: number): void => {
    const computed = computedIds?.get(n);
    if (computed === undefined) out.hex(names, model.index.namePosition(n), hashSize);
    else out.text(computed);
  };
  let nonDeltas = 0;
  const chainHistogram: number[] = [];
  for (let p = 0; p < count; p++) {
    const n = c.byOffset[p]!;
    const depth = c.depth[n]!;
    if (depth === 0) nonDeltas++;
    else chainHistogram[depth - 1] = (chainHistogram[depth - 1] ?? 0) + 1;
    if (statOnly) continue;
    writeId(n);
    out.byte(32).text(paddedTypes[c.type[n]!]!).byte(32);
    out.number(c.size.get(n)).byte(32).number(c.diskSize.get(n)).byte(32).number(c.offset[n]!);
    if (depth > 0) {
      out.byte(32).number(depth).byte(32);
      writeId(c.base[n]!);
    }
    out.endLine();
    if (held && held.holding && held.heldBytes >= LISTING_HOLD_BYTES && verdict) {
      // Enough held back: wait for the checksums, then print the rest as it comes, or stop.
      if (!(await verdict)) return;
      held.release();
    }
  }
  if (nonDeltas > 0) {
    out.text(`non delta: ${nonDeltas} object${nonDeltas === 1 ? '' : 's'}`).endLine();
  }
  chainHistogram.forEach((objects, i) => {
    if (objects) out.text(`chain length = ${i + 1}: ${objects} object${objects === 1 ? '' : 's'}`).endLine();
  });
  out.flush();
}

export const verifyPackCommand: Command = {
  name: 'verify-pack',
  summary: 'verify-pack [-v|-s] [--full] <pack>...   check packs; prints what git verify-pack prints',
  help: verifyPackHelp,
  run: (argv, { progress, workerScript }) =>
    runVerifyPack(argv, { workerScript: workerScript('verify-worker.js'), progress }),
  optionNotes: {
    '--no-cache': 'it keeps no pack model (every run reads the packs anew, as git does)',
    '--cache-dir': 'it keeps no pack model (every run reads the packs anew, as git does)',
  },
};
