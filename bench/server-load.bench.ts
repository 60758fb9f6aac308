/**
 * The server under load: many concurrent sweeps, object documents of a
 * delta bomb and of ordinary objects, and a burst of cancelled object documents, all at once, while
 * an editor hovers. Reports the server's RSS (VmRSS of its process, worker threads included) idle
 * before the load, at its peak, and after the load once the server has been idle for its release
 * period; its threads at the peak; and the hovers' worst latency during the load.
 *
 * Target: RSS after the load below 2x the idle RSS. Exit status 1 when it is not, 2 on an error.
 *
 * The server is bundled from src/server by this bench into .bench/server-load/dist (as `npm run
 * build` bundles it, and as bench/hover.bench.ts does), pinned for the run. The repositories are
 * built once and cached in .bench/: the generated history (bench/generate.ts, a smaller one than
 * the other benches' by default), a recording of `git log -p --all` on it, and a delta bomb (a 4 MiB blob
 * and 200 chained deltas, made by git fast-import). Nothing is written into them.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import {
  CancellationTokenSource,
  DidOpenTextDocumentNotification,
  HoverRequest,
} from 'vscode-languageserver-protocol/node';
import {
  AllowReadRequest,
  ObjectContentRequest,
  ObjectRequest,
  SweepRequest,
} from '../src/protocol/server-protocol.ts';
import { SERVER_PROCESS_ENVIRONMENT } from '../src/protocol/server-process.ts';
import { IDLE_RELEASE_MS } from '../src/server/work-queue.ts';
import { bundleServer, liveChildren, Server } from './lsp-server.ts';
import {
  benchDir,
  benchModelCacheRoot,
  DEFAULT_HISTORY,
  generatedPack,
  generatedRecording,
  gitEnv,
  gitVersion,
  projectRoot,
} from './generate.ts';

const TARGET_RATIO = 2;
const BOMB_BLOB_BYTES = 4 << 20;
const BOMB_VERSIONS = 201;
const SWEEP_POLICIES = ['git', 'keep-on-hit'];
const SWEEP_LIMITS = [0, 1 << 20, 16 << 20, 96 << 20];

const help = `usage: node --import tsx bench/server-load.bench.ts [options]

The LSP server (src/server, bundled into .bench/server-load/dist) under load: concurrent sweeps,
object documents of a delta bomb and of ordinary objects, cancelled object documents, hovers.
Reports the server's RSS idle, at the peak and after the load (once idle for ${IDLE_RELEASE_MS / 1000} s and more).

options:
  --commits N     commits of the generated repository (default 3000)
  --sweeps N      concurrent sweeps (default 120)
  --objects N     concurrent object documents (default 200)
  --cancelled N   object documents sent and cancelled at once (default 500)
  --settle S      after the load, wait up to S seconds for RSS to fall (default 60)
  -h, --help      this text

Target: RSS after the load < ${TARGET_RATIO}x the idle RSS (exit 1 otherwise).`;

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

function mib(bytes: number): string {
  return `${(bytes / (1 << 20)).toFixed(0)} MiB`;
}

const buildDir = path.join(benchDir, 'server-load', 'dist');

/** VmRSS and Threads of the server's process (Linux /proc). */
function usageOf(server: Server): { rss: number; threads: number } {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return {
    rss: Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) * 1024,
    threads: Number(/^Threads:\s+(\d+)/m.exec(status)![1]),
  };
}

function git(args: string[], options: { cwd?: string } = {}): string {
  const result = spawnSync('git', args, { cwd: options.cwd, env: gitEnv(), encoding: 'utf8', maxBuffer: 1 << 30 });
  if (result.status !== 0) throw new Error(`git ${args.join(' ')} failed: ${result.stderr}`);
  return result.stdout;
}

/** One blob and 200 versions each 4 bytes apart, chained by fast-import: built once, cached. */
async function deltaBomb(): Promise<string> {
  const dir = path.join(benchDir, `server-load-bomb-${BOMB_BLOB_BYTES}x${BOMB_VERSIONS}.git`);
  if (fs.existsSync(path.join(dir, 'bench-done'))) return dir;
  log(`building the delta bomb in ${path.relative(projectRoot, dir)} (once)…`);
  fs.rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', dir]);
  const child = spawn('git', ['--git-dir', dir, 'fast-import', '--quiet', '--depth=250'], {
    env: gitEnv(),
    stdio: ['pipe', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const write = (chunk: Buffer | string): Promise<void> =>
    new Promise((resolve, reject) => child.stdin.write(chunk, (error) => (error ? reject(error) : resolve())));
  const content = randomBytes(BOMB_BLOB_BYTES);
  for (let version = 0; version < BOMB_VERSIONS; version++) {
    if (version > 0) content.writeUInt32LE(version, (version * 4099) % (BOMB_BLOB_BYTES - 4));
    await write(`blob\nmark :${version + 1}\ndata ${BOMB_BLOB_BYTES}\n`);
    await write(content);
    await write(
      `\ncommit refs/heads/main\ncommitter C O Mitter <committer@example.com> ${1_700_000_000 + version} +0000\ndata 2\nv\nM 100644 :${version + 1} bomb.bin\n\n`,
    );
  }
  child.stdin.end();
  if ((await exited) !== 0) throw new Error('git fast-import of the delta bomb failed');
  fs.writeFileSync(path.join(dir, 'bench-done'), '');
  return dir;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      commits: { type: 'string', default: '3000' },
      sweeps: { type: 'string', default: '120' },
      objects: { type: 'string', default: '200' },
      cancelled: { type: 'string', default: '500' },
      settle: { type: 'string', default: '60' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${help}\n`);
    return;
  }
  const counts = {
    sweeps: Number(values.sweeps),
    objects: Number(values.objects),
    cancelled: Number(values.cancelled),
  };
  const generated = generatedPack({ ...DEFAULT_HISTORY, commits: Number(values.commits) }, log);
  const generatedGitDir = path.dirname(path.dirname(path.dirname(generated.pack)));
  const recording = generatedRecording(generated.key, generatedGitDir, log);
  const bomb = await deltaBomb();
  const deepest = git(['--git-dir', bomb, 'rev-parse', 'main:bomb.bin']).trim();
  const withinBudget = git(['--git-dir', bomb, 'rev-parse', 'main~140:bomb.bin']).trim();
  const ordinary = git(['--git-dir', generatedGitDir, 'rev-list', '--objects', '-n', '50', '--all'])
    .split('\n')
    .filter(Boolean)
    .map((line) => line.slice(0, 40));

  log(
    `server load bench: ${gitVersion()}, node ${process.version}; ${counts.sweeps} sweeps, ${counts.objects} object documents, ${counts.cancelled} cancelled`,
  );
  log(`bundling the server into ${path.relative(projectRoot, buildDir)}…`);
  const script = bundleServer(buildDir);
  const modelDir = path.join(benchModelCacheRoot, 'server-load');
  // The environment the extension starts it with (server-process.ts).
  const server = await Server.start(
    script,
    { repositories: [generatedGitDir, bomb], modelCacheDirectory: modelDir, hoverIndexLimit: 5_000_000 },
    [],
    { ...gitEnv(), ...SERVER_PROCESS_ENVIRONMENT },
  );
  try {
    // Idle: every pack's model loaded (as after the Packs view opened), a document open for hovers.
    await server.connection.sendRequest(ObjectRequest, { oid: deepest });
    await server.connection.sendRequest(ObjectRequest, { oid: ordinary[0]! });
    const uri = pathToFileURL(path.join(benchDir, 'server-load', 'notes.txt')).href;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `${ordinary[0]} ${withinBudget}\n` },
    });
    await server.connection.sendRequest(HoverRequest.type, {
      textDocument: { uri },
      position: { line: 0, character: 3 },
    });
    await sleep(2000);
    const idle = usageOf(server);
    log(`idle: RSS ${mib(idle.rss)}, ${idle.threads} threads`);

    let peak = idle;
    let loading = true;
    const sampler = (async () => {
      while (loading) {
        const now = usageOf(server);
        peak = { rss: Math.max(peak.rss, now.rss), threads: Math.max(peak.threads, now.threads) };
        await sleep(20);
      }
    })();
    // The recording lies in .bench/, outside the server's places: the bench picks it, as a user would (read-rules.ts).
    await server.connection.sendRequest(AllowReadRequest, { file: recording });
    const started = performance.now();
    const sweeps = Array.from({ length: counts.sweeps }, () =>
      server.connection.sendRequest(SweepRequest, { file: recording, policies: SWEEP_POLICIES, limits: SWEEP_LIMITS }),
    );
    const objects = Array.from({ length: counts.objects }, (_, i) => {
      const oid = [withinBudget, deepest, ordinary[i % ordinary.length]!][i % 3]!;
      return server.connection.sendRequest(ObjectContentRequest, {
        oid,
        maxContentBytes: 1 << 20,
        maxInstructions: 2000,
      });
    });
    const sources = Array.from({ length: counts.cancelled }, () => new CancellationTokenSource());
    const cancelled = sources.map((source) =>
      server.connection.sendRequest(
        ObjectContentRequest,
        { oid: withinBudget, maxContentBytes: 1 << 20, maxInstructions: 2000 },
        source.token,
      ),
    );
    for (const source of sources) source.cancel();
    const all = Promise.allSettled([...sweeps, ...objects, ...cancelled]);
    let finished = false;
    void all.then(() => (finished = true));
    let worstHoverMs = 0;
    let hovers = 0;
    while (!finished) {
      const sent = performance.now();
      await server.connection.sendRequest(HoverRequest.type, {
        textDocument: { uri },
        position: { line: 0, character: 3 },
      });
      worstHoverMs = Math.max(worstHoverMs, performance.now() - sent);
      hovers++;
      await sleep(50);
    }
    const outcomes = await all;
    const loadSeconds = (performance.now() - started) / 1000;
    loading = false;
    await sampler;
    const failedSweeps = outcomes.slice(0, counts.sweeps).filter((o) => o.status === 'rejected').length;
    const refusedObjects = outcomes
      .slice(counts.sweeps, counts.sweeps + counts.objects)
      .filter((o) => o.status === 'rejected').length;
    const cancelledAnswers = outcomes
      .slice(counts.sweeps + counts.objects)
      .filter((o) => o.status === 'rejected').length;
    log(
      `load: ${loadSeconds.toFixed(1)} s; ${counts.sweeps - failedSweeps} of ${counts.sweeps} sweeps answered; ${refusedObjects} of ${counts.objects} object documents refused (the bomb past its budget); ${cancelledAnswers} of ${counts.cancelled} cancelled`,
    );
    const reasons = new Map<string, number>();
    for (const outcome of outcomes.slice(0, counts.sweeps + counts.objects)) {
      if (outcome.status !== 'rejected') continue;
      const reason =
        outcome.reason instanceof Error
          ? outcome.reason.message.replace(/[0-9a-f]{40,64}/g, '<oid>')
          : String(outcome.reason);
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    for (const [reason, times] of reasons) log(`  ${times}x ${reason}`);
    log(`hovers during the load: ${hovers}, worst ${worstHoverMs.toFixed(0)} ms`);
    log(`peak: RSS ${mib(peak.rss)}, ${peak.threads} threads`);

    // After: the server idle for its release period, then RSS sampled until it is under the target or the wait ends.
    const settleUntil = performance.now() + Number(values.settle) * 1000;
    await sleep(IDLE_RELEASE_MS + 1000);
    let after = usageOf(server);
    while (after.rss >= TARGET_RATIO * idle.rss && performance.now() < settleUntil) {
      await sleep(1000);
      after = usageOf(server);
    }
    log(`after: RSS ${mib(after.rss)}, ${after.threads} threads`);
    for (const line of server.log.filter((l) => l.startsWith('idle:'))) log(`  server: ${line}`);
    const ratio = after.rss / idle.rss;
    const ok = ratio < TARGET_RATIO;
    process.stdout.write(
      `${JSON.stringify({ idleRss: idle.rss, peakRss: peak.rss, afterRss: after.rss, ratio: Number(ratio.toFixed(2)), target: TARGET_RATIO, idleThreads: idle.threads, peakThreads: peak.threads, afterThreads: after.threads, worstHoverMs: Math.round(worstHoverMs), loadSeconds: Number(loadSeconds.toFixed(1)) })}\n`,
    );
    log(`${ok ? 'OK' : 'MISS'}: RSS after the load is ${ratio.toFixed(2)}x the idle RSS (target < ${TARGET_RATIO}x)`);
    if (!ok) process.exitCode = 1;
  } finally {
    await server.stop();
  }
}

main().catch((error: unknown) => {
  log(error instanceof Error ? (error.stack ?? error.message) : String(error));
  for (const child of liveChildren) child.kill('SIGKILL');
  process.exitCode = 2;
});
