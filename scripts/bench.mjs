#!/usr/bin/env node
// `npm run bench [-- ARGS]`: every benchmark in turn, one process at a time, then one table of
// the speed targets (bench/summary.ts) from the figures the benches recorded as they measured
// them (bench/results.ts), each with the machine's load average while its bench ran.
//
// Why a runner and not an `&&` chain in package.json: npm appends the arguments after `--` to the
// chain's *last* command, so `npm run bench -- pack.pack` handed the pack to the Pack Map bench
// and not to the pack-engine bench the README names; and `&&` stopped at the first bench that
// printed a MISS (exit 1), so the benches after it never ran. Here the pack-engine bench gets the
// arguments (packs, --scale, --scale-objects, --runs …), the simulator bench always runs its
// 5-million-read sweep (a speed target; it was --scale only), every bench runs, and the exit code
// is non-zero if any failed or missed a target, with a line per bench at the end.
//
// --quick (the runner's own option): the benches of the targets' table only, on a small generated
// history (PACKSCOPE_BENCH_COMMITS), one run each, without waiting for a quiet machine: minutes, not
// an hour, to see that every bench still records its figures. Its figures are not the ones to cite.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBrowserAndTools } from './vscode/code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const quick = process.argv.includes('--quick');
const args = process.argv.slice(2).filter((arg) => arg !== '--quick');
/** How often the load average is sampled while a bench runs. */
const LOAD_SAMPLE_MS = 5000;
/** The small history of --quick: about 23,000 objects. */
const QUICK_COMMITS = '2000';

const quickArgs = (more) => (quick ? more : []);
/** git.git's pack, the reference large pack of bench/README.md. */
const GIT_GIT_PACK = '/work/.mirror/git+git/repo/objects/pack/pack-5b31da4c48e5198d31c1572301d7159b36759c36.pack';
/** [name, script, arguments, in --quick] in the order they run. */
const benches = [
  // The 5-million-read sweep is one of the speed targets, so it runs by default (a minute on 2 cores).
  ['simulator', 'bench/sim.bench.ts', quick ? [] : ['--scale'], true],
  ['hover', 'bench/hover.bench.ts', quickArgs(['--words', '300', '--warmup', '50', '--max-wait', '0']), true],
  [
    'pack engine',
    'bench/pack-engine.bench.ts',
    [
      ...args,
      // The 213-pack monorepo is one of the speed targets: its generation takes about half a minute
      // since its generator became linear, so it is measured by default (--scale measures it too).
      ...(quick || args.includes('--scale') || args.includes('--monorepo') ? [] : ['--monorepo']),
      ...quickArgs(['--runs', '1', '--max-wait', '0', '--no-profile']),
    ],
    true,
  ],
  // The CLI reopen's target is set on git.git's pack (a large real one): figure 5 alone on it (seconds; the pack-engine
  // bench's other figures take minutes there), when its copy is where `fetch github:git/git` leaves it.
  ...(fs.existsSync(GIT_GIT_PACK)
    ? [
        [
          'reopen on git.git',
          'bench/pack-engine.bench.ts',
          ['--no-generated', '--reopen-only', ...quickArgs(['--runs', '1', '--max-wait', '0']), GIT_GIT_PACK],
          true,
        ],
      ]
    : []),
  ['many packs', 'bench/many-packs.bench.ts', quickArgs(['--packs', '200', '--max-wait', '0']), true],
  ['path walk', 'bench/path-walk.bench.ts', [], true],
  ['server load', 'bench/server-load.bench.ts', [], false],
  ['map flood', 'bench/pack-map-flood.bench.ts', [], false],
  ['pack map', 'bench/pack-map.bench.ts', [], false],
].filter(([, , , inQuick]) => !quick || inQuick);

// The Pack Map bench measures the webview in Debian's Chromium, which a new machine does not have
// until `npm test` has run once: install it here too (the same apt-get step as the tests').
if (!quick) await ensureBrowserAndTools();

const runDir = path.join(root, '.bench', 'runs', new Date().toISOString().replace(/[:.]/g, '-'));
fs.mkdirSync(runDir, { recursive: true });
const resultsFile = path.join(runDir, 'figures.jsonl');
const loadsFile = path.join(runDir, 'loads.json');
const env = {
  ...process.env,
  PACKSCOPE_BENCH_RESULTS: resultsFile,
  ...(quick ? { PACKSCOPE_BENCH_COMMITS: QUICK_COMMITS } : {}),
};

/** Runs one bench, its output passed through, sampling the 1-minute load average while it runs. */
function runBench(script, benchArgs) {
  return new Promise((resolve) => {
    const samples = [os.loadavg()[0]];
    const timer = setInterval(() => samples.push(os.loadavg()[0]), LOAD_SAMPLE_MS);
    const child = spawn(process.execPath, ['--import', 'tsx', script, ...benchArgs], {
      cwd: root,
      env,
      stdio: 'inherit',
    });
    const finish = (outcome) => {
      clearInterval(timer);
      samples.push(os.loadavg()[0]);
      resolve({ ...outcome, samples });
    };
    child.on('error', (error) => finish({ error }));
    child.on('exit', (status, signal) => finish({ status, signal }));
  });
}

const outcomes = [];
for (const [name, script, benchArgs] of benches) {
  process.stdout.write(`\n=== ${name}: node --import tsx ${script} ${benchArgs.join(' ')}\n`);
  const started = Date.now();
  const run = await runBench(script, benchArgs);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const status = run.error
    ? `could not run (${run.error.message})`
    : run.status === 0
      ? 'ok'
      : run.signal
        ? `killed by ${run.signal}`
        : `exit ${run.status} (a target missed or the bench failed; see above)`;
  outcomes.push({
    name,
    bench: path.basename(script, '.bench.ts'),
    status,
    ok: !run.error && run.status === 0,
    seconds: Number(seconds),
    samples: run.samples,
  });
  fs.writeFileSync(loadsFile, JSON.stringify(outcomes, null, 1));
}

process.stdout.write('\n=== benches\n');
for (const { name, status, seconds } of outcomes)
  process.stdout.write(`  ${name.padEnd(12)} ${status}, ${seconds} s\n`);
process.stdout.write(
  `\n=== speed targets${quick ? ' (--quick: a small history, one run each: not figures to cite)' : ''}\n`,
);
const summary = await new Promise((resolve) => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/summary.ts', resultsFile, loadsFile], {
    cwd: root,
    stdio: 'inherit',
  });
  child.on('exit', (status) => resolve(status));
  child.on('error', () => resolve(1));
});
process.stdout.write(`\nfigures: ${path.relative(root, resultsFile)}\n`);
process.exitCode = outcomes.every((outcome) => outcome.ok) && summary === 0 ? 0 : 1;
