/**
 * A hostile pack and a hostile client against the LSP server. A delta bomb
 * (one blob and 200 chained deltas, built by git fast-import) must not hold up hovers, must honour
 * cancellation and must be refused past the budget of bytes rebuilt; concurrent sweeps never run
 * more workers than the pool; every request's parameters are checked.
 *
 * The zero-blob bomb (zero-bomb.test.ts) is a 64 MiB blob of zeros; git's own delta search takes
 * about 0.2 s per 4 MiB version of zeros on a 2-core machine (200 versions of 64 MiB would take
 * minutes to build), so the test builds the same shape at a size git deltifies quickly: a 2 MiB
 * blob of random bytes and 200 versions that each change 4 bytes, chained by fast-import
 * (--depth=250). The deepest version rebuilds 400 MiB of delta results, over the server's 256 MiB
 * budget; the one at depth 100 rebuilds 200 MiB, within it.
 */
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { availableParallelism } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { pathToFileURL } from 'node:url';
import {
  CancellationTokenSource,
  DidOpenTextDocumentNotification,
  ErrorCodes,
  HoverRequest,
  LSPErrorCodes,
  ResponseError,
  type Hover,
} from 'vscode-languageserver-protocol/node';
import {
  GitCapabilitiesRequest,
  IndexPackSimRequest,
  LocalityRequest,
  ObjectContentRequest,
  ObjectListRequest,
  ObjectRequest,
  PackSummaryRequest,
  RecordingInfoRequest,
  RepackPreviewRequest,
  ResolveIdsRequest,
  SweepRequest,
} from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, packStems, runCli, tempDir } from '../support/git.ts';
import { LspServer } from '../support/lsp-server.ts';

const BLOB_BYTES = 2 << 20;
const VERSIONS = 201;
const POLICIES = ['git', 'git-legacy', 'belady', 'keep-on-hit'];
const LIMITS = [0, 16 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20];
/** Concurrent sweeps sent at once. */
const SWEEPS = 12;

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let stem: string;
/** The deepest version (depth 200) and one within the budget (depth 100). */
let deepest: string;
let withinBudget: string;
let recording: string;

/** Streams the bomb into `git fast-import`: every version of the blob, one commit each. */
async function importDeltaBomb(dir: string): Promise<void> {
  const child = spawn('git', ['fast-import', '--quiet', '--depth=250'], {
    cwd: dir,
    env: gitEnv(sandbox.home),
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  const stderr: Buffer[] = [];
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  const write = (chunk: Buffer | string): Promise<void> =>
    new Promise((resolve, reject) => child.stdin.write(chunk, (error) => (error ? reject(error) : resolve())));
  const content = randomBytes(BLOB_BYTES);
  for (let version = 0; version < VERSIONS; version++) {
    if (version > 0) content.writeUInt32LE(version, (version * 4099) % (BLOB_BYTES - 4));
    await write(`blob\nmark :${version + 1}\ndata ${BLOB_BYTES}\n`);
    await write(content);
    await write(
      `\ncommit refs/heads/main\ncommitter C O Mitter <committer@example.com> ${1_700_000_000 + version} +0000\ndata 9\nversion ${version % 10}\nM 100644 :${version + 1} bomb.bin\n\n`,
    );
  }
  child.stdin.end();
  assert.equal(await exited, 0, Buffer.concat(stderr).toString());
}

/** Threads of the server process (Linux: /proc/<pid>/status). */
function serverThreads(): number {
  const status = fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^Threads:\s+(\d+)/m.exec(status)![1]);
}

/** Samples the server's threads every few ms until `work` settles; returns the most seen. */
async function peakThreadsDuring(work: Promise<unknown>): Promise<number> {
  let peak = serverThreads();
  let done = false;
  void work.finally(() => (done = true)).catch(() => undefined);
  while (!done) {
    peak = Math.max(peak, serverThreads());
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return peak;
}

async function threadsSettleTo(limit: number): Promise<number> {
  let count = serverThreads();
  for (let i = 0; i < 100 && count > limit; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    count = serverThreads();
  }
  return count;
}

async function rejection(promise: Promise<unknown>): Promise<ResponseError<unknown>> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ResponseError, `a ResponseError, got ${String(error)}`);
    return error;
  }
  assert.fail('the request should have failed');
}

before(async () => {
  root = tempDir(undefined, 'packscope-hostile-load-');
  const workspace = path.join(root, 'workspace');
  fs.mkdirSync(workspace);
  sandbox = new GitSandbox(workspace);
  repo = sandbox.init('bomb');
  await importDeltaBomb(repo);
  stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
  deepest = sandbox.gitText(repo, ['rev-parse', 'main:bomb.bin']).trim();
  withinBudget = sandbox.gitText(repo, ['rev-parse', 'main~100:bomb.bin']).trim();
  recording = path.join(root, 'log-raw.psrec');
  const recorded = runCli(['record', '--exact', '-o', recording, '-C', repo, '--', 'log', '--raw'], {
    env: { ...(gitEnv(sandbox.home) as Record<string, string>), PACKSCOPE_CACHE_DIR: path.join(root, 'cli-models') },
  });
  assert.equal(recorded.status, 0, recorded.stderr);
  // The recording lies in the recording directory (the server reads no recording elsewhere: read-rules.ts).
  server = await LspServer.start({
    workspaceFolders: [workspace],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: gitEnv(sandbox.home),
    recordingDirectory: root,
  });
  // Every pack loaded (the hover's model) before anything is timed or counted.
  await server.connection.sendRequest(ObjectRequest, { oid: deepest });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

describe('a delta bomb and a hostile client', () => {
  test('the bomb is what it says: 200 chained deltas, the deepest at depth 200', () => {
    const verify = sandbox.gitText(repo, ['verify-pack', '-v', `${stem}.idx`]);
    assert.match(verify, /^chain length = 200: 1 object$/m);
    const line = verify.split('\n').find((l) => l.startsWith(deepest))!;
    assert.equal(line.split(/\s+/)[5], '200', line);
  });

  test('a hover answers while an objectContent rebuilds the bomb', async () => {
    const uri = pathToFileURL(path.join(root, 'notes.txt')).href;
    await server.connection.sendNotification(DidOpenTextDocumentNotification.type, {
      textDocument: { uri, languageId: 'plaintext', version: 1, text: `${withinBudget}\n` },
    });
    const order: string[] = [];
    const content = server.connection
      .sendRequest(ObjectContentRequest, { oid: withinBudget, maxContentBytes: 64, maxInstructions: 10 })
      .then((result) => {
        order.push('objectContent');
        return result;
      });
    const hover = server.connection
      .sendRequest(HoverRequest.type, { textDocument: { uri }, position: { line: 0, character: 3 } })
      .then((result) => {
        order.push('hover');
        return result as Hover | null;
      });
    const [rebuilt, hovered] = await Promise.all([content, hover]);
    assert.ok(hovered, 'a hover on the object');
    assert.ok(rebuilt.found);
    assert.equal(rebuilt.content.contentBytes, BLOB_BYTES);
    assert.equal(rebuilt.content.details.depth, 100);
    assert.deepEqual(order, ['hover', 'objectContent'], 'the hover answered before the objectContent finished');
  });

  test('past the budget of bytes rebuilt, the object is refused, not rebuilt', async () => {
    const error = await rejection(
      server.connection.sendRequest(ObjectContentRequest, { oid: deepest, maxContentBytes: 64, maxInstructions: 10 }),
    );
    assert.equal(error.code, ErrorCodes.InvalidParams);
    assert.match(error.message, /200 deltas .*budget/);
  });

  test('a cancelled objectContent answers RequestCancelled and its worker ends', async () => {
    const baseline = serverThreads();
    const source = new CancellationTokenSource();
    const pending = server.connection.sendRequest(
      ObjectContentRequest,
      { oid: withinBudget, maxContentBytes: 64, maxInstructions: 10 },
      source.token,
    );
    setTimeout(() => source.cancel(), 30);
    const error = await rejection(pending);
    assert.equal(error.code, LSPErrorCodes.RequestCancelled);
    assert.ok((await threadsSettleTo(baseline)) <= baseline, `threads back to ${baseline}`);
  });

  test('many cancelled objectContents: all answer RequestCancelled, the queued ones never start a worker', async () => {
    const baseline = serverThreads();
    const sources = Array.from({ length: 40 }, () => new CancellationTokenSource());
    const pending = sources.map((source) =>
      server.connection.sendRequest(
        ObjectContentRequest,
        { oid: withinBudget, maxContentBytes: 64, maxInstructions: 10 },
        source.token,
      ),
    );
    for (const source of sources) source.cancel();
    const all = Promise.allSettled(pending);
    const peak = await peakThreadsDuring(all);
    for (const outcome of await all) {
      assert.equal(outcome.status, 'rejected');
      assert.equal((outcome.reason as ResponseError<unknown>).code, LSPErrorCodes.RequestCancelled);
    }
    assert.ok(
      peak <= baseline + availableParallelism(),
      `at most ${availableParallelism()} workers (threads ${peak}, ${baseline} before)`,
    );
    assert.ok((await threadsSettleTo(baseline)) <= baseline, `threads back to ${baseline}`);
  });

  test(`${SWEEPS} concurrent sweeps never run more workers than the pool`, async () => {
    await server.connection.sendRequest(RecordingInfoRequest, { file: recording });
    const baseline = serverThreads();
    const sweeps = Promise.all(
      Array.from({ length: SWEEPS }, () =>
        server.connection.sendRequest(SweepRequest, { file: recording, policies: POLICIES, limits: LIMITS }),
      ),
    );
    const peak = await peakThreadsDuring(sweeps);
    const results = await sweeps;
    for (const result of results)
      assert.deepEqual(
        result.results.map((r) => [r.policy, r.limit]),
        results[0]!.results.map((r) => [r.policy, r.limit]),
      );
    assert.ok(
      peak <= baseline + availableParallelism(),
      `at most ${availableParallelism()} sweep workers at once (threads ${peak}, ${baseline} before)`,
    );
  });

  test('sweeps and object documents together never run more worker threads than the one budget (one per core, at least two)', async () => {
    // Before the budget each kind had its own pool: a sweep's threads (one per core) beside object
    // documents (one per core) ran about twice the cores.
    await server.connection.sendRequest(RecordingInfoRequest, { file: recording });
    const budget = Math.max(2, availableParallelism());
    const baseline = serverThreads();
    const work = Promise.all([
      ...Array.from({ length: 4 }, () =>
        server.connection.sendRequest(SweepRequest, { file: recording, policies: POLICIES, limits: LIMITS }),
      ),
      ...Array.from({ length: 6 }, () =>
        server.connection.sendRequest(ObjectContentRequest, {
          oid: withinBudget,
          maxContentBytes: 64,
          maxInstructions: 10,
        }),
      ),
    ]);
    const peak = await peakThreadsDuring(work);
    const answers = await work;
    for (const answer of answers.slice(4))
      assert.ok('found' in answer && answer.found && answer.content.contentBytes === BLOB_BYTES);
    assert.ok(
      peak <= baseline + budget,
      `at most ${budget} worker threads at once (threads ${peak}, ${baseline} before)`,
    );
    // The server's own count of places taken (thread-budget.ts logs each new most).
    const most = server.log.flatMap((line) => {
      const match = /^worker threads: (\d+) at once, the most so far \(at most (\d+)\)$/.exec(line);
      return match ? [[Number(match[1]), Number(match[2])] as const] : [];
    });
    assert.ok(most.length > 0, 'the budget logged its most');
    for (const [count, capacity] of most) {
      assert.equal(capacity, budget);
      assert.ok(count <= budget, `${count} places taken`);
    }
    assert.equal(most.at(-1)![0], budget, 'sweeps and documents used the budget whole');
  });

  test('bad parameters of every request are InvalidParams', async () => {
    const pack = `${stem}.pack`;
    const long = 'x'.repeat(100_000);
    const cases: [string, Promise<unknown>][] = [
      [
        'packSummary pack not a string',
        server.connection.sendRequest(PackSummaryRequest, { pack: ['x'] as unknown as string }),
      ],
      [
        'objectList count not a number',
        server.connection.sendRequest(ObjectListRequest, {
          pack,
          kind: 'largest',
          start: 0,
          count: '5' as unknown as number,
        }),
      ],
      [
        'objectList count negative',
        server.connection.sendRequest(ObjectListRequest, { pack, kind: 'largest', start: 0, count: -1 }),
      ],
      [
        'objectList start fractional',
        server.connection.sendRequest(ObjectListRequest, { pack, kind: 'largest', start: 0.5, count: 10 }),
      ],
      [
        'objectList pack too long',
        server.connection.sendRequest(ObjectListRequest, { pack: long, kind: 'largest', start: 0, count: 10 }),
      ],
      ['object oid not a string', server.connection.sendRequest(ObjectRequest, { oid: 42 as unknown as string })],
      ['object oid too long', server.connection.sendRequest(ObjectRequest, { oid: long })],
      [
        'object repository not a string',
        server.connection.sendRequest(ObjectRequest, { oid: deepest, repository: 7 as unknown as string }),
      ],
      [
        'objectContent maxContentBytes negative',
        server.connection.sendRequest(ObjectContentRequest, { oid: deepest, maxContentBytes: -1, maxInstructions: 10 }),
      ],
      [
        'objectContent maxInstructions not a number',
        server.connection.sendRequest(ObjectContentRequest, {
          oid: deepest,
          maxContentBytes: 64,
          maxInstructions: 'all' as unknown as number,
        }),
      ],
      [
        'resolveIds words not a list',
        server.connection.sendRequest(ResolveIdsRequest, { words: deepest as unknown as string[] }),
      ],
      [
        'resolveIds words not strings',
        server.connection.sendRequest(ResolveIdsRequest, { words: [1, 2] as unknown as string[] }),
      ],
      [
        'recordingInfo segment too large',
        server.connection.sendRequest(RecordingInfoRequest, { file: recording, segment: 1e300 }),
      ],
      [
        'recordingInfo repository not a string',
        server.connection.sendRequest(RecordingInfoRequest, { file: recording, repository: 7 as unknown as string }),
      ],
      [
        'sweep too many limits',
        server.connection.sendRequest(SweepRequest, {
          file: recording,
          policies: ['git'],
          limits: new Array(5000).fill(0),
        }),
      ],
      [
        'sweep too many policies',
        server.connection.sendRequest(SweepRequest, {
          file: recording,
          policies: new Array(5000).fill('git'),
          limits: [0],
        }),
      ],
      [
        'locality cacheMiB absurd',
        server.connection.sendRequest(LocalityRequest, { file: recording, cacheMiB: 1e300 }),
      ],
      ['indexPackSim pack too long', server.connection.sendRequest(IndexPackSimRequest, { pack: long })],
      [
        'repackPreview git not a string',
        server.connection.sendRequest(RepackPreviewRequest, {
          repository: repo,
          extraOptions: [],
          git: 42 as unknown as string,
          recordings: [],
          estimate: false,
        }),
      ],
      [
        'repackPreview too many options',
        server.connection.sendRequest(RepackPreviewRequest, {
          repository: repo,
          extraOptions: new Array(5000).fill('-q'),
          git: 'git',
          recordings: [],
          estimate: false,
        }),
      ],
      ['gitCapabilities git too long', server.connection.sendRequest(GitCapabilitiesRequest, { git: long })],
    ];
    const wrong: string[] = [];
    for (const [name, request] of cases) {
      try {
        await request;
        wrong.push(`${name}: answered`);
      } catch (error) {
        if (!(error instanceof ResponseError) || error.code !== ErrorCodes.InvalidParams)
          wrong.push(
            `${name}: ${(error instanceof ResponseError ? `code ${error.code}: ${error.message}` : String(error)).slice(0, 200)}`,
          );
      }
    }
    assert.deepEqual(wrong, []);
  });
});
