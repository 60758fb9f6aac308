// Recording inside VS Code: the terminal recording toggle and its environment variable
// collection, a git command run in a real integrated terminal, "Record a git command…", and the
// Recordings view — each checked against GIT_TRACE_PACK_ACCESS of the same git command run here.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { PackScopeApi } from '../../src/extension/extension.ts';
import type { RecordCommandResult } from '../../src/extension/recording/record-command.ts';
import type { RecordingNode } from '../../src/extension/recording/recordings-tree.ts';
import { applyRecordingVariables, recordingVariables } from '../../src/common/recording-environment.ts';
import { activatePackScope, commitHistory, git, runGit, until } from './support.ts';

/** 12 commits editing two text files, packed with deltas: `log --raw` reads trees, `log -p` blobs too. */
function makeRepository(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-recording-test-'));
  commitHistory(
    dir,
    12,
    (c) => `2024-02-${String(c).padStart(2, '0')}T12:00:00Z`,
    (c) => {
      const lines: string[] = [];
      for (let i = 0; i < 200 + c * 15; i++)
        lines.push(`line ${i}: ${'recorded '.repeat((i % 4) + 1)}${i % 11 === c % 11 ? `change ${c}` : ''}`);
      fs.writeFileSync(path.join(dir, 'a.txt'), `${lines.join('\n')}\n`);
      fs.mkdirSync(path.join(dir, 'src'), { recursive: true });
      fs.writeFileSync(path.join(dir, 'src', `b.txt`), `${lines.reverse().join('\n')}\n`);
    },
  );
  git(dir, 'repack', '-adfq');
  return dir;
}

/** Lines of a GIT_TRACE_PACK_ACCESS log (`… <path>.pack <offset>`), in total and per git command (GIT_TRACE's `built-in` lines). */
function packReads(file: string): { total: number; byCommand: Map<string, number> } {
  const byCommand = new Map<string, number>();
  let command = '(before any command)';
  let total = 0;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const builtin = / trace: built-in: (git .*)$/.exec(line);
    if (builtin !== null) {
      command = builtin[1]!;
      continue;
    }
    if (/\.pack \d+$/.test(line)) {
      total += 1;
      byCommand.set(command, (byCommand.get(command) ?? 0) + 1);
    }
  }
  return { total, byCommand };
}

/** The same command run here, with the recording variables over this process's environment. */
function referenceReads(repo: string, args: string[], mode: 'exact' | 'passive'): number {
  const trace = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-reference-')), 'reference.trace');
  try {
    const env = applyRecordingVariables(process.env, recordingVariables(process.env, trace, mode));
    execFileSync('git', args, { cwd: repo, env, stdio: 'ignore', maxBuffer: 64 << 20 });
    return fs.existsSync(trace) ? packReads(trace).total : 0;
  } finally {
    fs.rmSync(path.dirname(trace), { recursive: true, force: true });
  }
}

function collectionEntries(
  collection: vscode.EnvironmentVariableCollection,
): Map<string, vscode.EnvironmentVariableMutator> {
  const entries = new Map<string, vscode.EnvironmentVariableMutator>();
  collection.forEach((name, mutator) => entries.set(name, mutator));
  return entries;
}

function labelOf(node: vscode.TreeItem): string {
  return typeof node.label === 'string' ? node.label : (node.label?.label ?? '');
}

describe('Recording: terminal recording, Record a Git Command, the Recordings view', function () {
  this.timeout(120_000);
  let api: PackScopeApi;
  let repo: string;

  const recording = (): PackScopeApi['recording'] => api.recording;
  const nodeFor = async (file: string): Promise<RecordingNode | undefined> =>
    (await recording().recordingsTree.recordingNodes()).find((node) => node.stored.file === file);

  /** What the recordings folder holds (for failure messages). */
  const listing = (): string => {
    const dir = recording().directory;
    return `${dir}: ${
      fs.existsSync(dir)
        ? fs
            .readdirSync(dir)
            .map((name) => `${name} (${fs.statSync(path.join(dir, name)).size})`)
            .join(', ')
        : 'missing'
    }`;
  };

  before(async function () {
    this.timeout(120_000);
    ({ api } = await activatePackScope());
    await api.ready;
    repo = fs.realpathSync(makeRepository());
    const config = vscode.workspace.getConfiguration('packscope');
    await config.update('repositories', [repo], vscode.ConfigurationTarget.Global);
    await config.update('recording.mode', undefined, vscode.ConfigurationTarget.Global);
    await until('the test repository in the Packs view', async () => {
      await api.packsTree.refreshAll();
      return api.packsTree
        .repositoryNodes()
        .find((node) => node.listing.workTree !== undefined && fs.realpathSync(node.listing.workTree) === repo);
    });
    if (recording().isOn) await recording().stop();
  });

  after(async () => {
    if (api !== undefined && recording().isOn) await recording().stop();
    const config = vscode.workspace.getConfiguration('packscope');
    await config.update('repositories', undefined, vscode.ConfigurationTarget.Global);
    await config.update('recording.mode', undefined, vscode.ConfigurationTarget.Global);
    if (repo !== undefined) fs.rmSync(repo, { recursive: true, force: true });
  });

  it('puts exactly the recording variables in the terminal environment while on, and none after', async () => {
    assert.equal(recording().isOn, false);
    assert.equal(collectionEntries(recording().environment).size, 0);
    assert.equal(recording().statusText, '$(circle-outline) PackScope: not recording');
    assert.equal(recording().environment.persistent, false);

    await vscode.commands.executeCommand('packscope.toggleRecording');
    assert.equal(recording().isOn, true);
    assert.equal(recording().mode, 'exact');
    assert.equal(recording().statusText, '$(record) PackScope: recording (exact)');
    const live = recording().currentTraceFile;
    assert.ok(
      live !== undefined && live.startsWith(path.join(recording().directory, 'live-')) && live.endsWith('.trace'),
      live,
    );
    assert.ok(path.resolve(live).startsWith(path.resolve(recording().directory)));

    const userCount = Number(process.env.GIT_CONFIG_COUNT ?? '0') || 0;
    const expected = new Map<string, string>([['GIT_TRACE_PACK_ACCESS', live]]);
    if (!process.env.GIT_TRACE) expected.set('GIT_TRACE', live);
    if (!process.env.GIT_TRACE_SETUP) expected.set('GIT_TRACE_SETUP', live);
    if (!process.env.GIT_TRACE_PERFORMANCE) expected.set('GIT_TRACE_PERFORMANCE', live);
    expected.set('GIT_CONFIG_COUNT', String(userCount + 1));
    expected.set(`GIT_CONFIG_KEY_${userCount}`, 'core.deltaBaseCacheLimit');
    expected.set(`GIT_CONFIG_VALUE_${userCount}`, '0');
    if (process.env.GIT_TRACE_BARE !== undefined) expected.set('GIT_TRACE_BARE', '');
    const entries = collectionEntries(recording().environment);
    assert.deepEqual(new Map([...entries].map(([name, mutator]) => [name, mutator.value])), expected);
    for (const [name, mutator] of entries)
      assert.equal(mutator.type, vscode.EnvironmentVariableMutatorType.Replace, name);
    assert.ok(recording().environment.description !== undefined);

    await vscode.commands.executeCommand('packscope.toggleRecording');
    assert.equal(recording().isOn, false);
    assert.equal(collectionEntries(recording().environment).size, 0);
    assert.equal(recording().statusText, '$(circle-outline) PackScope: not recording');

    // Passive mode: the access log and GIT_TRACE only, git keeps the user's own cache limit.
    await vscode.workspace
      .getConfiguration('packscope')
      .update('recording.mode', 'passive', vscode.ConfigurationTarget.Global);
    await recording().toggle();
    try {
      assert.equal(recording().statusText, '$(record) PackScope: recording (passive)');
      const passive = collectionEntries(recording().environment);
      assert.deepEqual(
        [...passive.keys()].sort(),
        [...expected.keys()].filter((name) => !name.startsWith('GIT_CONFIG_')).sort(),
      );
    } finally {
      await recording().stop();
      await vscode.workspace
        .getConfiguration('packscope')
        .update('recording.mode', undefined, vscode.ConfigurationTarget.Global);
    }
    assert.equal(collectionEntries(recording().environment).size, 0);
  });

  it('records git log --raw run in a real terminal with exactly the reads GIT_TRACE_PACK_ACCESS gives', async () => {
    await recording().toggle();
    const live = recording().currentTraceFile!;
    const terminal = vscode.window.createTerminal({ name: 'PackScope recording test', cwd: repo });
    const closed = new Promise<void>((resolve) => {
      const subscription = vscode.window.onDidCloseTerminal((t) => {
        if (t === terminal) {
          subscription.dispose();
          resolve();
        }
      });
    });
    terminal.sendText('git log --raw >/dev/null; exit');
    await Promise.race([
      closed,
      new Promise((_, reject) => setTimeout(() => reject(new Error('the terminal did not close within 60 s')), 60_000)),
    ]);
    assert.ok(fs.existsSync(live), `git wrote nothing to ${live}`);
    const file = await recording().stop();
    assert.ok(
      file !== undefined && fs.existsSync(file) && !fs.existsSync(live),
      `stop gave ${file}; live file still there: ${fs.existsSync(live)}; ${listing()}`,
    );

    const recorded = packReads(file);
    const expected = referenceReads(repo, ['log', '--raw'], 'exact');
    assert.ok(expected > 0);
    assert.equal(
      recorded.byCommand.get('git log --raw'),
      expected,
      `recorded per command: ${JSON.stringify([...recorded.byCommand])}`,
    );

    const info = await recording().recordingInfo(file);
    assert.equal(info.reads, recorded.total);
    const segment = info.segments.find((s) => s.command === 'git log --raw');
    assert.ok(segment, `segments: ${JSON.stringify(info.segments)}`);
    assert.equal(segment.reads, expected);

    const node = await until('the terminal recording in the Recordings view', () => nodeFor(file));
    assert.match(labelOf(node), /^terminal session /);
    assert.match(String(node.description), new RegExp(`^${info.reads} reads · 1 pack · limit 0 · exact$`));
    assert.equal(fs.realpathSync(node.parent.repository!), fs.realpathSync(path.join(repo, '.git')));
    const segments = node.children();
    const logSegment = segments.find((child) => labelOf(child) === 'git log --raw');
    assert.ok(logSegment, `segments in the view: ${segments.map(labelOf).join(', ')}`);
    assert.equal(logSegment.description, `${expected} reads`);
  });

  it('rotates the live file: each part is a recording, every git command whole in one of them', async () => {
    await recording().toggle();
    // Git run as a terminal would run it: with the collection's variables.
    const env: NodeJS.ProcessEnv = { ...process.env };
    recording().environment.forEach((name, mutator) => (env[name] = mutator.value));
    runGit(repo, ['log', '--raw'], env);
    const first = recording().rotate();
    assert.ok(first !== undefined, `rotate gave nothing; ${listing()}`);
    runGit(repo, ['rev-list', '--objects', '--all'], env);
    const second = await recording().stop();
    assert.ok(second !== undefined && second !== first);
    assert.deepEqual([...packReads(first).byCommand.keys()], ['git log --raw']);
    assert.deepEqual([...packReads(second).byCommand.keys()], ['git rev-list --objects --all']);
    assert.equal(packReads(first).total, referenceReads(repo, ['log', '--raw'], 'exact'));
    const labels = await until('both parts in the Recordings view', async () => {
      const nodes = await Promise.all([nodeFor(first), nodeFor(second)]);
      return nodes.every((node) => node !== undefined) ? nodes.map((node) => labelOf(node!)) : undefined;
    });
    assert.match(labels[1]!, /\(part 2\)$/);
    for (const file of [first, second])
      await vscode.commands.executeCommand('packscope.recordings.delete', { file }, { confirmed: true });
  });

  it('leaves no live file at stop; a late writer’s trace becomes the session’s next part, in its mode', async () => {
    await recording().toggle();
    const live = recording().currentTraceFile!;
    const env: NodeJS.ProcessEnv = { ...process.env };
    recording().environment.forEach((name, mutator) => (env[name] = mutator.value));
    runGit(repo, ['log', '--raw'], env);
    const first = await recording().stop();
    assert.ok(first !== undefined, listing());
    const lives = (): string[] => fs.readdirSync(recording().directory).filter((name) => name.startsWith('live-'));
    assert.deepEqual(lives(), [], `a live file beside the finished recording: ${listing()}`);
    // A terminal that kept the variables after the stop: git writes the live path again.
    runGit(repo, ['rev-list', '--objects', '--all'], env);
    assert.deepEqual(lives(), [path.basename(live)]);
    const second = first.replace(/-1\.trace$/, '-2.trace');
    assert.notEqual(second, first);
    await until('the late part in the Recordings view', () => nodeFor(second));
    assert.deepEqual(lives(), [], listing());
    const sidecar = (file: string): { mode: string; part?: number; session?: string } =>
      JSON.parse(fs.readFileSync(`${file}.json`, 'utf8')) as { mode: string; part?: number; session?: string };
    assert.equal(sidecar(second).mode, sidecar(first).mode);
    assert.equal(sidecar(second).session, sidecar(first).session);
    assert.equal(sidecar(second).part, 2);
    assert.equal(
      packReads(second).total,
      referenceReads(repo, ['rev-list', '--objects', '--all'], sidecar(first).mode as 'exact' | 'passive'),
    );
    for (const file of [first, second])
      await vscode.commands.executeCommand('packscope.recordings.delete', { file }, { confirmed: true });
  });

  it('records a git command through packscope.recordCommand, lists it, renames and deletes it', async () => {
    const args = ['log', '-p'];
    const result = await vscode.commands.executeCommand<RecordCommandResult | undefined>('packscope.recordCommand', {
      repository: repo,
      args,
    });
    assert.ok(result !== undefined, 'packscope.recordCommand returned nothing (see the PackScope log)');
    assert.ok(result.file.startsWith(recording().directory) && result.file.endsWith('.recording'));
    const expected = referenceReads(repo, args, 'exact');
    assert.ok(expected > 0);
    assert.equal(result.info.reads, expected);
    assert.equal(result.info.mode, 'exact');
    assert.equal(result.info.recordedLimit, 0);

    const node = await until('the recording in the Recordings view', () => nodeFor(result.file));
    assert.equal(labelOf(node), 'git log -p');
    assert.equal(node.description, `${expected} reads · 1 pack · limit 0 · exact`);
    assert.equal(node.contextValue, 'recording');

    // The context menu offers the Cache Lab and the locality report on recordings and their segments.
    const menus = (
      vscode.extensions.getExtension('packscope.packscope')!.packageJSON as {
        contributes: { menus: Record<string, { command: string; when: string }[]> };
      }
    ).contributes.menus;
    for (const command of [
      'packscope.recordings.openCacheLab',
      'packscope.recordings.localityReport',
      'packscope.recordings.rename',
      'packscope.recordings.delete',
      'packscope.recordings.revealFile',
    ]) {
      assert.ok(
        menus['view/item/context']!.some(
          (entry) => entry.command === command && entry.when.includes('view == packscope.recordings'),
        ),
        command,
      );
    }
    assert.ok((await vscode.commands.getCommands(true)).includes('packscope.recordings.openCacheLab'));

    await vscode.commands.executeCommand('packscope.recordings.rename', node, 'log with patches');
    const renamed = await until('the new name', async () => {
      const again = await nodeFor(result.file);
      return again !== undefined && labelOf(again) === 'log with patches' ? again : undefined;
    });
    assert.ok(fs.existsSync(result.file), 'Rename keeps the file where it is');
    assert.equal(JSON.parse(fs.readFileSync(`${result.file}.json`, 'utf8')).label, 'log with patches');

    // Open in Cache Lab / Locality Report call packscope.openCacheLab with { file, segment?, tab }.
    await vscode.commands.executeCommand('packscope.recordings.localityReport', renamed);
    const panel = await until('the Cache Lab on the recording', () => api.cacheLab.panel);
    assert.equal(panel.state.recording, result.file);
    assert.equal(panel.state.tab, 'locality');
    const segment = renamed.children()[0];
    if (segment !== undefined) {
      await vscode.commands.executeCommand('packscope.recordings.openCacheLab', segment);
      await until('the Cache Lab on the segment', () =>
        api.cacheLab.panel?.state.segment === 1 && api.cacheLab.panel.state.tab === 'sweep' ? true : undefined,
      );
    }
    api.cacheLab.panel?.dispose();

    const deleted = await vscode.commands.executeCommand<boolean>('packscope.recordings.delete', renamed, {
      confirmed: true,
    });
    assert.equal(deleted, true);
    assert.equal(fs.existsSync(result.file), false);
    assert.equal(fs.existsSync(`${result.file}.json`), false);
    assert.equal(await nodeFor(result.file), undefined);
  });
});
