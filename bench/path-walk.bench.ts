/**
 * Naming objects by path against git on the same repository in the same run: `packscope stats
 * --json` with the model stored and no stored names, once with git rev-list naming the objects
 * (the default where git may run: its output parsed as it streams) and once with PackScope's own
 * walk (PACKSCOPE_NAMES_FROM=walk), against `git rev-list --objects --all --missing=allow-any`
 * itself, the listing whose names both reproduce. Each is a whole process tree under
 * /usr/bin/time: user + system CPU seconds of the process and every child it waited for (git
 * included), the largest max RSS of any one process of the tree (wait4's ru_maxrss: with git
 * naming, node and git run side by side, so their sum can be higher), and wall time. The machine
 * is shared: wall times are rough; CPU time is the figure to compare. Prints each run and the
 * ratios PackScope / git.
 *
 * The model cache is a directory of its own under the temporary directory (benchModelCacheRoot): one
 * under .bench/ would be inside this checkout, where PackScope never writes, so the model was not
 * stored and every timed run built it again.
 * Without a repository it measures the generated one (bench/generate.ts). Under `npm run bench` it
 * records the wall-time ratios, best run of each, for the closing table (bench/results.ts).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { benchModelCacheRoot, DEFAULT_HISTORY, generatedPack, projectRoot } from './generate.ts';
import { recordFigures } from './results.ts';

const help = `usage: node --import tsx bench/path-walk.bench.ts [--runs N] [<repository>]

packscope stats (names from git rev-list, then from the walk; the model already stored) against git
rev-list --objects --all --missing=allow-any on the same repository: CPU (user + sys of the process
tree), max RSS, wall, and the ratios. The machine is shared: wall times are rough. Without a
repository: the generated one of the other benches.`;

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '1' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
});
if (values.help || positionals.length > 1) {
  process.stderr.write(`${help}\n`);
  process.exit(values.help ? 0 : 2);
}
const log = (line: string): void => void process.stderr.write(`${line}\n`);
// The generated pack is <git dir>/objects/pack/<name>.pack.
const repository = path.resolve(
  positionals[0] ?? path.dirname(path.dirname(path.dirname(generatedPack(DEFAULT_HISTORY, log).pack))),
);
const subject = positionals[0] === undefined ? 'generated repository' : path.basename(repository);
const runs = Number(values.runs);
const cache = path.join(benchModelCacheRoot, 'path-walk');
const cli = path.join(projectRoot, 'bin', 'packscope.js');

interface Run {
  cpu: number;
  rssMiB: number;
  wall: number;
}

/** One process tree under /usr/bin/time; its output is discarded (rev-list's 400k lines included). */
function timed(command: string[], env: NodeJS.ProcessEnv = process.env): Run {
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S %M %e', ...command], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const stderr = result.stderr.toString('utf8').trim().split('\n');
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${stderr.slice(-5).join('\n')}`);
  const [user, system, rss, wall] = stderr.at(-1)!.split(' ').map(Number);
  return { cpu: user! + system!, rssMiB: rss! / 1024, wall: wall! };
}

function removeStoredWalks(): void {
  for (const file of fs.existsSync(cache) ? fs.readdirSync(cache) : [])
    // A stopped walk's checkpoint too: the walk would go on from it rather than start over.
    if (file.endsWith('.pspaths') || file.endsWith('.pswalk')) fs.rmSync(path.join(cache, file));
}

// The model is built and stored once, outside the timed runs.
timed([process.execPath, cli, 'stats', '--no-paths', '--cache-dir', cache, repository]);
const line = (name: string, run: Run): string =>
  `${name.padEnd(22)} cpu ${run.cpu.toFixed(2).padStart(6)} s  max RSS ${run.rssMiB.toFixed(0).padStart(5)} MiB  wall ${run.wall.toFixed(2).padStart(6)} s`;
const ratio = (name: string, ours: Run, git: Run): string =>
  `${name.padEnd(22)} cpu ${(ours.cpu / git.cpu).toFixed(2)}×  max RSS ${(ours.rssMiB / git.rssMiB).toFixed(2)}×  wall ${(ours.wall / git.wall).toFixed(2)}×\n`;
const stats = (namesFrom: 'git' | 'walk'): Run => {
  removeStoredWalks();
  return timed([process.execPath, cli, 'stats', '--json', '--cache-dir', cache, repository], {
    ...process.env,
    PACKSCOPE_NAMES_FROM: namesFrom,
  });
};
process.stdout.write('(a shared machine: wall times are rough; compare CPU)\n');
const best: Record<'fromGit' | 'walked' | 'git', Run | undefined> = {
  fromGit: undefined,
  walked: undefined,
  git: undefined,
};
const keepBest = (name: keyof typeof best, run: Run): Run => {
  if (best[name] === undefined || run.wall < best[name].wall) best[name] = run;
  return run;
};
for (let i = 0; i < runs; i++) {
  const fromGit = keepBest('fromGit', stats('git'));
  const walked = keepBest('walked', stats('walk'));
  const git = keepBest(
    'git',
    timed(['git', '-C', repository, 'rev-list', '--objects', '--all', '--missing=allow-any']),
  );
  process.stdout.write(
    `${line('packscope (git rev-list)', fromGit)}\n${line('packscope (walk)', walked)}\n${line('git rev-list', git)}\n`,
  );
  process.stdout.write(ratio('ratio (git rev-list)', fromGit, git) + ratio('ratio (walk)', walked, git));
}
// "No slower than git": the wall time a user waits for the names, best run of each.
const git = best.git!;
recordFigures(
  'path-walk',
  (
    [
      ['names from git rev-list (the default)', best.fromGit!],
      ['names from its own walk (no git)', best.walked!],
    ] as const
  ).map(([how, run]) => ({
    target: 'names' as const,
    subject: `${subject}, ${how}`,
    value: `${(run.wall / git.wall).toFixed(2)}x wall`,
    met: run.wall <= git.wall,
    note: `${run.wall.toFixed(2)} s against rev-list's ${git.wall.toFixed(2)} s; CPU ${(run.cpu / git.cpu).toFixed(2)}x, max RSS ${(run.rssMiB / git.rssMiB).toFixed(2)}x (best of ${runs})`,
  })),
);
