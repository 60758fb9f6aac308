import { errorMessage } from '../../common/error-message.ts';
import { parseArgs } from 'node:util';
import { fail, UsageError } from '../../core/errors.ts';
import { TYPE_NAMES } from '../../core/format/pack-file.ts';
import { readSubject } from '../../core/model/commit-subject.ts';
import { storeWalkInputs, type ObjectPaths, type StoreWalkInputs } from '../../core/model/object-paths.ts';
import { checkpointPaths } from '../../core/model/object-paths-store.ts';
import type { PackModel } from '../../core/model/pack-model.ts';
import type { Progress } from '../progress.ts';
import { walkWithProgress } from '../walk-paths.ts';
import { formatBytes, formatTable, writeJson } from '../output.ts';
import { openObjectStore } from '../open-target.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';
import { withoutTiming } from '../../core/report/stats.ts';
import { resolveRevision } from '../../core/git/rev-parse.ts';
import { whereabouts } from '../../core/model/repository-layout.ts';
import { findIntroducingCommit } from '../../core/git/introducing-commit.ts';
import type { IntroducedBy } from '../../core/documents/object-paths-document.ts';
import type { ObjectStore } from '../../core/model/object-store.ts';

/** What `object` looks up itself: an id or a prefix of one (git's shortest is 4 digits). */
const HEX_PREFIX = /^[0-9a-fA-F]{4,64}$/;

/** How long `object` walks for a path when none is stored: a prompt answer, not git.git's minutes. */
const DEFAULT_WALK_SECONDS = 2;

const objectHelp = `usage: packscope object [--json] [--no-paths] [--walk-seconds S] [--git PATH] [--no-cache | --cache-dir DIR] <object> [path]

One packed object of the repository at [path] (default: the current directory): its type, sizes,
pack and offset, delta depth, the chain down to its root (ids, types, sizes), the number of its
direct delta children and the size of its family (all objects sharing its root). <object> is an
id, a prefix of one (at least 4 hex digits, unique across the repository's packs), or any name
\`git rev-parse --verify\` takes (HEAD:Makefile, v2.40.0^{tree}, main~3), which git resolves
(it only reads the repository; --git PATH names the git, default git on PATH).

A tree's or blob's path (a tag's name) is the name \`git rev-list --objects --all\` prints for it:
PackScope replays that walk over the repository's commits and trees once and keeps the result
in the model cache until a ref or pack changes. A commit's or tag's subject is \`git log -1
--format=%s\`'s. --no-paths skips the walk.

A blob's or tree's introducing commit ("introduced", --json introducedBy) is the oldest commit
that adds the object at its path: the last one \`git log --all --find-object=<oid> --no-renames
--diff-merges=separate\` lists with the object added there. One \`git log\` limited to that
path finds it (seconds on git.git; docs/git-internals.md §9); --no-paths skips it too.

When no finished walk is stored, \`object\` walks for at most --walk-seconds (default ${DEFAULT_WALK_SECONDS};
0: no bound) and, if the walk did not reach the object by then, prints it without its path and
says how to get one: \`packscope stats\` walks the whole history once and stores the result (on
git.git's 850,000 objects, minutes), after which \`object\` prints paths at once. A walk cut
short is not stored as the names, but where it stopped is: the next \`object\` goes on from there
(and does not run git again, which cannot go on from where it stopped), so that a few runs name
what one bounded run could not; an object such a walk already reached is answered at once.

--json prints the "packscope.object/1" document described in docs/json.md.`;

interface ChainLink {
  oid: string;
  type: string;
  inPackType: string;
  size: number;
  headerSize: number;
  diskSize: number;
  offset: number;
}

function link(model: PackModel, n: number): ChainLink {
  const c = model.columns;
  return {
    oid: model.oidHex(n),
    type: TYPE_NAMES[c.type[n]!]!,
    inPackType: TYPE_NAMES[c.inPackType[n]!]!,
    size: c.resultSize.get(n),
    headerSize: c.size.get(n),
    diskSize: c.diskSize.get(n),
    offset: c.offset[n]!,
  };
}

// Stays long: a linear script: options, the store, the lookup, the path walk, then the object's document printed.
async function runObject(argv: string[], progress: Progress): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean' },
      'no-paths': { type: 'boolean' },
      'walk-seconds': { type: 'string' },
      git: { type: 'string' },
      ...cacheOptionSpec,
    },
  });
  const walkSeconds = values['walk-seconds'] === undefined ? DEFAULT_WALK_SECONDS : Number(values['walk-seconds']);
  if (!Number.isFinite(walkSeconds) || walkSeconds < 0)
    throw fail(
      'usage',
      undefined,
      undefined,
      `--walk-seconds needs a number of seconds, 0 or more (got ${values['walk-seconds']})`,
    );
  if (positionals.length < 1 || positionals.length > 2)
    throw fail(
      'usage',
      undefined,
      undefined,
      'object needs an object id (a unique prefix, or a name git gives it) and optionally a path',
    );
  const store = openObjectStore(positionals[1] ?? '.', cacheOptions(values), progress);
  // Hex digits are an id or its prefix, looked up in the packs; anything else is a name git resolves.
  const named = positionals[0]!;
  const wanted = HEX_PREFIX.test(named)
    ? named.toLowerCase()
    : await resolveRevision(values.git ?? 'git', store.repository, named);
  let resolved;
  try {
    resolved = store.resolve(wanted);
  } catch (error) {
    // A loose object is git's answer when no pack has it: say where it is rather than "not found".
    const where =
      error instanceof UsageError &&
      error.code === 'not-found' &&
      wanted.length === store.repository.hash.size * 2 &&
      !store.singlePack
        ? whereabouts(store, wanted)
        : undefined;
    if (where && 'loose' in where.answeredBy)
      throw fail(
        'not-found',
        where.answeredBy.loose,
        undefined,
        `object ${wanted}${HEX_PREFIX.test(named) ? '' : ` (${named})`} is loose, in no pack: git reads it from this file (PackScope models packed objects only)`,
      );
    throw error;
  }
  const { model, object, pack } = resolved;
  const chain = model.chain(object).map((n) => link(model, n));
  const self = chain[0]!;
  let path: string | null = null;
  let pathWalk = null;
  let walkGaveUp: WalkGaveUp | undefined;
  if (!values['no-paths'] && (self.type === 'tree' || self.type === 'blob' || self.type === 'tag')) {
    const inputs = storeWalkInputs(store);
    const position = inputs.packs.indexOf(pack);
    // An object a stopped walk already reached is answered from its checkpoint, without walking on.
    const reached = walkSeconds === 0 ? undefined : reachedBefore(inputs, store, position, object);
    const paths =
      reached ??
      (await walkWithProgress(inputs, store, progress, walkSeconds === 0 ? undefined : { maxMs: walkSeconds * 1000 }));
    const node = position < 0 ? -1 : paths.pathOf[position]![object]!;
    path = node < 0 ? null : paths.table.path(node);
    pathWalk = withoutTiming(paths.summary);
    if (paths.stopped !== undefined && path === null)
      walkGaveUp = {
        seconds: walkSeconds,
        commits: paths.summary.commits,
        trees: paths.summary.trees,
        totalCommits: sumOf(inputs.models, 'commit'),
        totalTrees: sumOf(inputs.models, 'tree'),
      };
  }
  const introducedBy =
    path !== null && (self.type === 'tree' || self.type === 'blob') && !store.singlePack
      ? await introducingCommitOf(store, self.oid, path, values.git ?? 'git')
      : null;
  let subject: string | null = null;
  try {
    subject = readSubject(model, object) ?? null;
  } catch (error) {
    process.stderr.write(`packscope: warning: no subject: ${errorMessage(error)}\n`);
  }
  // Every pack's idx is searched for copies: an object in several packs is read from one only.
  const where = store.singlePack ? undefined : whereabouts(store, self.oid);
  const report = {
    schema: 'packscope.object/1',
    ...self,
    pack: pack.files.pack,
    viaMidx: store.coveredByMidx(pack),
    alsoInPacks: where?.alsoInPacks ?? [],
    alsoLoose: where?.alsoLoose ?? [],
    packChecksum: model.checksumHex,
    depth: model.columns.depth[object]!,
    base: model.isDelta(object) ? model.oidHex(model.columns.base[object]!) : null,
    root: chain[chain.length - 1]!.oid,
    chain,
    children: model.children(object).length,
    familySize: model.familySize(object),
    path,
    introducedBy,
    subject,
    pathWalk,
  };
  if (values.json) {
    writeJson(report);
    return 0;
  }
  const stored =
    self.inPackType === self.type
      ? 'stored whole'
      : `stored as ${self.inPackType}, ${formatBytes(self.headerSize)} of delta`;
  const lines = [
    `object    ${self.oid}`,
    `type      ${self.type} (${stored})`,
    ...(subject === null ? [] : [`subject   ${subject}`]),
    ...(pathWalk === null
      ? []
      : [
          `${self.type === 'tag' ? 'name' : 'path'}      ${walkGaveUp ? describeGaveUp(walkGaveUp) : describePath(path, self.type, pathWalk.complete)}`,
        ]),
    ...(introducedBy === null ? [] : [`introduced ${describeIntroducedBy(introducedBy)}`]),
    `size      ${self.size} bytes (${formatBytes(self.size)}); ${self.diskSize} bytes in the pack`,
    `pack      ${report.pack} (${report.viaMidx ? 'git finds it through the multi-pack-index' : 'the first pack git searches that has it'})`,
    ...report.alsoInPacks.map((other) => `also in   ${other} (not read: git stops at the pack above)`),
    ...report.alsoLoose.map((file) => `also loose ${file} (not read: git reads packs before loose objects)`),
    `offset    ${self.offset}`,
    `depth     ${report.depth}`,
    `children  ${report.children}`,
    `family    ${report.familySize} object${report.familySize === 1 ? '' : 's'} sharing root ${report.root}`,
    `chain     ${chain.length === 1 ? 'none (not a delta)' : `${chain.length - 1} delta${chain.length === 2 ? '' : 's'} down to the root`}`,
  ];
  const rows = chain.map((l, i) => [
    `  ${i}`,
    l.oid,
    l.type,
    l.inPackType === l.type ? 'whole' : l.inPackType,
    `${l.size}`,
    `${l.headerSize}`,
    `${l.diskSize}`,
    `@${l.offset}`,
  ]);
  lines.push(...formatTable([['  #', 'oid', 'type', 'stored', 'size', 'payload', 'disk', 'offset'], ...rows]));
  process.stdout.write(lines.join('\n') + '\n');
  return 0;
}

/** The commit that introduced the object at its path (INTRODUCING_RULE), or why none is known. */
async function introducingCommitOf(store: ObjectStore, oid: string, path: string, git: string): Promise<IntroducedBy> {
  const repository = store.repository;
  try {
    const commit = await findIntroducingCommit(oid, path, {
      git,
      gitDir: repository.gitDir,
      cwd: repository.workTree ?? repository.gitDir,
    });
    if (commit === null)
      return { commit: null, reason: `no commit of the history adds it at ${path === '' ? 'the root' : path}` };
    let subject: string | undefined;
    try {
      const location = store.resolve(commit);
      subject = readSubject(location.model, location.object);
    } catch {
      // A loose commit, or one too large to read: its id alone.
    }
    return { commit, ...(subject === undefined ? {} : { subject }) };
  } catch (error) {
    return { commit: null, reason: errorMessage(error) };
  }
}

function describeIntroducedBy(introduced: IntroducedBy): string {
  if (introduced.commit === null) return `unknown (${introduced.reason ?? 'no reason given'})`;
  return introduced.subject === undefined ? introduced.commit : `${introduced.commit} ${introduced.subject}`;
}

interface WalkGaveUp {
  seconds: number;
  commits: number;
  trees: number;
  totalCommits: number;
  totalTrees: number;
}

/** The names of the stopped walk saved for this store, when it named object `n` of the pack at `position`. */
function reachedBefore(
  inputs: StoreWalkInputs,
  store: ObjectStore,
  position: number,
  n: number,
): ObjectPaths | undefined {
  if (position < 0) return undefined;
  const paths = checkpointPaths(inputs, store.repository.commonDir, store.modelCacheDirectory);
  return paths !== undefined && (paths.pathOf[position]![n] ?? -1) >= 0 ? paths : undefined;
}

function sumOf(models: readonly PackModel[], type: 'commit' | 'tree'): number {
  return models.reduce((sum, model) => sum + model.counts().byType[type]!, 0);
}

/** The path line when the bounded walk stopped before it reached the object: what it did, and how to get the path. */
function describeGaveUp(gaveUp: WalkGaveUp): string {
  const count = (n: number): string => n.toLocaleString('en-US');
  const reached =
    gaveUp.trees === 0
      ? `${count(gaveUp.commits)} of ${count(gaveUp.totalCommits)} commits`
      : `all commits and ${count(gaveUp.trees)} of ${count(gaveUp.totalTrees)} trees`;
  return `not known yet: the walk that names paths stopped after ${gaveUp.seconds} s (it had read ${reached}); run \`packscope stats\` once to walk it all and store it (then paths print at once), or --walk-seconds 0 to wait here (the next run goes on from where this one stopped)`;
}

/** The path line: rev-list's name, or why there is none. */
function describePath(path: string | null, type: string, complete: boolean): string {
  if (path === '') return '(a root tree: rev-list names it by the empty path)';
  if (path !== null) return path;
  return complete
    ? `none (no ref reaches this ${type})`
    : 'none found (the walk did not finish: see --json pathWalk.problems)';
}

export const objectCommand: Command = {
  name: 'object',
  summary: 'object [--json] <oid|prefix> [path]       one object: sizes, pack, offset, chain, family',
  help: objectHelp,
  run: (argv, { progress }) => runObject(argv, progress),
};
