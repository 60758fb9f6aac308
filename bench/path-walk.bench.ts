/**
 * The path walk against git on the same repository in the same run: `packscope stats --json` with
 * the model stored and no stored walk (so the run is the walk, plus a model reopen), against
 * `git rev-list --objects --all --missing=allow-any`, the listing whose names the walk reproduces.
 * Each is a whole process under /usr/bin/time: user + system CPU seconds, max RSS and wall time
 * (rough on a shared machine; the CPU time is the figure to compare). Prints each run and the
 * ratios PackScope / git.
 *
 * The model cache is a directory of its own under .bench/ (nothing is written into the repository).
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { benchDir, projectRoot } from './generate.ts';

const help = `usage: node --import tsx bench/path-walk.bench.ts [--runs N] <repository>

packscope stats (the path walk, the model already stored) against git rev-list --objects --all
--missing=allow-any on the same repository: CPU (user + sys), max RSS, wall, and the ratios.`;

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '1' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
});
if (values.help || positionals.length !== 1) {
  process.stderr.write(`${help}\n`);
  process.exit(values.help ? 0 : 2);
}
const repository = path.resolve(positionals[0]!);
const runs = Number(values.runs);
const cache = path.join(benchDir, 'path-walk-cache');
const cli = path.join(projectRoot, 'bin', 'packscope.js');

interface Run {
  cpu: number;
  rssMiB: number;
  wall: number;
}

/** One process under /usr/bin/time; its output is discarded (rev-list's 400k lines included). */
function timed(command: string[]): Run {
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S %M %e', ...command], {
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
    if (file.endsWith('.pspaths')) fs.rmSync(path.join(cache, file));
}

// The model is built and stored once, outside the timed runs.
timed([process.execPath, cli, 'stats', '--no-paths', '--cache-dir', cache, repository]);
const line = (name: string, run: Run): string =>
  `${name.padEnd(10)} cpu ${run.cpu.toFixed(2).padStart(6)} s  max RSS ${run.rssMiB.toFixed(0).padStart(5)} MiB  wall ${run.wall.toFixed(2).padStart(6)} s`;
for (let i = 0; i < runs; i++) {
  removeStoredWalks();
  const ours = timed([process.execPath, cli, 'stats', '--json', '--cache-dir', cache, repository]);
  const git = timed(['git', '-C', repository, 'rev-list', '--objects', '--all', '--missing=allow-any']);
  process.stdout.write(`${line('packscope', ours)}\n${line('git', git)}\n`);
  process.stdout.write(
    `ratio      cpu ${(ours.cpu / git.cpu).toFixed(2)}×  max RSS ${(ours.rssMiB / git.rssMiB).toFixed(2)}×  wall ${(ours.wall / git.wall).toFixed(2)}×  (target: cpu and RSS ≤ 1.00×)\n`,
  );
}
