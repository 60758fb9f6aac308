/**
 * The model cache and the repack preview's temporary directory against
 * an attacker (docs/security.md, "The model cache's threat model"). Crafted model files (depths,
 * types, bases, sizes and pack order that the pack does not have) sealed without the
 * cache's key (refused by the seal) or with it (the key holder: read as written, and nothing hangs),
 * files of the wrong shape sealed with the key (refused), a pack and idx touched since the model
 * was built, symbolic links planted at the names PackScope writes, a cache directory that is a
 * file, a HOME that is itself a repository for the server, and preview directories left behind by
 * a killed preview.
 */
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildPackModel, packFilesFor } from '../../src/core/model/build-pack-model.ts';
import { ModelStore } from '../../src/core/model/model-store.ts';
import { objectSummary, packStats } from '../../src/core/model/pack-stats.ts';
import { discoverRepository } from '../../src/core/model/repository.ts';
import { previewRepack, TEMP_PREFIX } from '../../src/core/repack/preview-pack.ts';
import { PackSummaryRequest, RecordRequest } from '../../src/protocol/server-protocol.ts';
import { directorySnapshot, GitSandbox, gitEnv, packStems, tempDir } from '../support/git.ts';
import { historyStream } from '../support/history.ts';
import { LspServer } from '../support/lsp-server.ts';
import {
  CACHE_KEY_FILE,
  modelFileIn,
  modelSnapshot,
  readModelFile,
  sealWithCacheKey,
  sealWithoutKey,
  writeModelFile,
  type ModelFile,
} from '../support/model-file.ts';

/** A pid that is certainly gone: a child's that has exited. */
function exitedPid(): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', '']);
    child.on('exit', () => resolve(child.pid!));
  });
}

const OBJ_OFS_DELTA = 6;
const OBJ_REF_DELTA = 7;

describe('crafted model-cache files', () => {
  let sandbox: GitSandbox;
  let pack: string;
  let reference: unknown;
  let pristine: ModelFile;

  before(() => {
    sandbox = new GitSandbox(tempDir(undefined, 'packscope-hostile-cache-'));
    const repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 80, seed: 3 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=12']);
    pack = `${packStems(path.join(repo, '.git', 'objects'))[0]}.pack`;
    reference = modelSnapshot(buildPackModel(packFilesFor(pack)));
    const cacheDir = path.join(sandbox.root, 'pristine-cache');
    new ModelStore(cacheDir).load(packFilesFor(pack));
    pristine = readModelFile(fs.readFileSync(modelFileIn(cacheDir)));
  });
  after(() => fs.rmSync(sandbox.root, { recursive: true, force: true }));

  /** A fresh cache holding one model file, `craft`ed from the pristine one and sealed by `seal`. */
  function loadCrafted(
    name: string,
    craft: (file: ModelFile) => void,
    sealedWithKey: boolean,
  ): ReturnType<ModelStore['load']> {
    const cacheDir = path.join(sandbox.root, `cache-${name}`);
    new ModelStore(cacheDir).load(packFilesFor(pack));
    const file = structuredClone(pristine);
    craft(file);
    const seal = sealedWithKey ? sealWithCacheKey(cacheDir, file.version) : sealWithoutKey(file.version);
    fs.writeFileSync(modelFileIn(cacheDir), writeModelFile(file, seal));
    return new ModelStore(cacheDir).load(packFilesFor(pack));
  }

  const deltas = (file: ModelFile): number[] =>
    file.inPackType.flatMap((t, n) => (t === OBJ_OFS_DELTA || t === OBJ_REF_DELTA ? [n] : []));
  const nonDeltas = (file: ModelFile): number[] => file.inPackType.flatMap((t, n) => (t >= 1 && t <= 4 ? [n] : []));

  // Values no pack has, in every column the old column-by-column checks covered.
  const valueCases: [string, (file: ModelFile) => void][] = [
    ['a depth of 0xFFFF, more than the objects', (file) => void (file.depth[deltas(file)[0]!] = 0xffff)],
    ['a type out of range', (file) => void (file.type[nonDeltas(file)[0]!] = 9)],
    ['an in-pack type out of range', (file) => void (file.inPackType[nonDeltas(file)[0]!] = 5)],
    [
      'a resolved type that is not its base',
      (file) => void (file.type[deltas(file)[0]!] = file.type[deltas(file)[0]!] === 3 ? 2 : 3),
    ],
    ['a base out of range', (file) => void (file.base[deltas(file)[0]!] = file.header.count + 5)],
    ['a delta that is its own base', (file) => void (file.base[deltas(file)[0]!] = deltas(file)[0]!)],
    [
      'two deltas that are each other’s base',
      (file) => {
        const [a, b] = deltas(file);
        file.base[a!] = b!;
        file.base[b!] = a!;
        file.depth[a!] = file.depth[b!]! + 1;
      },
    ],
    ['a non-delta with a base', (file) => void (file.base[nonDeltas(file)[0]!] = nonDeltas(file)[1]!)],
    ['a depth that does not follow its base', (file) => void (file.depth[deltas(file)[0]!] += 3)],
    ['a disk size that is not the distance to the next offset', (file) => void (file.diskSize[0]! += 1)],
    [
      'a pack order that is not the offsets’ order',
      (file) => {
        [file.byOffset[0], file.byOffset[1]] = [file.byOffset[1]!, file.byOffset[0]!];
      },
    ],
    ['a pack order naming an object out of range', (file) => void (file.byOffset[3] = file.header.count)],
    ['a result size of a non-delta that is not its size', (file) => void (file.resultSize[nonDeltas(file)[0]!] += 1)],
    ['roots that are not the chains’ roots', (file) => void (file.roots![deltas(file)[0]!] = file.header.count + 7)],
    ['a child list naming objects out of range', (file) => file.childList!.fill(file.header.count * 2)],
  ];

  // Anyone who cannot read the user's 0600 key: the seal refuses the file, whatever it says.
  for (const [name, craft] of valueCases) {
    test(`${name}, sealed without the cache's key: refused by the seal, rebuilt, equal to a fresh build`, () => {
      const loaded = loadCrafted(`unkeyed-${name.replace(/\W+/g, '-')}`, craft, false);
      assert.equal(loaded.source, 'built', `${name}: a file sealed without the key was used`);
      assert.match(loaded.rebuiltBecause ?? '', /checksum mismatch/);
      assert.deepEqual(modelSnapshot(loaded.model), reference);
    });
  }

  // The key holder runs code as the user already, so a sealed file's values are not re-checked
  // column by column; what a reopen must still do is not crash or hang on them: the summary, the
  // lists, every object's line and chain are computed from the crafted file.
  for (const [name, craft] of valueCases) {
    test(`${name}, sealed with the cache's key: read as written, and nothing crashes or hangs`, () => {
      const loaded = loadCrafted(name.replace(/\W+/g, '-'), craft, true);
      assert.equal(loaded.source, 'persisted', `${name}: ${loaded.rebuiltBecause ?? ''}`);
      const { model } = loaded;
      const started = performance.now();
      packStats(model, 10);
      for (let n = 0; n < model.count; n++) {
        objectSummary(model, n);
        assert.ok(model.chain(n).length <= model.count, `${name}: a chain longer than the objects`);
      }
      assert.ok(performance.now() - started < 2000, `${name}: reading the crafted model took too long`);
    });
  }

  // The shape is checked after the seal (a writer of another version, or a bug in the layout):
  // nothing a reader indexes may lie outside the file or the objects.
  const shapeCases: [string, (file: ModelFile) => void][] = [
    ['an object count that is not the idx’s', (file) => void (file.header.count += 1)],
    ['a depth column 1 byte wide', (file) => void ((file.header as { depthBytes: number }).depthBytes = 1)],
    [
      'a depth of 0xFFFFFFFF, in a column 4 bytes wide though the summary’s deepest fits in 2',
      (file) => {
        file.header.depthBytes = 4;
        file.depth[deltas(file)[0]!] = 0xffffffff;
      },
    ],
    ['a size overflow entry for an object that has none', (file) => void (file.header.overflow.size = [[0, 2 ** 40]])],
    [
      'an overflow map that is not pairs',
      (file) => void (file.header.overflow.diskSize = 'x' as unknown as [number, number][]),
    ],
    [
      'a depth histogram longer than the objects',
      (file) => {
        const summary = file.header.summary as { depthHistogram: number[] };
        summary.depthHistogram = new Array<number>(file.header.count + 2).fill(0);
      },
    ],
    [
      'a summary without its byte totals',
      (file) => void delete (file.header.summary as { byteTotals?: unknown }).byteTotals,
    ],
    [
      'a ranking head naming an object out of range',
      (file) => {
        const rankings = file.header.rankings as Record<string, { entries: { object: number }[] }>;
        rankings.largest!.entries[0]!.object = file.header.count;
      },
    ],
    [
      'a ranking head longer than its limit',
      (file) => void ((file.header.rankings as Record<string, { limit: number }>).deepest!.limit = 0),
    ],
    [
      'a child list longer than the objects',
      (file) => file.childList!.push(...new Array<number>(file.header.count + 1).fill(0)),
    ],
    [
      'derived columns cut short',
      (file) => {
        file.childList = [];
        file.familySizes!.pop();
      },
    ],
  ];

  for (const [name, craft] of shapeCases) {
    test(`${name}, sealed with the cache's key: refused by the shape checks, rebuilt, equal to a fresh build`, () => {
      const loaded = loadCrafted(`shape-${name.replace(/\W+/g, '-')}`, craft, true);
      // Checked on open, or (a size column against its overflow map) when the column is first read.
      const snapshot = modelSnapshot(loaded.model);
      assert.equal(loaded.source, 'built', `${name}: a file of the wrong shape was used`);
      assert.ok(loaded.rebuiltBecause, `${name}: rebuilt without saying why`);
      assert.deepEqual(snapshot, reference);
    });
  }

  // What no cheap check against the pack can see (a delta's header size, OFS or REF): the key must.
  test('sizes and delta kinds changed by someone without the key: rebuilt, equal to a fresh build', () => {
    const loaded = loadCrafted(
      'unkeyed',
      (file) => {
        const [a, b] = deltas(file);
        file.size[a!] += 1000;
        file.resultSize[b!] += 1000;
        file.inPackType[b!] = file.inPackType[b!] === OBJ_OFS_DELTA ? OBJ_REF_DELTA : OBJ_OFS_DELTA;
      },
      false,
    );
    assert.equal(loaded.source, 'built', 'a file sealed without the key was used');
    assert.match(loaded.rebuiltBecause ?? '', /checksum mismatch/);
    assert.deepEqual(modelSnapshot(loaded.model), reference);
  });

  test('without the key file, no model file is trusted; the key is a private file', () => {
    const cacheDir = path.join(sandbox.root, 'cache-no-key');
    new ModelStore(cacheDir).load(packFilesFor(pack));
    const key = fs.lstatSync(path.join(cacheDir, CACHE_KEY_FILE));
    assert.ok(key.isFile());
    assert.equal(key.size, 32);
    assert.equal(key.mode & 0o777, 0o600);
    assert.equal(fs.lstatSync(modelFileIn(cacheDir)).mode & 0o077, 0);
    fs.rmSync(path.join(cacheDir, CACHE_KEY_FILE));
    const loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
    assert.equal(loaded.source, 'built');
    assert.match(loaded.rebuiltBecause ?? '', /key/);
    assert.equal(new ModelStore(cacheDir).load(packFilesFor(pack)).source, 'persisted');
  });

  test('symbolic links planted at the temporary, model and key names are never followed', () => {
    const cacheDir = path.join(sandbox.root, 'cache-planted');
    const victim = path.join(sandbox.root, 'victim.txt');
    fs.writeFileSync(victim, 'precious\n');
    const probe = new ModelStore(cacheDir);
    fs.mkdirSync(cacheDir);
    const target = probe.fileFor(buildPackModel(packFilesFor(pack)).index);
    // The names a save once used (format 1): the target plus this process's pid.
    fs.symlinkSync(victim, `${target}.${process.pid}.tmp`);
    fs.symlinkSync(victim, target);
    const loaded = new ModelStore(cacheDir).load(packFilesFor(pack));
    assert.deepEqual(modelSnapshot(loaded.model), reference);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n', 'the planted link was followed');
    assert.ok(fs.lstatSync(target).isFile(), 'the model replaced the link, not its target');

    const keyed = path.join(sandbox.root, 'cache-planted-key');
    fs.mkdirSync(keyed);
    fs.symlinkSync(victim, path.join(keyed, CACHE_KEY_FILE));
    const failures: string[] = [];
    const withPlantedKey = new ModelStore(keyed, (message) => failures.push(message)).load(packFilesFor(pack));
    assert.deepEqual(modelSnapshot(withPlantedKey.model), reference);
    assert.equal(fs.readFileSync(victim, 'utf8'), 'precious\n');
    assert.equal(failures.length, 1);
    assert.match(failures[0]!, /could not save the model .*not a private key file/);
  });

  test('a cache directory that is a file: the model is built, the failed save is reported, nothing throws', () => {
    const file = path.join(sandbox.root, 'cache-is-a-file');
    fs.writeFileSync(file, 'not a directory\n');
    const failures: string[] = [];
    const loaded = new ModelStore(file, (message) => failures.push(message)).load(packFilesFor(pack));
    assert.equal(loaded.source, 'built');
    assert.deepEqual(modelSnapshot(loaded.model), reference);
    assert.equal(failures.length, 1);
    assert.match(failures[0]!, /could not save the model of .* in .*cache-is-a-file/);
    assert.equal(fs.readFileSync(file, 'utf8'), 'not a directory\n');
  });
});

describe('repack preview directories left by a killed preview', () => {
  test('the next preview removes stale ones, only ours, without touching what their links point to', async (t) => {
    const sandbox = new GitSandbox(tempDir(t));
    const repo = sandbox.init('repo');
    sandbox.fastImport(repo, historyStream({ commits: 20, seed: 5 }));
    sandbox.git(repo, ['repack', '-adq']);
    const objects = path.join(repo, '.git', 'objects');
    const repositoryBefore = directorySnapshot(path.join(repo, '.git'));
    const tempRoot = path.join(sandbox.root, 'tmp');
    fs.mkdirSync(tempRoot);

    const gone = await exitedPid();
    /** A directory as a killed preview leaves it: a shadow objects directory of links into the repository. */
    const leftBehind = (name: string, owner: number | undefined): string => {
      const dir = path.join(tempRoot, `${TEMP_PREFIX}${name}`);
      fs.mkdirSync(path.join(dir, 'objects'), { recursive: true });
      fs.mkdirSync(path.join(dir, 'pack'));
      for (const entry of fs.readdirSync(objects))
        fs.symlinkSync(path.join(objects, entry), path.join(dir, 'objects', entry));
      fs.symlinkSync(repo, path.join(dir, 'repository-link'));
      if (owner !== undefined) fs.writeFileSync(path.join(dir, 'owner.pid'), `${owner}\n`);
      return dir;
    };
    const killed = leftBehind('killed', gone);
    const oldUnowned = leftBehind('old', undefined);
    const day = 2 * 24 * 3600;
    fs.utimesSync(oldUnowned, Date.now() / 1000 - day, Date.now() / 1000 - day);
    const young = leftBehind('young', undefined);
    const running = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    t.after(() => running.kill('SIGKILL'));
    const live = leftBehind('live', running.pid!);
    const notOurs = path.join(tempRoot, 'other-tool-dir');
    fs.mkdirSync(notOurs);
    const linkNamedLikeOurs = path.join(tempRoot, `${TEMP_PREFIX}link`);
    fs.symlinkSync(notOurs, linkNamedLikeOurs);

    await previewRepack({ repository: discoverRepository(repo), threads: 1, tempRoot });

    assert.equal(fs.existsSync(killed), false, 'the directory of a preview whose process is gone was left');
    assert.equal(fs.existsSync(oldUnowned), false, 'an unowned directory two days old was left');
    assert.ok(fs.existsSync(young), 'a young unowned directory (a preview starting) was removed');
    assert.ok(fs.existsSync(live), 'the directory of a running preview was removed');
    assert.ok(
      fs.lstatSync(linkNamedLikeOurs).isSymbolicLink() && fs.existsSync(notOurs),
      'a link named like ours, or what it points to, was removed',
    );
    assert.deepEqual(directorySnapshot(path.join(repo, '.git')), repositoryBefore, 'the repository changed');
    sandbox.git(repo, ['fsck', '--strict', '--no-dangling']);
  });
});

describe('the server with a crafted model file in its cache', () => {
  test('a file sealed without the key: the pack is rebuilt and usable, as a fresh build says, and the log says why', async (t) => {
    const sandbox = new GitSandbox(tempDir(t));
    const repo = sandbox.init('work');
    sandbox.fastImport(repo, historyStream({ commits: 40, seed: 4 }));
    sandbox.git(repo, ['repack', '-adf', '--depth=10']);
    const stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
    const cacheDir = path.join(sandbox.root, 'models');
    new ModelStore(cacheDir).load(packFilesFor(`${stem}.pack`));
    const file = readModelFile(fs.readFileSync(modelFileIn(cacheDir)));
    const delta = file.inPackType.findIndex((type) => type === OBJ_OFS_DELTA || type === OBJ_REF_DELTA);
    file.header.depthBytes = 4;
    file.depth[delta] = 0xffffffff;
    fs.writeFileSync(modelFileIn(cacheDir), writeModelFile(file, sealWithoutKey(file.version)));

    const summaryWith = async (
      settings: Parameters<typeof LspServer.start>[0]['settings'],
    ): Promise<{ summary: Record<string, unknown>; log: string[] }> => {
      const server = await LspServer.start({ workspaceFolders: [repo], settings, env: gitEnv(sandbox.home) });
      try {
        const {
          source: _source,
          loadMs: _loadMs,
          ...summary
        } = await server.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
        return { summary, log: server.log };
      } finally {
        await server.stop();
      }
    };
    const fresh = await summaryWith({ persistModels: false });
    const crafted = await summaryWith({ modelCacheDirectory: cacheDir });
    assert.deepEqual(crafted.summary, fresh.summary);
    assert.ok(
      crafted.log.some((line) => /rebuilt the persisted model of .*: model header checksum mismatch/.test(line)),
      `no rebuild in the log:\n${crafted.log.join('\n')}`,
    );
  });
});

describe('the server with a HOME that is itself a repository', () => {
  test('it writes no model in that repository, and logs why', async (t) => {
    const sandbox = new GitSandbox(tempDir(t));
    const home = sandbox.init('home');
    fs.writeFileSync(path.join(home, 'README'), 'my dotfiles\n');
    sandbox.git(home, ['add', 'README']);
    sandbox.git(home, ['commit', '-qm', 'dotfiles']);
    const homeBefore = directorySnapshot(home);
    const repo = sandbox.init('work');
    sandbox.fastImport(repo, historyStream({ commits: 10, seed: 9 }));
    sandbox.git(repo, ['repack', '-adq']);
    const env = gitEnv(home);
    delete env.XDG_CACHE_HOME;
    delete env.PACKSCOPE_CACHE_DIR;
    const server = await LspServer.start({ workspaceFolders: [repo], settings: {}, env });
    t.after(() => server.stop());
    const stem = packStems(path.join(repo, '.git', 'objects'))[0]!;
    const summary = await server.connection.sendRequest(PackSummaryRequest, { pack: `${stem}.pack` });
    assert.ok(summary);
    await server.stop();
    assert.deepEqual(directorySnapshot(home), homeBefore, 'the server wrote inside the repository at HOME');
    assert.ok(
      server.log.some((line) => /model cache .* is inside the repository .*home/.test(line)),
      `no warning in the log:\n${server.log.join('\n')}`,
    );
  });
});

describe('the server: record into another repository, and preview directories left behind', () => {
  test('record -o inside another repository is refused before anything is created; stale preview directories go at start', async (t) => {
    const sandbox = new GitSandbox(tempDir(t));
    const repo = sandbox.init('work');
    sandbox.fastImport(repo, historyStream({ commits: 10, seed: 2 }));
    sandbox.git(repo, ['repack', '-adq']);
    const other = sandbox.init('other');
    const otherBefore = directorySnapshot(other);
    const serverTmp = path.join(sandbox.root, 'tmp');
    fs.mkdirSync(serverTmp);
    const gone = await exitedPid();
    const stale = path.join(serverTmp, `${TEMP_PREFIX}killed`);
    fs.mkdirSync(path.join(stale, 'objects'), { recursive: true });
    fs.symlinkSync(path.join(repo, '.git', 'objects', 'pack'), path.join(stale, 'objects', 'pack'));
    fs.writeFileSync(path.join(stale, 'owner.pid'), `${gone}\n`);
    const repositoryBefore = directorySnapshot(path.join(repo, '.git'));

    const server = await LspServer.start({
      workspaceFolders: [repo],
      settings: { persistModels: false },
      env: gitEnv(sandbox.home, { TMPDIR: serverTmp }),
    });
    t.after(() => server.stop());
    await assert.rejects(
      server.connection.sendRequest(RecordRequest, {
        cwd: repo,
        args: ['rev-parse', 'HEAD'],
        output: path.join(other, 'new', 'dir', 'x.psrec'),
        mode: 'exact',
        git: 'git',
      }),
      /the recording must be written outside the repository/,
    );
    await server.stop();
    assert.deepEqual(directorySnapshot(other), otherBefore, 'the server created files inside the other repository');
    assert.equal(fs.existsSync(stale), false, 'the stale preview directory was left');
    assert.deepEqual(directorySnapshot(path.join(repo, '.git')), repositoryBefore);
  });
});
