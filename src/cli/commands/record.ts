import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { fail } from '../../core/errors.ts';
import { ObjectStore } from '../../core/model/object-store.ts';
import { refuseInsideAnyRepository, refuseInsideRepository } from '../../core/model/outside-repository.ts';
import { makeDirectories } from '../../core/atomic-file.ts';
import { discoverRepository, type Repository } from '../../core/model/repository.ts';
import { countAccessLines, recordGitCommand } from '../../core/trace/record-git.ts';
import { formatLimit } from '../output.ts';
import { modelStoreFor } from '../open-target.ts';
import { cacheOptions, cacheOptionSpec } from './cache-options.ts';
import type { Command } from '../command.ts';

const recordHelp = `usage: packscope record [--exact | --passive] [-o FILE] [-C DIR] [--git PATH] -- <git arguments…>

Runs one git command in the repository at DIR (default: the current directory) with
GIT_TRACE_PACK_ACCESS (and GIT_TRACE, unless you set it, to split the log per git process) pointed
at a temporary file, and stores a recording: the trace lines plus the command, directory, git
version, the cache limit it ran with, the packs with their checksums, start and end times and the
exit status. git's own output goes to the terminal; the exit status is git's.

--exact    (default) runs git with core.deltaBaseCacheLimit=0 (through GIT_CONFIG_COUNT, after
           any entries you already pass that way): then a replay predicts git at every limit
           (git-internals §8). git runs slower while recording.
--passive  keeps your own limit: a replay is exact only at that limit.
-o FILE    where to write the recording (default: ~/.cache/packscope/recordings/, or
           PACKSCOPE_RECORDINGS_DIR). PackScope never writes inside the repository.`;

function defaultRecordingPath(repository: Repository, args: string[]): string {
  const base = process.env.PACKSCOPE_RECORDINGS_DIR
    ? path.resolve(process.env.PACKSCOPE_RECORDINGS_DIR)
    : path.join(process.env.XDG_CACHE_HOME ? path.resolve(process.env.XDG_CACHE_HOME) : path.join(os.homedir(), '.cache'), 'packscope', 'recordings');
  const top = repository.workTree ?? repository.commonDir;
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const words = args.filter((a) => /^[\w.-]+$/.test(a)).slice(0, 3).join('-') || 'git';
  return path.join(base, `${path.basename(top)}-${words}-${stamp}.psrec`);
}

async function runRecord(argv: string[]): Promise<number> {
  const separator = argv.indexOf('--');
  if (separator < 0 || separator === argv.length - 1) throw fail('usage', undefined, undefined, 'record needs the git arguments after "--", e.g. packscope record -- log --raw -n 1000');
  const { values } = parseArgs({
    args: argv.slice(0, separator),
    allowPositionals: false,
    options: { exact: { type: 'boolean' }, passive: { type: 'boolean' }, output: { type: 'string', short: 'o' }, C: { type: 'string', short: 'C' }, git: { type: 'string' }, ...cacheOptionSpec },
  });
  if (values.exact && values.passive) throw fail('usage', undefined, undefined, '--exact and --passive exclude each other');
  const gitArgs = argv.slice(separator + 1);
  const cwd = path.resolve(values.C ?? '.');
  const repository = discoverRepository(cwd);
  const output = path.resolve(values.output ?? defaultRecordingPath(repository, gitArgs));
  refuseInsideRepository(output, repository, () => 'the recording must be written outside the repository; PackScope never writes inside a repository');
  refuseInsideAnyRepository(output, () => 'the recording must be written outside the repository; PackScope never writes inside a repository');
  makeDirectories(path.dirname(output), 0o777);
  const store = new ObjectStore(repository, modelStoreFor(cacheOptions(values), repository));
  const metadata = await recordGitCommand({ git: values.git ?? 'git', args: gitArgs, cwd, store, mode: values.passive ? 'passive' : 'exact', output });
  const lines = fs.existsSync(output) ? countAccessLines(output) : 0;
  process.stderr.write(`packscope: recorded ${lines} pack reads of \`git ${gitArgs.join(' ')}\` (${metadata.mode}, core.deltaBaseCacheLimit=${formatLimit(metadata.cacheLimit)}) to ${output}\n`);
  if (metadata.signal) return 1;
  return metadata.exitStatus ?? 1;
}

export const recordCommand: Command = {
  name: 'record',
  summary: 'record [--exact|--passive] -- <git args>  run a git command and record its pack reads',
  help: recordHelp,
  forwardsAfterDoubleDash: true,
  run: (argv) => runRecord(argv),
};
