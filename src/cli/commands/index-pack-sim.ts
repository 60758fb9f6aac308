import { GIT_DEFAULT_LIMIT } from '../../common/git-size.ts';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { hashAlgorithmByName, SHA1 } from '../../core/format/hash-algorithm.ts';
import { indexPackWithoutIdx } from '../../core/format/pack-stream-index.ts';
import { buildPackModel, packFilesFor } from '../../core/model/build-pack-model.ts';
import { cliBuildOptions } from '../open-target.ts';
import { hashAlgorithmNear } from '../../core/model/repository.ts';
import { parseLimits } from '../../core/sim/policy-registry.ts';
import { INDEX_PACK_VARIANTS, indexPackSimDocument } from '../../core/report/index-pack-sim.ts';
import type { IndexPackVariant } from '../../core/documents/simulation-documents.ts';
import { formatLimit, formatTable, writeJson } from '../output.ts';
import type { Progress } from '../progress.ts';
import type { Command } from '../command.ts';

const indexPackSimHelp = `usage: packscope index-pack-sim [--json] [--limit L] [--variant V] [--object-format F] <pack>

Simulates the second pass of \`git index-pack --threads=1\` on a pack (git-internals §2): how many
zlib inflations (pass 1 included), delta applications and base reconstructions it does, and the
most base data it holds, with core.deltaBaseCacheLimit = L (default 96m).

The pack needs no .idx: without one (a fetched pack, \`git pack-objects --stdout\` output) it is
read alone as index-pack reads it, every object inflated and hashed and every delta applied to
find each object's id (REF_DELTA bases are found by id), with bounded memory. A pack does not say
its hash: --object-format sha256 reads one of a SHA-256 repository (default: the repository the
pack lies in, else sha1).

variants (default: all three side by side):
  v2.36              Git 2.36–2.54: a base with children is freed right after it is queued, and
                     rebuilt when its first child needs it
  v2.55              Git 2.55 and later (and 2.29–2.35): that base is kept, left to pruning
  release-when-done  v2.55, and a base is freed as soon as its last child is resolved (the
                     refinement suggested in the 2026 patch's review)

--json prints {"schema":"packscope.index-pack-sim/1","pack":…,"limit":…,"results":[{variant,
inflations, deltaApplications, reconstructions, peakBytes}]}.`;

function runIndexPackSim(argv: string[], progress: Progress): number {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      limit: { type: 'string' },
      variant: { type: 'string' },
      'object-format': { type: 'string' },
    },
  });
  if (positionals.length !== 1)
    throw fail('usage', undefined, undefined, 'index-pack-sim needs one pack (see packscope index-pack-sim --help)');
  const limits = values.limit === undefined ? [GIT_DEFAULT_LIMIT] : parseLimits(values.limit);
  if (limits.length !== 1) throw fail('usage', undefined, undefined, '--limit takes one size');
  const variants = values.variant === undefined ? INDEX_PACK_VARIANTS : [values.variant as IndexPackVariant];
  if (!INDEX_PACK_VARIANTS.includes(variants[0]!))
    throw fail(
      'usage',
      undefined,
      undefined,
      `unknown variant "${values.variant}" (${INDEX_PACK_VARIANTS.join(', ')})`,
    );
  const files = packFilesFor(path.resolve(positionals[0]!));
  const format = values['object-format'];
  const chosenHash = format === undefined ? undefined : hashAlgorithmByName(format);
  if (format !== undefined && chosenHash === undefined)
    throw fail('usage', undefined, undefined, `unknown object format "${format}" (sha1 or sha256)`);
  const hash = chosenHash ?? hashAlgorithmNear(files.pack);
  const name = path.basename(files.pack);
  // No .idx: index the pack from its bytes, as index-pack itself does with what it receives.
  const index = fs.existsSync(files.idx)
    ? undefined
    : progress.track(`Indexing ${name} (no .idx)`, (onProgress) =>
        indexPackWithoutIdx(files.pack, { hash: hash ?? SHA1, onProgress }),
      );
  const model = progress.track(`Reading ${name}`, (onProgress) =>
    buildPackModel(files, {
      ...(hash ? { hash } : {}),
      ...(index ? { index, hash: index.hash } : {}),
      onProgress,
      ...cliBuildOptions(),
    }),
  );
  const limit = limits[0]!;
  const document = indexPackSimDocument(files.pack, model, limit, variants);
  if (values.json) {
    writeJson(document);
    return 0;
  }
  const { results } = document;
  const rows = [
    ['variant', 'inflations', 'delta applications', 'reconstructions', 'peak bytes'],
    ...results.map((r) => [
      r.variant,
      String(r.inflations),
      String(r.deltaApplications),
      String(r.reconstructions),
      String(r.peakBytes),
    ]),
  ];
  const indexed = index ? ' (no .idx: indexed from the pack)' : '';
  process.stdout.write(
    [
      `${files.pack}${indexed}: ${model.count} objects, core.deltaBaseCacheLimit=${formatLimit(limit)}, one thread`,
      ...formatTable(rows),
    ].join('\n') + '\n',
  );
  return 0;
}

export const indexPackSimCommand: Command = {
  name: 'index-pack-sim',
  summary: "index-pack-sim [--json] [--limit L] <pack> index-pack's second pass: inflations per variant",
  help: indexPackSimHelp,
  run: (argv, { progress }) => runIndexPackSim(argv, progress),
};
