/**
 * The Pack Map's overlays over LSP. packMapFamily gives the family git's
 * `verify-pack -v` lines make (members, and each delta joined to its base); packMapSeeks gives the
 * offsets of git's own GIT_TRACE_PACK_ACCESS lines in git's order, and the very figures
 * `packscope locality --json` prints for that pack; bad parameters are refused as InvalidParams.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, test } from 'node:test';
import { ErrorCodes } from 'vscode-languageserver-protocol/node';
import { PackMapFamilyRequest, PackMapSeeksRequest } from '../../src/protocol/server-protocol.ts';
import { GitSandbox, gitEnv, runCli, tempDir } from '../support/git.ts';
import { historyRepository, onlyPackStem, verifyPackEntries, type VerifyPackEntry } from '../support/git-oracle.ts';
import { expectError, LspServer } from '../support/lsp-server.ts';

let root: string;
let sandbox: GitSandbox;
let server: LspServer;
let repo: string;
let pack: string;
let entries: VerifyPackEntry[];
let trace: string;

before(async () => {
  root = tempDir(undefined, 'packscope-server-map-overlays-');
  sandbox = new GitSandbox(root);
  repo = historyRepository(sandbox, 'history', {
    commits: 40,
    seed: 17,
    files: 4,
    linesPerFile: 30,
    repack: ['-adf', '--depth=20'],
  });
  pack = `${onlyPackStem(path.join(repo, '.git', 'objects', 'pack'))}.pack`;
  entries = verifyPackEntries(sandbox, repo, pack);
  // In the recording directory, where the extension keeps recordings (the server reads no trace elsewhere: read-rules.ts).
  trace = path.join(root, 'log.trace');
  sandbox.git(repo, ['-c', 'core.deltaBaseCacheLimit=0', 'log', '-p', '-n', '25'], {
    env: { GIT_TRACE_PACK_ACCESS: trace },
  });
  server = await LspServer.start({
    workspaceFolders: [repo],
    settings: { modelCacheDirectory: path.join(root, 'models') },
    env: { ...gitEnv(sandbox.home), TMPDIR: root },
    recordingDirectory: root,
  });
});

after(async () => {
  await server?.stop();
  fs.rmSync(root, { recursive: true, force: true });
});

test("packMapFamily: the family of a deep delta, as git's verify-pack -v lines make it", async () => {
  const byOid = new Map(entries.map((e) => [e.oid, e]));
  const rootOf = (e: VerifyPackEntry): VerifyPackEntry => (e.base === undefined ? e : rootOf(byOid.get(e.base)!));
  const deepest = entries.reduce((a, b) => (b.depth > a.depth ? b : a));
  assert.ok(deepest.depth >= 2, `a chain of some depth (${deepest.depth})`);
  const members = entries.filter((e) => rootOf(e).oid === rootOf(deepest).oid);
  const family = await server.connection.sendRequest(PackMapFamilyRequest, { pack, oid: deepest.oid });
  assert.equal(family.root, rootOf(deepest).oid);
  assert.equal(family.members, members.length);
  assert.deepEqual(
    family.memberOffsets,
    members.map((e) => e.offset),
  );
  assert.deepEqual(
    family.arcs,
    members.filter((e) => e.base !== undefined).map((e) => [e.offset, byOid.get(e.base!)!.offset]),
  );
  assert.equal(family.truncated, false);
});

test("packMapSeeks: git's reads of the pack in git's order, with packscope locality's figures", async () => {
  const gitOffsets = fs
    .readFileSync(trace, 'utf8')
    .trim()
    .split('\n')
    .flatMap((line) => {
      const m = /(\S+\.pack) (\d+)$/.exec(line);
      return m && path.basename(m[1]!) === path.basename(pack) ? [Number(m[2])] : [];
    });
  assert.ok(gitOffsets.length > 20, `git read the pack (${gitOffsets.length} reads)`);
  const seeks = await server.connection.sendRequest(PackMapSeeksRequest, {
    pack,
    recording: trace,
    cacheMiB: 1,
    readaheadKiB: 16,
  });
  assert.equal(seeks.reads, gitOffsets.length);
  assert.equal(seeks.stride, 1);
  assert.deepEqual(seeks.offsets, gitOffsets);
  assert.equal(seeks.backwardSeeks, gitOffsets.filter((o, i) => i > 0 && o < gitOffsets[i - 1]!).length);
  assert.deepEqual(seeks.pageCache, { cacheMiB: 1, readaheadKiB: 16 });
  const cli = runCli(['locality', '--json', '--cache-mib', '1', '--readahead-kib', '16', trace], {
    cwd: repo,
    env: { HOME: sandbox.home, PACKSCOPE_CACHE_DIR: path.join(root, 'cli-models') },
  });
  assert.equal(cli.status, 0, cli.stderr);
  const printed = JSON.parse(cli.stdout.toString()) as { packs: unknown[] };
  assert.deepEqual(
    seeks.locality,
    printed.packs.find((p) => (p as { pack: string }).pack === pack),
  );
  assert.ok(seeks.faults.length > 0 && seeks.faults.length <= seeks.locality.pageFaults);
});

test('bad overlay parameters are InvalidParams', async () => {
  const invalid = (message: RegExp) => (error: { code: number; message: string }) => {
    assert.equal(error.code, ErrorCodes.InvalidParams, error.message);
    assert.match(error.message, message);
  };
  await expectError(
    server.connection.sendRequest(PackMapFamilyRequest, { pack, oid: 'abc' }),
    invalid(/oid must be 40 hex digits/),
  );
  await expectError(
    server.connection.sendRequest(PackMapFamilyRequest, { pack, oid: '0'.repeat(40) }),
    invalid(/is not in pack-/),
  );
  await expectError(
    server.connection.sendRequest(PackMapSeeksRequest, { pack, recording: trace, cacheMiB: -1 }),
    invalid(/cacheMiB must be positive/),
  );
});
