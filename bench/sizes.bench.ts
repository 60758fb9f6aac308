/**
 * `packscope sizes --filter-repo-report DIR` against `git filter-repo --analyze` on the same
 * repository in the same run: the six size reports compared byte for byte, and the time each tool
 * takes. Each run is a whole process tree under /usr/bin/time: user + system CPU seconds of the
 * process and every child it waited for (filter-repo's git rev-list | git diff-tree pipeline and
 * its cat-file, PackScope's git rev-list and diff-tree), and wall time. PackScope runs twice: cold
 * (a fresh PACKSCOPE_CACHE_DIR, so the pack model is built) and warm (the same directory again, so
 * the stored model is reopened).
 *
 * filter-repo writes its analysis into the repository it runs in (.git/filter-repo/analysis), and
 * the repository given here must not be written to. So filter-repo runs in a throwaway non-bare
 * repository in a temporary directory, whose refs are the given repository's refs and whose
 * objects are the given repository's objects, borrowed through objects/info/alternates. A clone
 * that copied the objects (`git clone --no-local`) would repack them: its deltas, and so the
 * "packed size" column, could differ from the packs PackScope reads, for reasons neither tool is
 * responsible for. With alternates, `cat-file --batch-all-objects` in the throwaway repository
 * reports the given repository's own packs.
 *
 *   node --import tsx bench/sizes.bench.ts [--runs N] [--keep] <repository>
 *
 * Both tools get the history from the same git pipeline, `git rev-list --topo-order --reverse --all
 * | git diff-tree --stdin … -M -t -c --raw --combined-all-paths`, and its rename detection is most
 * of either's time. The bench times that pipeline alone too (output to /dev/null): the floor
 * neither tool can go below while git diffs the history. --profile adds a `--cpu-prof` summary of
 * PackScope's cold run (self time per function, the idle share being the wait for git).
 *
 * The machine is shared: wall times are rough; compare CPU, and run twice.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { profileNode } from './cpu-profile.ts';
import { projectRoot } from './generate.ts';
import { otherCores, snapshot } from './quiet.ts';

const help = `usage: node --import tsx bench/sizes.bench.ts [--runs N] [--keep] [--profile] <repository>

packscope sizes --filter-repo-report (cold: fresh cache; warm: the stored model) against git
filter-repo --analyze (in a throwaway repository borrowing the objects) on the same repository: the
six size reports compared byte for byte (lines compared, the first line that differs), CPU (user +
sys of the process tree), wall, and the ratios PackScope / filter-repo; also the git rev-list |
diff-tree pipeline both run, alone. --keep leaves the temporary directory (the reports) in place;
--profile adds a --cpu-prof summary of PackScope's cold run. The machine is shared: wall times are
rough.`;

const { values, positionals } = parseArgs({
  options: {
    runs: { type: 'string', default: '1' },
    keep: { type: 'boolean' },
    profile: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
  allowPositionals: true,
});
if (values.help || positionals.length !== 1) {
  process.stderr.write(`${help}\n`);
  process.exit(values.help ? 0 : 2);
}
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs needs a positive integer');

/** The six reports both tools write; filter-repo also writes README, renames.txt and blob-shas-and-paths.txt, which PackScope does not. */
const REPORT_FILES = [
  'path-all-sizes.txt',
  'path-deleted-sizes.txt',
  'directories-all-sizes.txt',
  'directories-deleted-sizes.txt',
  'extensions-all-sizes.txt',
  'extensions-deleted-sizes.txt',
];
const cli = path.join(projectRoot, 'bin', 'packscope.js');

function git(args: string[], input?: string): string {
  const result = spawnSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 30, input });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
}

const repository = path.resolve(positionals[0]!);
const gitDir = path.resolve(repository, git(['-C', repository, 'rev-parse', '--git-dir']).trim());
const work = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-sizes-bench-'));

/** The throwaway repository for filter-repo: the same refs and HEAD, the objects through alternates. */
function throwawayRepository(): string {
  const dir = path.join(work, 'filter-repo-clone');
  git(['init', '-q', dir]);
  fs.writeFileSync(path.join(dir, '.git', 'objects', 'info', 'alternates'), `${path.join(gitDir, 'objects')}\n`);
  const refs = git(['-C', repository, 'for-each-ref', '--format=create %(refname) %(objectname)']);
  git(['-C', dir, 'update-ref', '--stdin'], refs);
  const head = spawnSync('git', ['-C', repository, 'symbolic-ref', '-q', 'HEAD'], { encoding: 'utf8' });
  if (head.status === 0) git(['-C', dir, 'symbolic-ref', 'HEAD', head.stdout.trim()]);
  else git(['-C', dir, 'update-ref', '--no-deref', 'HEAD', git(['-C', repository, 'rev-parse', 'HEAD']).trim()]);
  return dir;
}

interface Run {
  cpu: number;
  wall: number;
  /** Cores' worth of CPU other processes used meanwhile. */
  others: number;
}

/** The history both tools read, as both ask git for it (filter-repo's RepoAnalyze.gather_data, src/core/git/path-history.ts). */
const PIPELINE =
  `git --git-dir="$1" rev-list --topo-order --reverse --all | git --git-dir="$1" diff-tree --stdin --always --root ` +
  `--format=%H%n%P%n%cd --date=short -M -t -c --raw --combined-all-paths`;

function timed(command: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Run {
  const from = snapshot();
  const result = spawnSync('/usr/bin/time', ['-f', '%U %S %e', ...command], {
    ...options,
    stdio: ['ignore', 'ignore', 'pipe'],
    maxBuffer: 64 << 20,
  });
  const others = otherCores(from, snapshot());
  const stderr = result.stderr.toString('utf8').trim().split('\n');
  if (result.status !== 0) throw new Error(`${command.join(' ')} failed: ${stderr.slice(-5).join('\n')}`);
  const [user, system, wall] = stderr.at(-1)!.split(' ').map(Number);
  return { cpu: user! + system!, wall: wall!, others };
}

interface Comparison {
  lines: number;
  equal: boolean;
  firstDifference?: string;
}

/** One report of each tool, line by line; the first line that differs is the one to explain. */
function compare(name: string, expectedDir: string, actualDir: string): Comparison {
  const expected = fs.readFileSync(path.join(expectedDir, name));
  const actual = fs.readFileSync(path.join(actualDir, name));
  const expectedLines = expected.toString('latin1').split('\n');
  const actualLines = actual.toString('latin1').split('\n');
  const lines = expectedLines.length - (expectedLines.at(-1) === '' ? 1 : 0);
  if (expected.equals(actual)) return { lines, equal: true };
  for (let i = 0; i < Math.max(expectedLines.length, actualLines.length); i++)
    if (expectedLines[i] !== actualLines[i])
      return {
        lines,
        equal: false,
        firstDifference: `line ${i + 1}:\n    filter-repo: ${JSON.stringify(expectedLines[i] ?? '<end>')}\n    packscope:   ${JSON.stringify(actualLines[i] ?? '<end>')}`,
      };
  return { lines, equal: false, firstDifference: 'same lines, different bytes' };
}

const objects = git(['-C', repository, 'count-objects', '-v'])
  .split('\n')
  .reduce((sum, line) => (/^(count|in-pack): /.test(line) ? sum + Number(line.split(' ')[1]) : sum), 0);
const commits = git(['-C', repository, 'rev-list', '--all', '--count']).trim();
process.stdout.write(
  `${repository}: ${objects.toLocaleString('en-US')} objects, ${Number(commits).toLocaleString('en-US')} commits\n` +
    `(a shared machine: wall times are rough; "others" is the CPU other processes took meanwhile, in cores)\n`,
);

const line = (name: string, run: Run): string =>
  `${name.padEnd(22)} cpu ${run.cpu.toFixed(2).padStart(7)} s  wall ${run.wall.toFixed(2).padStart(7)} s  others ${run.others.toFixed(2)}\n`;
const ratio = (name: string, ours: Run, theirs: Run): string =>
  `${name.padEnd(22)} cpu ${(ours.cpu / theirs.cpu).toFixed(2)}×  wall ${(ours.wall / theirs.wall).toFixed(2)}×\n`;

let allEqual = true;
try {
  const clone = throwawayRepository();
  const analysis = path.join(clone, '.git', 'filter-repo', 'analysis');
  for (let i = 0; i < runs; i++) {
    fs.rmSync(path.join(clone, '.git', 'filter-repo'), { recursive: true, force: true });
    const filterRepo = timed(['git', 'filter-repo', '--analyze'], { cwd: clone });
    const cache = path.join(work, `cache-${i}`);
    const env = { ...process.env, PACKSCOPE_CACHE_DIR: cache };
    const sizes = (which: string): Run =>
      timed([process.execPath, cli, 'sizes', '--filter-repo-report', path.join(work, `${which}-${i}`), repository], {
        env,
      });
    const cold = sizes('cold');
    const warm = sizes('warm');
    const pipeline = timed(['sh', '-c', PIPELINE, 'sh', gitDir]);
    process.stdout.write(
      line('git filter-repo', filterRepo) +
        line('packscope cold', cold) +
        line('packscope warm', warm) +
        line('git diff-tree pipeline', pipeline) +
        ratio('ratio cold', cold, filterRepo) +
        ratio('ratio warm', warm, filterRepo),
    );
    for (const which of ['cold', 'warm']) {
      let lines = 0;
      const different: string[] = [];
      for (const name of REPORT_FILES) {
        const comparison = compare(name, analysis, path.join(work, `${which}-${i}`));
        lines += comparison.lines;
        if (!comparison.equal) different.push(`  ${name} differs at ${comparison.firstDifference}`);
      }
      allEqual &&= different.length === 0;
      process.stdout.write(
        `${which}: ${lines.toLocaleString('en-US')} lines in ${REPORT_FILES.length} files, ` +
          `${different.length === 0 ? 'all equal' : `${different.length} different`}\n` +
          different.map((text) => `${text}\n`).join(''),
      );
    }
  }
  if (values.profile) {
    const cache = path.join(work, 'cache-profile');
    process.env.PACKSCOPE_CACHE_DIR = cache;
    const out = path.join(work, 'profile-report');
    for (const thread of profileNode([cli, 'sizes', '--filter-repo-report', out, repository], projectRoot)) {
      process.stdout.write(`profile of packscope cold, ${thread.totalMs.toFixed(0)} ms on this thread:\n`);
      for (const f of thread.top)
        process.stdout.write(
          `  ${f.selfMs.toFixed(0).padStart(7)} ms ${f.percent.toFixed(1).padStart(5)}%  ${f.name} ${f.where}\n`,
        );
    }
  }
} finally {
  if (values.keep) process.stdout.write(`reports kept in ${work}\n`);
  else fs.rmSync(work, { recursive: true, force: true });
}
process.exitCode = allEqual ? 0 : 1;
