import * as path from 'node:path';
import { objectHelp, runObject } from './commands/object.ts';
import { objectsHelp, runObjects } from './commands/objects.ts';
import { runStats, statsHelp } from './commands/stats.ts';
import { runVerifyPack, verifyPackHelp } from './commands/verify-pack.ts';
import { recordHelp, runRecord } from './commands/record.ts';
import { runSimulate, simulateHelp } from './commands/simulate.ts';
import { runSweepCommand, sweepHelp } from './commands/sweep.ts';
import { localityHelp, runLocality } from './commands/locality.ts';
import { indexPackSimHelp, runIndexPackSim } from './commands/index-pack-sim.ts';
import { repackPreviewHelp, runRepackPreview } from './commands/repack-preview.ts';
import { Progress } from './progress.ts';
import { reportError } from './report-error.ts';

declare const PACKSCOPE_VERSION: string;

const overview = `usage: packscope <command> [options]

Looks inside Git packfiles.

commands:
  verify-pack [-v|-s] [--full] <pack>...   check packs; prints what git verify-pack prints
  stats [--json] [path]                     objects, deltas, depths, families, largest and deepest
  object [--json] <oid|prefix> [path]       one object: sizes, pack, offset, chain, family
  objects [path]                            every packed object, as git cat-file --batch-check
  record [--exact|--passive] -- <git args>  run a git command and record its pack reads
  locality [--json] <recording>             seek distances and page faults of recorded reads
  simulate [--json] --limit L <recording>   replay reads through Git's read path and a cache policy
  sweep [--json] --limits … <recording>     every policy at every limit, in worker threads
  index-pack-sim [--json] [--limit L] <pack> index-pack's second pass: inflations per variant
  repack-preview [--json] [--depth N] …     what git repack -a -d -f would do, without touching the repository

Run "packscope <command> --help" for a command's options. [path] is any path inside a
repository (default: the current directory) or a .pack/.idx file. Pack models are cached in
~/.cache/packscope/models (PACKSCOPE_CACHE_DIR, --cache-dir, --no-cache).`;

const helps: Record<string, string> = {
  'verify-pack': verifyPackHelp,
  stats: statsHelp,
  object: objectHelp,
  objects: objectsHelp,
  record: recordHelp,
  locality: localityHelp,
  simulate: simulateHelp,
  sweep: sweepHelp,
  'index-pack-sim': indexPackSimHelp,
  'repack-preview': repackPreviewHelp,
};

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    const topic = command === 'help' ? rest[0] : undefined;
    process.stdout.write(`${(topic && helps[topic]) ?? overview}\n`);
    return command === undefined ? 1 : 0;
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`packscope ${typeof PACKSCOPE_VERSION === 'string' ? PACKSCOPE_VERSION : 'dev'}\n`);
    return 0;
  }
  if (!(command in helps)) {
    process.stderr.write(`packscope: unknown command "${command}"\n\n${overview}\n`);
    return 1;
  }
  const optionArgs = (command === 'record' || command === 'repack-preview') && rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (optionArgs.includes('--help') || optionArgs.includes('-h')) {
    process.stdout.write(`${helps[command]}\n`);
    return 0;
  }
  const progress = Progress.forStderr();
  switch (command) {
    case 'verify-pack':
      return runVerifyPack(rest, { workerScript: path.join(__dirname, 'verify-worker.js'), progress });
    case 'stats':
      return runStats(rest, progress);
    case 'object':
      return runObject(rest);
    case 'objects':
      return runObjects(rest, progress);
    case 'record':
      return runRecord(rest);
    case 'locality':
      return runLocality(rest, progress);
    case 'simulate':
      return runSimulate(rest, progress);
    case 'sweep':
      return runSweepCommand(rest, progress, path.join(__dirname, 'sim-worker.js'));
    case 'index-pack-sim':
      return runIndexPackSim(rest, progress);
    case 'repack-preview':
      return runRepackPreview(rest, progress);
  }
  return 1;
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // A reader that went away (`packscope objects | head`) is not an error.
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    reportError(error);
    process.exitCode = 1;
  },
);
