// `npm start [-- path]`: PackScope in a real VS Code (code-server 4.100.3 = VS Code 1.100.3) on
// 127.0.0.1, opened on a folder (default: this checkout), with this checkout installed as the
// extension. Prints the URL to open in a browser and runs until Ctrl+C.
//
// npm start has already run ensure-deps and the build. The first run installs Chromium/ripgrep
// (apt, as root) and code-server (into ~/.cache/packscope), about two minutes; later runs start in
// seconds. State (user data, logs) lives in the cache directory, never in the repository.
//
//   npm start                      this checkout
//   npm start -- /path/to/repo     another folder
//   npm start -- --check [path]    start, wait until the server answers, print the URL, stop
//                                  (also PACKSCOPE_START_SMOKE=1); exit status 0 when it worked
// Environment: PACKSCOPE_PORT (default 8484, or a free port when 8484 is taken),
// PACKSCOPE_HARNESS_DIR (cache directory).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ensureBrowserAndTools,
  ensureCodeServer,
  freePort,
  harnessDir,
  httpGet,
  installSignalCleanup,
  portIsFree,
  startWorkbench,
} from './vscode/code-server.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const DEFAULT_PORT = 8484;

function usage() {
  console.log(
    'usage: npm start [-- [--check] [path]]\n\n' +
      'Starts VS Code (code-server) on 127.0.0.1 with PackScope installed and prints the URL to open.\n' +
      '  path      the folder to open (default: this checkout)\n' +
      '  --check   start, check that the workbench answers, print the URL and stop (also PACKSCOPE_START_SMOKE=1)\n' +
      'Environment: PACKSCOPE_PORT (default 8484 when free), PACKSCOPE_HARNESS_DIR (cache directory).',
  );
}

/** The model cache of the user who runs npm start, as src/core/model/model-store.ts's defaultModelCacheDir finds it. */
function userModelCacheDir() {
  if (process.env.PACKSCOPE_CACHE_DIR) return path.resolve(process.env.PACKSCOPE_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME
    ? path.resolve(process.env.XDG_CACHE_HOME)
    : path.join(os.homedir(), '.cache');
  return path.join(base, 'packscope', 'models');
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    usage();
    return 0;
  }
  const check = args.includes('--check') || process.env.PACKSCOPE_START_SMOKE === '1';
  const positional = args.filter((a) => !a.startsWith('-'));
  const unknown = args.filter((a) => a.startsWith('-') && a !== '--check');
  if (unknown.length || positional.length > 1) {
    usage();
    return 2;
  }
  const target = path.resolve(positional[0] ?? root);
  if (!fs.existsSync(target) || !fs.statSync(target).isDirectory()) {
    console.error(`packscope: ${target} is not a folder`);
    return 2;
  }
  if (!fs.existsSync(path.join(root, 'dist', 'extension.js'))) {
    console.error(
      'packscope: warning: dist/extension.js is missing (the build did not produce the extension); ' +
        "the workbench shows PackScope's views but the extension cannot activate.",
    );
  }

  let stopping = false;
  installSignalCleanup(() => {
    stopping = true;
    console.log('\npackscope: stopping VS Code…');
  });
  await ensureBrowserAndTools({ log: console.log });
  await ensureCodeServer({ log: console.log });

  let port;
  if (process.env.PACKSCOPE_PORT) {
    port = Number(process.env.PACKSCOPE_PORT);
    if (!Number.isInteger(port) || port <= 0 || port > 65535) {
      console.error(`packscope: PACKSCOPE_PORT=${process.env.PACKSCOPE_PORT} is not a port`);
      return 2;
    }
    if (!(await portIsFree(port))) {
      console.error(`packscope: 127.0.0.1:${port} (PACKSCOPE_PORT) is in use`);
      return 1;
    }
  } else {
    port = (await portIsFree(DEFAULT_PORT)) ? DEFAULT_PORT : await freePort();
  }

  // npm start keeps its user data (UI state, settings you change) between runs; --check uses its own
  // throw-away directory so that it can run next to a running `npm start`.
  const outDir = check ? fs.mkdtempSync(path.join(harnessDir(), 'start-check-')) : path.join(harnessDir(), 'start');
  const t = Date.now();
  let workbench;
  try {
    workbench = await startWorkbench({
      name: 'npm start',
      workspaceFolder: target,
      installExtensionFrom: root,
      outDir,
      port,
      preserveUserData: !check,
      // The workbench runs with a HOME and XDG directories of its own; its PackScope keeps models
      // where the CLI and an installed extension do (README: ~/.cache/packscope/models), not in them.
      env: { PACKSCOPE_CACHE_DIR: userModelCacheDir() },
    });
  } catch (e) {
    if (check) fs.rmSync(outDir, { recursive: true, force: true });
    throw e;
  }
  const url = workbench.url();
  if (check) {
    try {
      const page = await httpGet(url);
      if (page.status !== 200 || !/workbench/i.test(page.body)) {
        console.error(`packscope: ${url} answered ${page.status} without a workbench page; log: ${workbench.logFile}`);
        return 1;
      }
      console.log(`packscope: VS Code answered at ${url} after ${Date.now() - t} ms (check only; stopping)`);
      return 0;
    } finally {
      await workbench.stop();
      fs.rmSync(outDir, { recursive: true, force: true });
    }
  }

  console.log(
    `\nPackScope in VS Code (code-server 4.100.3) on ${target}\n\n    ${url}\n\n` +
      `Open that URL in a browser (from another machine: ssh -L ${port}:127.0.0.1:${port} <this host>).\n` +
      `The PackScope icon is in the activity bar. Edits: rebuild (npm run build) and reload the window.\n` +
      `The same engine on the command line: npx packscope --help\n` +
      `Server log: ${workbench.logFile}\nCtrl+C stops it.`,
  );
  // Runs until a signal (installSignalCleanup stops the server's process group) or the server exits.
  // npm 11 does not forward SIGTERM to its script: when npm goes away (we are re-parented), stop too.
  const parent = process.ppid;
  const orphaned = await new Promise((resolve) => {
    const timer = setInterval(() => {
      if (stopping) {
        clearInterval(timer);
        return;
      } // the signal handler stops the server and exits
      if (process.ppid !== parent) {
        clearInterval(timer);
        resolve(true);
        return;
      }
      try {
        process.kill(workbench.pid, 0);
      } catch {
        clearInterval(timer);
        resolve(false);
      }
    }, 1000);
  });
  if (orphaned) {
    await workbench.stop();
    return 143;
  }
  console.error(`packscope: the server exited; see ${workbench.logFile}`);
  await workbench.stop();
  return 1;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`packscope: ${e?.message ?? e}`);
    process.exit(1);
  },
);
