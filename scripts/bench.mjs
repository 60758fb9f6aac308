#!/usr/bin/env node
// `npm run bench [-- ARGS]`: every benchmark in turn, one process at a time.
//
// Why a runner and not an `&&` chain in package.json: npm appends the arguments after `--` to the
// chain's *last* command, so `npm run bench -- pack.pack` handed the pack to the Pack Map bench
// and not to the pack-engine bench the README names; and `&&` stopped at the first bench that
// printed a MISS (exit 1), so the benches after it never ran. Here the pack-engine bench gets the
// arguments (packs, --scale, --scale-objects, --runs …), `--scale` also reaches the simulator
// bench (its 5-million-read sweep), every bench runs, and the exit code is non-zero if any failed
// or missed a target, with a line per bench at the end.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBrowserAndTools } from './vscode/code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const scale = args.includes('--scale');

// The Pack Map bench measures the webview in Debian's Chromium, which a new machine does not have
// until `npm test` has run once: install it here too (the same apt-get step as the tests').
await ensureBrowserAndTools();

/** [name, script, arguments] in the order they run. */
const benches = [
  ['simulator', 'bench/sim.bench.ts', scale ? ['--scale'] : []],
  ['hover', 'bench/hover.bench.ts', []],
  ['pack engine', 'bench/pack-engine.bench.ts', args],
  ['many packs', 'bench/many-packs.bench.ts', []],
  ['server load', 'bench/server-load.bench.ts', []],
  ['map flood', 'bench/pack-map-flood.bench.ts', []],
  ['pack map', 'bench/pack-map.bench.ts', []],
];

const outcomes = [];
for (const [name, script, benchArgs] of benches) {
  process.stdout.write(`\n=== ${name}: node --import tsx ${script} ${benchArgs.join(' ')}\n`);
  const started = Date.now();
  const run = spawnSync(process.execPath, ['--import', 'tsx', script, ...benchArgs], { cwd: root, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  const status = run.error
    ? `could not run (${run.error.message})`
    : run.status === 0
      ? 'ok'
      : run.signal
        ? `killed by ${run.signal}`
        : `exit ${run.status} (a target missed or the bench failed; see above)`;
  outcomes.push({ name, status, ok: !run.error && run.status === 0, seconds });
}

process.stdout.write('\n=== benches\n');
for (const { name, status, seconds } of outcomes)
  process.stdout.write(`  ${name.padEnd(12)} ${status}, ${seconds} s\n`);
process.exitCode = outcomes.every((outcome) => outcome.ok) ? 0 : 1;
