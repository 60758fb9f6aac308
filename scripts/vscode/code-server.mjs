// A real VS Code workbench for `npm start` and the e2e tests, without downloading VS Code.
//
// VS Code itself comes from code-server, installed from the npm registry tarball (not with
// `npm install code-server`, whose postinstall needs GitHub): its three dependency trees are
// installed with --ignore-scripts, its native modules are rebuilt from source, and ripgrep comes
// from Debian. The workbench runs in Debian's Chromium, driven by playwright-core; extensions run
// in code-server's Node extension host (a `node` process on the server, not a web worker).
//
// Node built-ins only, except playwright-core, which launchBrowser() imports on demand (it is a
// devDependency of the project).
//
// Everything installed lives in a per-user cache outside the repository:
//   $PACKSCOPE_HARNESS_DIR, else $XDG_CACHE_HOME/packscope, else ~/.cache/packscope
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import util from 'node:util';

// code-server 4.100.3 is the newest release whose package.json says engines.node "20" (4.103+ want
// Node 22, 4.133+ Node 24), and the project runs on Node 20. It bundles VS Code 1.100.3, which
// satisfies package.json's engines.vscode "^1.100.0" (a newer engines.vscode would stop the
// extension from loading). It has no git dependencies in its lockfiles, so the registry is enough.
export const CODE_SERVER_VERSION = '4.100.3';

/** Chromium from Debian (`npx playwright install` cannot download here); PACKSCOPE_CHROMIUM overrides. */
export const CHROMIUM = process.env.PACKSCOPE_CHROMIUM || '/usr/bin/chromium';
const RG = '/usr/bin/rg';
const CHROME_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
const MARKER = '.packscope-install-complete';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The per-user cache directory of the harness (never inside the repository). */
export function harnessDir() {
  if (process.env.PACKSCOPE_HARNESS_DIR) return path.resolve(process.env.PACKSCOPE_HARNESS_DIR);
  const cache = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(cache, 'packscope');
}

export function codeServerDir() {
  return path.join(harnessDir(), `code-server-${CODE_SERVER_VERSION}`);
}

// ------------------------------------------------------------------ processes we started
// Every server process group and browser this module starts is recorded here, so that a
// SIGINT/SIGTERM or an exit in the middle of a run still ends them.
const liveGroups = new Set();
const liveBrowsers = new Set();
let signalsInstalled = false;

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Ends every server group and browser started here when the process gets SIGINT/SIGTERM (then exits
 * with 128+signal) or exits. `onSignal` runs first (for a caller's own clean-up).
 */
export function installSignalCleanup(onSignal) {
  if (signalsInstalled) return;
  signalsInstalled = true;
  process.on('exit', () => {
    for (const pid of liveGroups) killGroup(pid, 'SIGKILL');
  });
  const handler = (signal) => {
    void (async () => {
      try {
        await onSignal?.(signal);
      } catch {
        /* best effort */
      }
      await Promise.allSettled([...liveBrowsers].map((b) => b.close()));
      await Promise.allSettled([...liveGroups].map((pid) => stopGroup(pid)));
      process.exit(signal === 'SIGINT' ? 130 : 143);
    })();
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
}

async function stopGroup(pid) {
  killGroup(pid, 'SIGTERM');
  for (let i = 0; i < 50; i++) {
    if (!killGroup(pid, 0)) {
      liveGroups.delete(pid);
      return;
    }
    await sleep(100);
  }
  killGroup(pid, 'SIGKILL');
  for (let i = 0; i < 20 && killGroup(pid, 0); i++) await sleep(50);
  liveGroups.delete(pid);
}

// ------------------------------------------------------------------ running commands quietly
/** Runs a command with its output appended to `logFile`; rejects with the log's tail on failure. */
function run(cmd, args, { cwd, env, logFile }) {
  return new Promise((resolve, reject) => {
    fs.appendFileSync(logFile, `\n$ (cd ${cwd} && ${cmd} ${args.join(' ')})\n`);
    const fd = fs.openSync(logFile, 'a');
    const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] });
    fs.closeSync(fd);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (code === 0) return resolve();
      const tail = fs.readFileSync(logFile, 'utf8').split('\n').slice(-25).join('\n');
      reject(
        new Error(
          `${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}) in ${cwd}\n` +
            `--- last lines of ${logFile} ---\n${tail}`,
        ),
      );
    });
  });
}

function which(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).status === 0;
}

// ------------------------------------------------------------------ system packages
/** What the VS Code harness needs from Debian: Chromium, ripgrep (VS Code's search), and native module builds. */
export const BROWSER_AND_TOOLS = [
  { file: CHROMIUM, pkg: 'chromium' },
  { file: RG, pkg: 'ripgrep' },
  { command: 'python3', pkg: 'python3' },
  { command: 'make', pkg: 'make' },
  { command: 'g++', pkg: 'g++' },
];

/**
 * Debian packages, each shown installed by a `file` or a `command` on PATH. Missing ones are
 * installed with apt-get when `install` and root; otherwise this throws with the command to run.
 */
export async function ensureDebianPackages(needs, { log = console.log, install = true } = {}) {
  const missing = needs
    .filter(({ file, command }) => (file ? !fs.existsSync(file) : !which(command)))
    .map((n) => n.pkg);
  if (!missing.length) return;
  const cmd = `apt-get install -y ${missing.join(' ')}`;
  if (!install || typeof process.getuid !== 'function' || process.getuid() !== 0 || !which('apt-get')) {
    const what = needs
      .filter((n) => missing.includes(n.pkg))
      .map((n) => `${n.pkg} (${n.file ?? n.command})`)
      .join(', ');
    throw new Error(
      `packscope: missing ${what}.
` +
        (install
          ? `Install them as root, for example:\n  sudo apt-get update && sudo ${cmd}\n`
          : `The setup step installs them (as root): node scripts/ensure-test-tools.mjs\n`) +
        `(PACKSCOPE_CHROMIUM may point at another Chromium), then run this again.`,
    );
  }
  fs.mkdirSync(harnessDir(), { recursive: true });
  const logFile = path.join(harnessDir(), 'apt.log');
  const t = Date.now();
  log(`packscope: installing ${missing.join(', ')} with apt-get (log: ${logFile})…`);
  const env = { DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update', '-q'], { cwd: '/', env, logFile });
  await run('apt-get', ['install', '-y', '-q', ...missing], { cwd: '/', env, logFile });
  const still = needs.filter(({ file, command }) => (file ? !fs.existsSync(file) : !which(command)));
  if (still.length)
    throw new Error(
      `apt-get finished but ${still.map((n) => n.file ?? n.command).join(', ')} is missing; see ${logFile}`,
    );
  log(`packscope: apt-get done in ${((Date.now() - t) / 1000).toFixed(1)} s`);
}

/** The harness's Debian packages (BROWSER_AND_TOOLS) and any `extra` ones, for `npm start` and the bench. */
export function ensureBrowserAndTools({ log = console.log, extra = [] } = {}) {
  return ensureDebianPackages([...BROWSER_AND_TOOLS, ...extra], { log });
}

// ------------------------------------------------------------------ code-server
/** mkdir-based lock: only one process installs; the others wait for it. Stale locks (dead pid) are taken over. */
async function withLock(lockDir, log, fn) {
  const deadline = Date.now() + 20 * 60_000;
  let told = false;
  for (;;) {
    try {
      fs.mkdirSync(lockDir);
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid));
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      let pid = NaN;
      try {
        pid = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'));
      } catch {
        /* being written */
      }
      let alive = true;
      if (Number.isInteger(pid) && pid > 0) {
        try {
          process.kill(pid, 0);
        } catch (err) {
          alive = err.code === 'EPERM';
        }
      } else if (Date.now() - fs.statSync(lockDir, { throwIfNoEntry: false })?.mtimeMs > 60_000) alive = false;
      if (!alive) {
        fs.rmSync(lockDir, { recursive: true, force: true });
        continue;
      }
      if (!told) {
        log(`packscope: waiting for another process (pid ${pid}) installing code-server…`);
        told = true;
      }
      if (Date.now() > deadline) throw new Error(`timed out waiting for the lock ${lockDir}`);
      await sleep(1000);
    }
  }
  const release = () => fs.rmSync(lockDir, { recursive: true, force: true });
  process.once('exit', release);
  try {
    return await fn();
  } finally {
    release();
    process.removeListener('exit', release);
  }
}

/**
 * Installs code-server CODE_SERVER_VERSION into the cache (once; fast when done) and returns its
 * directory. The marker file is written last, so an interrupted install is redone from scratch.
 * With `install: false` (the tests: only their setup step installs), a missing one is an error.
 */
export async function ensureCodeServer({ log = console.log, install = true } = {}) {
  const dir = codeServerDir();
  if (fs.existsSync(path.join(dir, MARKER))) return dir;
  if (!install)
    throw new Error(
      `packscope: code-server ${CODE_SERVER_VERSION} is not installed in ${dir}; ` +
        'the setup step installs it: node scripts/ensure-test-tools.mjs e2e',
    );
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) {
    throw new Error(
      `code-server ${CODE_SERVER_VERSION} needs Node 20 (its engines.node), this is Node ${process.versions.node}`,
    );
  }
  fs.mkdirSync(harnessDir(), { recursive: true });
  return withLock(`${dir}.lock`, log, async () => {
    if (fs.existsSync(path.join(dir, MARKER))) return dir; // another process finished meanwhile
    await installCodeServer(dir, log);
    return dir;
  });
}

async function installCodeServer(dir, log) {
  const cache = harnessDir();
  const logFile = path.join(cache, `code-server-${CODE_SERVER_VERSION}-install.log`);
  fs.writeFileSync(logFile, `install of code-server ${CODE_SERVER_VERSION}, ${new Date().toISOString()}\n`);
  const t0 = Date.now();
  const step = (msg) => log(`packscope: [${((Date.now() - t0) / 1000).toFixed(0).padStart(3)} s] ${msg}`);
  log(
    `packscope: installing code-server ${CODE_SERVER_VERSION} (VS Code 1.100.3) into ${dir}; about a minute, once (log: ${logFile})`,
  );
  // node-gyp builds against the running Node's headers; point it at them when npm is not
  // configured (`nodedir`), so that it does not try to download headers.
  const env = { npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  const prefix = path.dirname(path.dirname(process.execPath));
  if (!process.env.npm_config_nodedir && fs.existsSync(path.join(prefix, 'include', 'node', 'node.h'))) {
    const configured = spawnSync('npm', ['config', 'get', 'nodedir'], { encoding: 'utf8' }).stdout.trim();
    if (!configured || configured === 'undefined' || configured === 'null') env.npm_config_nodedir = prefix;
  }
  const npm = (cwd, args, extra = {}) =>
    run('npm', [...args, '--loglevel=error'], { cwd, env: { ...env, ...extra }, logFile });

  step('1/6 npm pack code-server (40 MB)');
  const downloads = path.join(cache, 'downloads');
  fs.mkdirSync(downloads, { recursive: true });
  const tgz = path.join(downloads, `code-server-${CODE_SERVER_VERSION}.tgz`);
  if (!fs.existsSync(tgz)) {
    const tmp = fs.mkdtempSync(path.join(downloads, 'pack-'));
    try {
      await npm(tmp, ['pack', `code-server@${CODE_SERVER_VERSION}`]);
      fs.renameSync(path.join(tmp, `code-server-${CODE_SERVER_VERSION}.tgz`), tgz);
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  await run('tar', ['xzf', tgz, '-C', dir, '--strip-components=1'], { cwd: dir, logFile });
  for (const lock of [
    'npm-shrinkwrap.json',
    'lib/vscode/npm-shrinkwrap.json',
    'lib/vscode/extensions/npm-shrinkwrap.json',
  ]) {
    if (/"resolved": "git/.test(fs.readFileSync(path.join(dir, lock), 'utf8'))) {
      throw new Error(
        `${lock} of code-server ${CODE_SERVER_VERSION} has a git dependency, which cannot be fetched here`,
      );
    }
  }

  // --ignore-scripts skips code-server's postinstall (a nested npm install that needs GitHub) and
  // every download-on-install script (@vscode/ripgrep, node-pre-gyp, prebuild-install).
  const vscode = path.join(dir, 'lib', 'vscode');
  const installArgs = ['--omit=dev', '--ignore-scripts'];
  step('2/6 npm ci: code-server');
  await npm(dir, ['ci', ...installArgs]);
  step('3/6 npm install: lib/vscode');
  // `install`, not `ci`: some shrinkwraps lack peer dependencies npm 11 adds (tslib for 4.96).
  await npm(vscode, ['install', ...installArgs]);
  step('4/6 npm ci: lib/vscode/extensions');
  await npm(path.join(vscode, 'extensions'), ['ci', ...installArgs]);
  await run(process.execPath, ['postinstall.mjs'], { cwd: path.join(vscode, 'extensions'), logFile }); // trims bundled TypeScript

  step('5/6 build native modules (argon2, spdlog, native-watchdog, node-pty, deviceid, parcel watcher)');
  // argon2 is required at startup even with --auth none; build it instead of downloading a prebuild.
  await npm(dir, ['rebuild', 'argon2'], { npm_config_build_from_source: 'true' });
  // npm_config_yes: node-pty's postinstall runs `npx node-gyp configure …`, which npx cancels
  // with yes=false. Not built: kerberos (proxy auth, needs libkrb5-dev), @vscode/windows-*,
  // @vscode/ripgrep (Debian's rg is linked in below).
  await npm(
    vscode,
    ['rebuild', '@vscode/spdlog', 'native-watchdog', 'node-pty', '@vscode/deviceid', '@parcel/watcher'],
    { npm_config_yes: 'true' },
  );

  step("6/6 ripgrep and the links code-server's postinstall makes; smoke check");
  const rgBin = path.join(vscode, 'node_modules', '@vscode', 'ripgrep', 'bin');
  fs.mkdirSync(rgBin, { recursive: true });
  const link = (target, at) => {
    fs.rmSync(at, { force: true });
    fs.symlinkSync(target, at);
  };
  link(RG, path.join(rgBin, 'rg'));
  link('node_modules', path.join(vscode, 'node_modules.asar'));
  link('code-linux.sh', path.join(vscode, 'bin', 'remote-cli', 'code-server'));
  link('browser-linux.sh', path.join(vscode, 'bin', 'helpers', 'browser.sh'));

  await run(process.execPath, ['-e', 'require("argon2")'], { cwd: dir, logFile });
  await run(
    process.execPath,
    [
      '-e',
      'for (const m of ["node-pty", "@vscode/spdlog", "native-watchdog", "@parcel/watcher", "@vscode/deviceid"]) require(m)',
    ],
    { cwd: vscode, logFile },
  );
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-cs-smoke-'));
  try {
    await run(process.execPath, [path.join(dir, 'out', 'node', 'entry.js'), '--version'], {
      cwd: dir,
      env: { HOME: home, XDG_CONFIG_HOME: home, XDG_DATA_HOME: home },
      logFile,
    });
  } finally {
    fs.rmSync(home, { recursive: true, force: true });
  }

  fs.writeFileSync(path.join(dir, MARKER), `${new Date().toISOString()}\n`);
  step(`code-server ${CODE_SERVER_VERSION} installed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

// ------------------------------------------------------------------ the workbench server
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** True when nothing listens on 127.0.0.1:port yet. */
export function portIsFree(port) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.on('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export function httpGet(url) {
  return new Promise((resolve) => {
    const req = http.get(url, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => {
        if (body.length < 200_000) body += c;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.setTimeout(5000, () => req.destroy());
  });
}

/** Folder URL as VS Code's web workbench reads it (slashes left readable). */
function folderQuery(folder) {
  return encodeURIComponent(folder).replace(/%2F/g, '/');
}

/**
 * Starts one code-server on 127.0.0.1 with its own user data, extensions, HOME and XDG dirs under
 * `stateDir` (default `outDir`; logs always in `outDir`), and waits until /healthz answers.
 *
 * - `installExtensionFrom`: an extension folder, symlinked into the extensions dir as
 *   `<publisher>.<name>-<version>` (the "installed" way; the extensions dir is emptied first).
 * - `extensionDevelopmentPath`: an extension folder loaded the `--extensionDevelopmentPath` way
 *   (code-server's CLI rejects that option; the workbench URL's `payload` carries it, see url()).
 * - `userSettings`: merged over the harness's quiet defaults.
 * - `preserveUserData`: keep an existing settings.json and the user data (npm start).
 * - `workspaceTrust`: VS Code's workspace trust on, without its start-up question, so that the
 *   folder opens in Restricted Mode (the harness turns trust off otherwise).
 *
 * Returns { url(payload?), base, port, remoteUri(path), stop(), dir, logFile, pid, startedAt, listenMs }.
 */
export async function startWorkbench({
  name = 'workbench',
  workspaceFolder,
  extensionDevelopmentPath,
  installExtensionFrom,
  userSettings = {},
  outDir,
  stateDir,
  port,
  preserveUserData = false,
  workspaceTrust = false,
  codeServer = codeServerDir(),
  env = {},
  log = () => {},
}) {
  if (!outDir) throw new Error('startWorkbench: outDir is required');
  if (!fs.existsSync(path.join(codeServer, MARKER)))
    throw new Error(`code-server is not installed in ${codeServer}; call ensureCodeServer() first`);
  const dir = path.resolve(outDir);
  // User data, HOME and XDG dirs: under stateDir when given. The tests give one outside the checkout:
  // PackScope refuses to write recordings or models inside any repository, and the checkout is one.
  const state = stateDir ? path.resolve(stateDir) : dir;
  fs.mkdirSync(dir, { recursive: true }); // logs and config.yaml stay here
  const data = path.join(state, 'user-data'),
    exts = path.join(state, 'extensions');
  const home = path.join(state, 'home'),
    xdg = path.join(state, 'xdg');
  if (!preserveUserData) fs.rmSync(data, { recursive: true, force: true });
  fs.rmSync(exts, { recursive: true, force: true }); // a stale extensions.json would hide manifest changes
  for (const d of [path.join(data, 'User'), exts, home, xdg]) fs.mkdirSync(d, { recursive: true });

  const settingsFile = path.join(data, 'User', 'settings.json');
  if (!preserveUserData || !fs.existsSync(settingsFile)) {
    fs.writeFileSync(
      settingsFile,
      JSON.stringify(
        {
          'workbench.startupEditor': 'none',
          'workbench.tips.enabled': false,
          'telemetry.telemetryLevel': 'off',
          'extensions.autoCheckUpdates': false,
          'extensions.autoUpdate': false,
          'update.mode': 'none',
          'security.workspace.trust.enabled': workspaceTrust,
          ...(workspaceTrust ? { 'security.workspace.trust.startupPrompt': 'never' } : {}),
          // DOM renderer: with the default, VS Code 1.100 draws the terminal on a canvas (no text in the DOM).
          'terminal.integrated.gpuAcceleration': 'off',
          ...userSettings,
        },
        null,
        2,
      ),
    );
  }

  if (installExtensionFrom) {
    const extDir = path.resolve(installExtensionFrom);
    const manifest = JSON.parse(fs.readFileSync(path.join(extDir, 'package.json'), 'utf8'));
    fs.symlinkSync(extDir, path.join(exts, `${manifest.publisher}.${manifest.name}-${manifest.version}`));
  }

  port = port ?? (await freePort());
  const config = path.join(dir, 'config.yaml');
  fs.writeFileSync(config, `bind-addr: 127.0.0.1:${port}\nauth: none\ncert: false\n`);
  const logFile = path.join(dir, 'server.log');
  const fd = fs.openSync(logFile, 'w');
  const startedAt = Date.now();
  const child = spawn(
    process.execPath,
    [
      path.join(codeServer, 'out', 'node', 'entry.js'),
      '--config',
      config,
      '--bind-addr',
      `127.0.0.1:${port}`,
      '--auth',
      'none',
      '--user-data-dir',
      data,
      '--extensions-dir',
      exts,
      '--disable-telemetry',
      '--disable-update-check',
      ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--ignore-last-opened',
    ],
    {
      detached: true, // its own process group: stop() ends code-server, its children and the extension host
      stdio: ['ignore', fd, fd],
      // Own HOME/XDG: code-server writes ~/.config/code-server, VS Code ~/.cache/Microsoft/DeveloperTools.
      env: {
        ...process.env,
        HOME: home,
        XDG_CONFIG_HOME: path.join(xdg, 'config'),
        XDG_DATA_HOME: path.join(xdg, 'data'),
        XDG_CACHE_HOME: path.join(xdg, 'cache'),
        EXTENSIONS_GALLERY: '{}',
        ...env,
      },
    },
  );
  fs.closeSync(fd);
  const pid = child.pid;
  liveGroups.add(pid);
  let exited = false;
  child.on('exit', () => {
    exited = true;
  });

  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await stopGroup(pid);
  };

  const base = `http://127.0.0.1:${port}`;
  const tail = () => fs.readFileSync(logFile, 'utf8').split('\n').slice(-15).join('\n');
  try {
    for (let i = 0; ; i++) {
      if ((await httpGet(`${base}/healthz`)).status === 200) break;
      if (exited)
        throw new Error(`code-server (${name}) exited before listening on ${base}; log: ${logFile}\n${tail()}`);
      if (i > 600)
        throw new Error(`code-server (${name}) did not answer ${base}/healthz within 60 s; log: ${logFile}\n${tail()}`);
      await sleep(100);
    }
  } catch (e) {
    await stop();
    throw e;
  }
  const listenMs = Date.now() - startedAt;
  log(`code-server ${name}: pid ${pid} on ${base} after ${listenMs} ms`);

  // Paths in the payload are URIs on the server side: scheme vscode-remote, authority = the
  // host:port the browser uses.
  const remoteUri = (p) => `vscode-remote://127.0.0.1:${port}${path.resolve(p)}`;
  const url = (payload = []) => {
    const all = [
      ...(extensionDevelopmentPath ? [['extensionDevelopmentPath', remoteUri(extensionDevelopmentPath)]] : []),
      ...payload,
    ];
    let u = `${base}/`;
    if (workspaceFolder) u += `?folder=${folderQuery(path.resolve(workspaceFolder))}`;
    if (all.length) u += `${workspaceFolder ? '&' : '?'}payload=${encodeURIComponent(JSON.stringify(all))}`;
    return u;
  };
  return {
    name,
    url,
    base,
    port,
    remoteUri,
    stop,
    dir,
    logFile,
    pid,
    startedAt,
    listenMs,
    workspaceFolder,
    userDataDir: data,
  };
}

// ------------------------------------------------------------------ the browser
/** Debian's Chromium through playwright-core, headless, with its own HOME under `outDir`. */
export async function launchBrowser({ outDir = path.join(harnessDir(), 'browser'), headless = true } = {}) {
  if (!fs.existsSync(CHROMIUM))
    throw new Error(
      `packscope: no Chromium at ${CHROMIUM}; the setup step installs it (node scripts/ensure-test-tools.mjs), ` +
        'or PACKSCOPE_CHROMIUM names another',
    );
  const { chromium } = await import('playwright-core');
  const home = path.join(path.resolve(outDir), 'browser-home');
  fs.mkdirSync(home, { recursive: true });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless,
    args: CHROME_ARGS,
    env: {
      ...process.env,
      HOME: home,
      XDG_CONFIG_HOME: path.join(home, '.config'),
      XDG_CACHE_HOME: path.join(home, '.cache'),
    },
  });
  liveBrowsers.add(browser);
  browser.on('disconnected', () => liveBrowsers.delete(browser));
  return browser;
}

/**
 * A page in a fresh browser context (1400×900) whose console output is saved to
 * `<workbench.dir>/browser-console.log` when the context closes.
 */
export async function newWorkbenchPage(browser, workbench) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  const page = await context.newPage();
  const lines = [];
  page.on('console', (m) => lines.push(`[${m.type()}] ${m.text()}`));
  page.on('pageerror', (e) => lines.push(`[pageerror] ${e.message}`));
  context.on('close', () => {
    try {
      fs.writeFileSync(path.join(workbench.dir, 'browser-console.log'), lines.join('\n') + '\n');
    } catch {
      /* dir gone */
    }
  });
  return { context, page };
}

// ------------------------------------------------------------------ extension-host tests
/**
 * Runs `testsEntry` (a module exporting run(): Promise<void>, e.g. mocha) inside the workbench's Node
 * extension host, the `--extensionTestsPath` way, with `extensionPath` as the extension under
 * development. The workbench reports the result through window.codeAutomationExit (the hook
 * @vscode/test-web uses) and the extension host's console through codeAutomationLog. Lines are
 * printed live through `print` (prefixed; the workbench's own connection chatter only with `verbose` or
 * PACKSCOPE_E2E_VERBOSE=1) and all saved to `<workbench.dir>/extension-tests.log`.
 * Resolves with the exit code; rejects after `timeoutMs`.
 */
// The workbench's own console lines that reach codeAutomationLog along with the extension host's
// (connection set-up, the disabled gallery); kept in the log file, not printed.
const WORKBENCH_NOISE =
  /^(Resolving connection token|Creation of workbench contribution|Resolved connection token|Creating a socket|Ignoring fetching additional builtin extensions|\[Service Worker\]|ChatSessionStore:|Updating additional builtin extensions cache|\s*$)/;

export async function runExtensionTests({
  workbench,
  browser,
  testsEntry,
  extensionPath,
  timeoutMs = 180_000,
  prefix = '  [extension host] ',
  print = console.log,
  verbose = !!process.env.PACKSCOPE_E2E_VERBOSE,
}) {
  const { context, page } = await newWorkbenchPage(browser, workbench);
  const logFile = path.join(workbench.dir, 'extension-tests.log');
  const out = fs.openSync(logFile, 'w');
  let resolveExit;
  const exited = new Promise((r) => {
    resolveExit = r;
  });
  let timer;
  try {
    await page.exposeFunction('codeAutomationLog', (_type, args) => {
      const text = util.format(...(Array.isArray(args) ? args : [args]));
      fs.writeSync(out, text + '\n');
      if (!verbose && WORKBENCH_NOISE.test(text)) return;
      for (const line of text.split('\n')) print(prefix + line);
    });
    await page.exposeFunction('codeAutomationExit', (code) => resolveExit(Number(code)));
    await page.goto(
      workbench.url([
        ['extensionDevelopmentPath', workbench.remoteUri(extensionPath)],
        ['extensionTestsPath', workbench.remoteUri(testsEntry)],
      ]),
    );
    const timeout = new Promise((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `extension tests gave no exit code within ${timeoutMs} ms; ` +
                `logs: ${logFile}, ${workbench.logFile}, ${path.join(workbench.dir, 'browser-console.log')}`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([exited, timeout]);
    } catch (e) {
      await page.screenshot({ path: path.join(workbench.dir, 'extension-tests-TIMEOUT.png') }).catch(() => {});
      throw e;
    }
  } finally {
    clearTimeout(timer);
    fs.closeSync(out);
    await context.close().catch(() => {});
  }
}
