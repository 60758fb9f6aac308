/**
 * Reopening a persisted model in the LSP server, as the workbench does after a restart (slow there, quick
 * in the CLI: bench/README.md, "Figures the comments rely on"). Per run: a fresh server (bundled
 * from src/server into .bench/model-reopen/dist, pinned for the run), one packscope/packSummary of
 * the pack, timed from the request to the answer; the server's own breakdown of the load (its log
 * line "model of … (persisted) in N ms: …") is printed beside it. In the same run, for scale: the
 * CLI's reopen of the same model (`packscope stats --no-paths`, a whole process) and real git
 * reading the same idx (`git show-index`, every object's entry).
 *
 * The model cache is a directory of its own (outside the repository; nothing is written into it):
 * the first server builds and persists the model there when it is not yet.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { PackSummaryRequest, type ServerSettings } from '../src/protocol/server-protocol.ts';
import { bundleServer, liveChildren, Server } from './lsp-server.ts';
import { benchDir, benchModelCacheRoot, gitEnv, projectRoot } from './generate.ts';

const help = `usage: node --import tsx bench/model-reopen.bench.ts [options] <repository>

The server's reopen of a persisted model of the repository's largest pack, timed per run, with
the server's breakdown of the load; beside it the CLI's reopen and git show-index of the same idx.

options:
  --runs N        server restarts timed (default 3)
  -h, --help      this text`;

const { values, positionals } = parseArgs({
  options: { runs: { type: 'string', default: '3' }, help: { type: 'boolean', short: 'h' } },
  allowPositionals: true,
});
if (values.help || positionals.length !== 1) {
  process.stderr.write(`${help}\n`);
  process.exit(values.help ? 0 : 2);
}
const repository = path.resolve(positionals[0]!);
const runs = Number(values.runs);

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function largestPack(repo: string): string {
  const gitDir = fs.existsSync(path.join(repo, '.git')) ? path.join(repo, '.git') : repo;
  const dir = path.join(gitDir, 'objects', 'pack');
  const packs = fs
    .readdirSync(dir)
    .filter((name) => name.endsWith('.pack'))
    .map((name) => path.join(dir, name));
  if (packs.length === 0) throw new Error(`${repo} has no pack`);
  return packs.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

function timed(command: string, args: string[], input?: Buffer): number {
  const started = performance.now();
  const result = spawnSync(command, args, {
    env: gitEnv(),
    input,
    maxBuffer: 1 << 30,
    stdio: [input ? 'pipe' : 'ignore', 'ignore', 'pipe'],
  });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed: ${result.stderr}`);
  return ms;
}

async function main(): Promise<void> {
  const pack = largestPack(repository);
  const cacheDir = path.join(benchModelCacheRoot, 'model-reopen', path.basename(pack, '.pack'));
  fs.mkdirSync(cacheDir, { recursive: true });
  const script = bundleServer(path.join(benchDir, 'model-reopen', 'dist'));
  const settings: Partial<ServerSettings> = {
    repositories: [repository],
    modelCacheDirectory: cacheDir,
    persistModels: true,
    hoverIndexLimit: 0,
  };

  const prepare = await Server.start(script, settings);
  const first = await prepare.connection.sendRequest(PackSummaryRequest, { pack });
  await prepare.stop();
  log(
    `${path.basename(pack)}: ${first.objects.toLocaleString('en-US')} objects; model ${first.source === 'built' ? 'built and persisted' : 'already persisted'} in ${cacheDir}`,
  );

  const serverMs: number[] = [];
  for (let run = 1; run <= runs; run++) {
    const server = await Server.start(script, settings);
    const started = performance.now();
    const summary = await server.connection.sendRequest(PackSummaryRequest, { pack });
    const ms = performance.now() - started;
    const breakdown = server.log.find((line) => line.startsWith('model of ')) ?? '(no breakdown logged)';
    await server.stop();
    if (summary.source !== 'persisted')
      throw new Error(`run ${run}: expected the persisted model, got ${summary.source}`);
    serverMs.push(ms);
    log(`  server run ${run}: ${Math.round(ms)} ms to the summary; ${breakdown}`);
  }

  const cli = path.join(projectRoot, 'bin', 'packscope.js');
  const cliMs: number[] = [];
  for (let run = 1; run <= runs; run++)
    cliMs.push(timed(process.execPath, [cli, 'stats', '--no-paths', '--cache-dir', cacheDir, pack]));
  const idx = fs.readFileSync(pack.replace(/\.pack$/, '.idx'));
  const gitMs: number[] = [];
  for (let run = 1; run <= runs; run++) gitMs.push(timed('git', ['show-index'], idx));

  const server = median(serverMs);
  const cliMedian = median(cliMs);
  const git = median(gitMs);
  log('');
  log(`median of ${runs}:`);
  log(`  server reopen (packSummary)      ${Math.round(server)} ms`);
  log(
    `  CLI reopen (stats --no-paths)    ${Math.round(cliMedian)} ms   server/CLI ${(server / cliMedian).toFixed(2)}x`,
  );
  log(`  git show-index of the same idx   ${Math.round(git)} ms   server/git ${(server / git).toFixed(2)}x`);
}

main().catch((error: unknown) => {
  for (const child of liveChildren) child.kill('SIGKILL');
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(2);
});
