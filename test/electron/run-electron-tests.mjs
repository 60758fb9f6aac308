#!/usr/bin/env node
// The extension-host suite (test/extension/*.test.ts, bundled to dist/test/extension/) in desktop
// VS Code, through @vscode/test-electron, for machines that can download VS Code
// (update.code.visualstudio.com). `npm test` does not run it: there the same suite runs in
// code-server (test/e2e/run.mjs), because VS Code cannot be downloaded on the project's build machine.
//
//   npm run build && node test/electron/run-electron-tests.mjs [workspace-folder]
//   (Linux without a display: xvfb-run -a node test/electron/run-electron-tests.mjs)
//
// Workspace: the argument, else a temporary git repository made with the git CLI (a few commits,
// `git repack -adf`). VS Code version: PACKSCOPE_VSCODE_VERSION, default 1.100.3 (the VS Code that
// code-server 4.100.3 bundles, Node 20 in its extension host, and the floor of engines.vscode);
// "stable" takes the newest. Downloads are cached outside the repository, in
// <harness cache>/vscode-test (see scripts/vscode/code-server.mjs: harnessDir()).
// PACKSCOPE_EXTENSION_TEST_GREP narrows the mocha run.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import testElectron from '@vscode/test-electron';
import { harnessDir } from '../../scripts/vscode/code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const testsEntry = path.join(root, 'dist', 'test', 'extension', 'index.js');

function makeGitRepository(dir) {
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'PackScope test',
    GIT_AUTHOR_EMAIL: 'test@packscope.invalid',
    GIT_COMMITTER_NAME: 'PackScope test',
    GIT_COMMITTER_EMAIL: 'test@packscope.invalid',
  };
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: 'ignore' });
  git('init', '-q', '-b', 'main');
  for (let c = 1; c <= 5; c++) {
    const lines = Array.from(
      { length: 40 + c * 5 },
      (_, i) => `line ${i} ${'packscope '.repeat((i % 7) + 1)}${i % 5 === c % 5 ? `rev ${c}` : ''}`,
    );
    fs.writeFileSync(path.join(dir, 'file.txt'), lines.join('\n') + '\n');
    git('add', '-A');
    git('commit', '-q', '-m', `commit ${c}`);
  }
  git('repack', '-adf', '-q');
}

async function main() {
  if (!fs.existsSync(testsEntry))
    throw new Error(`${path.relative(root, testsEntry)} is missing: run npm run build first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-electron-'));
  try {
    let workspace = process.argv[2] && path.resolve(process.argv[2]);
    if (!workspace) {
      workspace = path.join(tmp, 'repo');
      fs.mkdirSync(workspace);
      makeGitRepository(workspace);
    }
    const cachePath = path.join(harnessDir(), 'vscode-test');
    fs.mkdirSync(cachePath, { recursive: true });
    return await testElectron.runTests({
      version: process.env.PACKSCOPE_VSCODE_VERSION || '1.100.3',
      cachePath,
      extensionDevelopmentPath: root,
      extensionTestsPath: testsEntry,
      extensionTestsEnv: { PACKSCOPE_E2E_REPOSITORY: workspace },
      launchArgs: [
        workspace,
        '--disable-extensions', // other installed extensions; the one under development still loads
        '--disable-workspace-trust',
        '--skip-welcome',
        '--skip-release-notes',
        '--user-data-dir',
        path.join(tmp, 'user-data'),
        '--extensions-dir',
        path.join(tmp, 'extensions'),
      ],
    });
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`test:electron: ${e?.message ?? e}`);
    process.exit(1);
  },
);
