/**
 * The README's generated figures: the regions between `<!-- figures:NAME -->` and `<!-- /figures -->`
 * in README.md are the output of this script, run on a repository it builds itself from a seeded
 * history (bench/history.ts, the benchmark's generator, at a small size), with the built CLI
 * (dist/cli.js) and the installed git. Nothing in them is typed by hand, so a change of the engine
 * (a policy, the read model) shows up as a changed README.
 *
 *   node --import tsx scripts/readme-figures.ts           rewrite README.md's regions
 *   node --import tsx scripts/readme-figures.ts --check   exit 1 (with a diff) when they differ
 *
 * The figures depend on git's version only through the pack git writes (its delta choices with
 * `--threads=1` are deterministic for one version), so each region says which git made it;
 * test/cli/readme-figures.test.ts checks them when the installed git is that one. Takes about
 * ten seconds.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeHistoryStream, type BenchHistoryOptions } from '../bench/history.ts';

export const projectRoot = path.resolve(__dirname, '..');
export const readmePath = path.join(projectRoot, 'README.md');
const cliPath = path.join(projectRoot, 'dist', 'cli.js');

/** A history of about 20,000 objects: chains long enough for the cache to matter, built in seconds. */
export const FIGURES_HISTORY: BenchHistoryOptions = {
  commits: 1_500,
  seed: 20261202,
  dirs: 6,
  subdirs: 4,
  files: 80,
  linesPerFile: 60,
  editsPerCommit: 3,
  addRate: 0.1,
  renameRate: 0.03,
  deleteRate: 0.05,
  binaryRate: 0.05,
  tagEvery: 100,
};

const RECORDED = ['log', '--raw'];
const SWEEP_LIMITS = '0,16k,64k,256k,1m,96m';
// libgit2's pack cache at each limit (the what-if), comparable with git's; libgit2 as shipped caches whole objects at 256 MiB and is not.
const SWEEP_POLICIES = 'git,git-legacy,gdsf,libgit2-pack-whatif,belady';

/** git without the user's or the system's configuration, in the C locale. */
function gitEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('GIT_')) env[key] = value;
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', LC_ALL: 'C', PACKSCOPE_NO_PROGRESS: '1' };
}

function run(command: string, args: string[], options: { cwd?: string; stdinFile?: string } = {}): string {
  const stdin = options.stdinFile === undefined ? 'ignore' : fs.openSync(options.stdinFile, 'r');
  try {
    const result = spawnSync(command, args, {
      cwd: options.cwd,
      env: gitEnv(),
      stdio: [stdin, 'pipe', 'pipe'],
      encoding: 'utf8',
      maxBuffer: 1 << 30,
    });
    if (result.status !== 0)
      throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr}`);
    return result.stdout;
  } finally {
    if (typeof stdin === 'number') fs.closeSync(stdin);
  }
}

export function gitVersion(): string {
  return run('git', ['--version'])
    .trim()
    .replace(/^git version /, '');
}

/** The figures, by region name. */
export function readmeFigures(): Map<string, string> {
  if (!fs.existsSync(cliPath))
    throw new Error(`${path.relative(projectRoot, cliPath)} is missing: run node scripts/build.mjs first`);
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-readme-figures-'));
  try {
    const repo = path.join(scratch, 'generated.git');
    run('git', ['init', '--quiet', '--bare', '--initial-branch=main', repo]);
    const stream = path.join(scratch, 'history.fast-import');
    writeHistoryStream(stream, FIGURES_HISTORY);
    run('git', ['--git-dir', repo, 'fast-import', '--quiet'], { stdinFile: stream });
    // One thread: the same delta choices on every run of one git version.
    run('git', [
      '--git-dir',
      repo,
      '-c',
      'pack.threads=1',
      '-c',
      'repack.writeBitmaps=false',
      'repack',
      '-q',
      '-adf',
      '--depth=50',
      '--window=10',
    ]);
    const cache = ['--cache-dir', path.join(scratch, 'models')];
    const stats = JSON.parse(run(process.execPath, [cliPath, 'stats', '--json', ...cache, repo])) as {
      total: { objects: number };
    };
    const objects = stats.total.objects;
    const pack = fs.readdirSync(path.join(repo, 'objects', 'pack')).find((name) => name.endsWith('.pack'))!;

    const recording = path.join(scratch, 'lograw.psrec');
    const recorded = spawnSync(
      process.execPath,
      [cliPath, 'record', '--exact', '-o', recording, '-C', repo, ...cache, '--', ...RECORDED],
      { env: gitEnv(), encoding: 'utf8', stdio: ['ignore', 'ignore', 'pipe'] },
    );
    if (recorded.status !== 0) throw new Error(`packscope record failed: ${recorded.stderr}`);
    const recordLine = recorded.stderr.trim().split('\n').at(-1)!.replace(recording, 'lograw.psrec');
    const sweepArgs = ['sweep', '--limits', SWEEP_LIMITS, '--policies', SWEEP_POLICIES];
    const sweepText = run(process.execPath, [cliPath, ...sweepArgs, ...cache, recording]);
    const sweep = JSON.parse(run(process.execPath, [cliPath, ...sweepArgs, '--json', ...cache, recording])) as {
      results: { policy: string; limit: number; inflations: number }[];
    };
    const indexPack = JSON.parse(
      run(process.execPath, [cliPath, 'index-pack-sim', '--json', path.join(repo, 'objects', 'pack', pack)]),
    ) as { results: { variant: string; inflations: number }[] };

    const figures = new Map<string, string>();
    const git = gitVersion();
    figures.set(
      'sweep',
      [
        `A run on the repository \`scripts/readme-figures.ts\` generates (${objects.toLocaleString('en-US')} objects from a seeded`,
        `history, one pack, git ${git}): \`git ${RECORDED.join(' ')}\`, recorded once:`,
        '',
        '```',
        `$ packscope record -o lograw.psrec -C generated.git -- ${RECORDED.join(' ')} >/dev/null`,
        recordLine,
        `$ packscope ${sweepArgs.join(' ')} lograw.psrec`,
        sweepText.trimEnd(),
        '```',
        '',
        beladySentence(sweep.results),
      ].join('\n'),
    );
    const byVariant = new Map(indexPack.results.map((r) => [r.variant, r.inflations]));
    const old = byVariant.get('v2.36')!;
    const now = byVariant.get('v2.55')!;
    const refined = byVariant.get('release-when-done')!;
    figures.set(
      'index-pack-sim',
      [
        `On the generated pack of the sweep above, at 96m, \`packscope index-pack-sim\` gives`,
        `${old.toLocaleString('en-US')} / ${now.toLocaleString('en-US')} / ${refined.toLocaleString('en-US')} inflations for \`v2.36\` / \`v2.55\` / \`release-when-done\``,
        `(the 2.55 patch saves ${Math.round((100 * (old - now)) / old)}%).`,
      ].join('\n'),
    );
    return figures;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/** Where a policy does better than `belady` (a reference, not an optimum when sizes differ), in words; else that none does. */
function beladySentence(results: { policy: string; limit: number; inflations: number }[]): string {
  const belady = new Map(results.filter((r) => r.policy === 'belady').map((r) => [r.limit, r.inflations]));
  const beats = results.filter(
    (r) => r.policy !== 'belady' && belady.has(r.limit) && r.inflations < belady.get(r.limit)!,
  );
  if (beats.length === 0) return 'No policy needs fewer inflations than `belady` at any limit of this run.';
  const words = beats.map(
    (r) =>
      `\`${r.policy}\` at ${formatLimit(r.limit)} (${r.inflations.toLocaleString('en-US')} against ${belady.get(r.limit)!.toLocaleString('en-US')})`,
  );
  return `Here ${words.join(', ')} ${beats.length === 1 ? 'needs' : 'need'} fewer inflations than \`belady\`: it is a reference, not a proven optimum when sizes differ.`;
}

function formatLimit(bytes: number): string {
  for (const [suffix, size] of [
    ['g', 1 << 30],
    ['m', 1 << 20],
    ['k', 1 << 10],
  ] as const)
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${suffix}`;
  return String(bytes);
}

const REGION = /(<!-- figures:([a-z0-9-]+) -->\n)([\s\S]*?)(\n<!-- \/figures -->)/g;

/** `text` with each marked region's body replaced by its figure; throws on a region the script does not make, or a figure without a region. */
export function withFigures(text: string, figures: Map<string, string>): string {
  const seen = new Set<string>();
  const result = text.replace(REGION, (_whole, open: string, name: string, _body: string, close: string) => {
    const figure = figures.get(name);
    if (figure === undefined)
      throw new Error(`README.md has a region "${name}" that scripts/readme-figures.ts does not make`);
    seen.add(name);
    return `${open}${figure}${close}`;
  });
  for (const name of figures.keys())
    if (!seen.has(name)) throw new Error(`README.md has no region <!-- figures:${name} -->`);
  return result;
}

/** The marked regions' bodies, by name. */
export function readmeRegions(text: string): Map<string, string> {
  return new Map([...text.matchAll(REGION)].map((m) => [m[2]!, m[3]!]));
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === __filename) {
  const check = process.argv.includes('--check');
  const text = fs.readFileSync(readmePath, 'utf8');
  const next = withFigures(text, readmeFigures());
  if (check) {
    if (next !== text) {
      const now = readmeRegions(text);
      for (const [name, body] of readmeRegions(next))
        if (now.get(name) !== body)
          process.stderr.write(`README.md's figures:${name} is stale; it should read:\n${body}\n\n`);
      process.stderr.write('Run: node --import tsx scripts/readme-figures.ts\n');
      process.exit(1);
    }
    process.stdout.write('README.md figures are current.\n');
  } else if (next !== text) {
    fs.writeFileSync(readmePath, next);
    process.stdout.write('README.md figures rewritten.\n');
  } else {
    process.stdout.write('README.md figures are current.\n');
  }
}
