#!/usr/bin/env node
// End-to-end tests in a real VS Code workbench (code-server 4.100.3 = VS Code 1.100.3, its Node
// extension host, Debian's Chromium driven by playwright-core). Needs a built dist/ (npm test builds).
//
//   node test/e2e/run.mjs                       everything: the extension-host suite, then every scenario
//   node test/e2e/run.mjs extension-tests       only the mocha suite of test/extension/ (inside VS Code)
//   node test/e2e/run.mjs workbench …           only the named scenarios (test/e2e/scenarios/<name>.mjs)
//
// Needs Chromium, ripgrep and code-server (in ~/.cache/packscope), which the setup step installs
// (`node scripts/ensure-test-tools.mjs e2e`, about two minutes the first time); without them it fails
// at once and says so. Output is quiet: one line per test, the extension host's
// mocha output, and log paths on failure. Artifacts: test-artifacts/e2e/ (screenshots, server and
// browser logs per scenario).
//
// Environment: PACKSCOPE_E2E_TIMEOUT_MS (per scenario and for the extension-host suite, default
// 180000), PACKSCOPE_EXTENSION_TEST_GREP (mocha grep inside the extension host),
// PACKSCOPE_HARNESS_DIR (cache dir), PACKSCOPE_CHROMIUM (browser binary).
//
// A scenario module exports `async function run({ helpers, browser, outDir, log })` and throws on
// failure; see test/e2e/scenarios/workbench.mjs and the `helpers` object below.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import {
  BROWSER_AND_TOOLS,
  ensureCodeServer,
  ensureDebianPackages,
  installSignalCleanup,
  launchBrowser,
  newWorkbenchPage,
  runExtensionTests,
  startWorkbench,
} from '../../scripts/vscode/code-server.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const scenariosDir = path.join(root, 'test', 'e2e', 'scenarios');
const outRoot = path.join(root, 'test-artifacts', 'e2e');
const testsEntry = path.join(root, 'dist', 'test', 'extension', 'index.js');
const timeoutMs = Number(process.env.PACKSCOPE_E2E_TIMEOUT_MS) || 180_000;

const T0 = Date.now();
const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;
const say = (line) => console.log(`e2e: ${line}`);

// Temporary directories and open workbenches of the running scenario, ended in finally blocks and on signals.
const tempDirs = new Set();
let current = { contexts: new Set(), workbenches: new Set(), pages: new Set() };
async function closeCurrent() {
  const c = current;
  current = { contexts: new Set(), workbenches: new Set(), pages: new Set() };
  await Promise.allSettled([...c.contexts].map((x) => x.close()));
  await Promise.allSettled([...c.workbenches].map((w) => w.stop()));
}
function removeTempDirs() {
  for (const d of tempDirs) fs.rmSync(d, { recursive: true, force: true });
  tempDirs.clear();
}
installSignalCleanup(async () => {
  await closeCurrent();
  removeTempDirs();
});
process.on('exit', removeTempDirs);

function tempDir(prefix) {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), `packscope-e2e-${prefix}-`));
  tempDirs.add(d);
  return d;
}

/**
 * A repository made with the git CLI: `commits` commits of a few growing text files (so that the
 * pack has deltas), then `git repack -adf`: one pack, no loose objects. Returns its work tree.
 */
function makeGitRepository({ commits = 6, files = 3 } = {}) {
  const dir = tempDir('repo');
  const env = {
    ...process.env,
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_AUTHOR_NAME: 'PackScope E2E',
    GIT_AUTHOR_EMAIL: 'e2e@packscope.invalid',
    GIT_COMMITTER_NAME: 'PackScope E2E',
    GIT_COMMITTER_EMAIL: 'e2e@packscope.invalid',
  };
  const git = (...args) =>
    execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  git('init', '-q', '-b', 'main');
  for (let c = 1; c <= commits; c++) {
    for (let f = 1; f <= files; f++) {
      const lines = [];
      for (let i = 0; i < 40 + c * 5; i++)
        lines.push(`file ${f} line ${i}: ${'packscope '.repeat((i % 7) + 1)}${i % 5 === c % 5 ? `rev ${c}` : ''}`);
      fs.writeFileSync(path.join(dir, `file-${f}.txt`), lines.join('\n') + '\n');
    }
    git('add', '-A');
    const date = `2024-01-0${Math.min(c, 9)}T12:00:00Z`;
    execFileSync('git', ['commit', '-q', '-m', `commit ${c}`], {
      cwd: dir,
      env: { ...env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    });
  }
  git('repack', '-adf', '-q');
  return dir;
}

/** What a scenario gets as `helpers`. */
function makeHelpers(scenario, result, browser) {
  return {
    /** The repository root: the extension folder (package.json, dist/). */
    root,
    extensionPath: root,
    makeGitRepository,
    /** A temporary directory, removed after the run. */
    tempDir,
    /**
     * Starts a workbench and opens it in a new page; waits until the workbench is up (status bar)
     * and, when the extension is installed, until the PackScope activity-bar entry is there.
     * - installExtension (default true): the checkout "installed" in the extensions dir (symlink).
     * - developmentPath: load the checkout the --extensionDevelopmentPath way (URL payload) instead.
     * - workspaceTrust: workspace trust on, the folder opened in Restricted Mode.
     * Everything opened here is closed and stopped after the scenario, failed or not.
     */
    async openWorkbench({
      name = scenario,
      workspaceFolder,
      installExtension = true,
      developmentPath = false,
      userSettings,
      payload,
      workspaceTrust,
    } = {}) {
      const workbench = await startWorkbench({
        name,
        workspaceFolder,
        userSettings,
        workspaceTrust,
        outDir: path.join(outRoot, scenario, name),
        stateDir: tempDir(`${scenario}-state`),
        installExtensionFrom: installExtension && !developmentPath ? root : undefined,
        extensionDevelopmentPath: developmentPath ? root : undefined,
      });
      current.workbenches.add(workbench);
      const { context, page } = await newWorkbenchPage(browser, workbench);
      current.contexts.add(context);
      current.pages.add(page);
      await page.goto(workbench.url(payload));
      await page.locator('.monaco-workbench .part.statusbar').waitFor({ timeout: 90_000 });
      if (installExtension || developmentPath) {
        await page
          .locator('.activitybar .action-item .action-label[aria-label^="PackScope"]')
          .waitFor({ state: 'attached', timeout: 90_000 });
      }
      const readyMs = Date.now() - workbench.startedAt;
      result.workbenches.push({ name, listenMs: workbench.listenMs, readyMs });
      return { workbench, page, context, readyMs };
    },
    /** Saves test-artifacts/e2e/<scenario>-<label>.png; returns its path. */
    async screenshot(page, label) {
      const file = path.join(outRoot, `${scenario}-${label}.png`);
      await page.screenshot({ path: file });
      return file;
    },
    /** Clicks an activity-bar entry by its title ("PackScope") unless its container is already shown. */
    async openViewContainer(page, title) {
      const item = page.locator('.activitybar .action-item', {
        has: page.locator(`.action-label[aria-label^="${title}"]`),
      });
      await item.waitFor({ timeout: 30_000 });
      // Clicking the entry of the container already shown would hide the side bar.
      if ((await item.getAttribute('aria-selected')) !== 'true') await item.click();
    },
    /** F1, the command's title, Enter. */
    async runCommand(page, title) {
      await page.keyboard.press('F1');
      const input = page.locator('.quick-input-widget .quick-input-box input');
      await input.waitFor({ state: 'visible', timeout: 20_000 });
      await input.fill(`>${title}`);
      await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first().waitFor({ timeout: 20_000 });
      await page.keyboard.press('Enter');
    },
    /** The message of a notification toast containing `text`, once it is shown. */
    async notification(page, text, timeout = 30_000) {
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: text });
      await toast.waitFor({ timeout });
      return (await toast.locator('.notification-list-item-message').innerText()).trim();
    },
  };
}

function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

async function runExtensionHostSuite(browser) {
  const result = { name: 'extension-tests', workbenches: [] };
  if (!fs.existsSync(testsEntry))
    throw new Error(`${path.relative(root, testsEntry)} is missing: run node scripts/build.mjs first`);
  const repo = makeGitRepository();
  const workbench = await startWorkbench({
    name: 'extension-tests',
    workspaceFolder: repo,
    outDir: path.join(outRoot, 'extension-tests'),
    stateDir: tempDir('extension-tests-state'),
    env: { PACKSCOPE_E2E_REPOSITORY: repo },
  });
  current.workbenches.add(workbench);
  result.logs = [
    workbench.logFile,
    path.join(workbench.dir, 'extension-tests.log'),
    path.join(workbench.dir, 'browser-console.log'),
  ];
  const code = await runExtensionTests({ workbench, browser, testsEntry, extensionPath: root, timeoutMs });
  result.workbenches.push({ name: 'extension-tests', listenMs: workbench.listenMs });
  if (code !== 0) throw Object.assign(new Error(`the extension-host mocha suite exited with code ${code}`), { result });
  return result;
}

/**
 * Scenarios left out of a run that names none, each with the reason; run them by name. Only for a
 * fault outside PackScope that no change here has fixed yet, never for a failing assertion.
 */
const NOT_BY_DEFAULT = new Map(/** @type {[string, string][]} */ ([]));

async function main() {
  const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const scenarioFiles = fs.existsSync(scenariosDir)
    ? fs
        .readdirSync(scenariosDir)
        .filter((f) => f.endsWith('.mjs'))
        .sort()
    : [];
  const names = ['extension-tests', ...scenarioFiles.map((f) => f.replace(/\.mjs$/, ''))];
  for (const n of only) if (!names.includes(n)) throw new Error(`no such e2e test "${n}" (have: ${names.join(', ')})`);
  const selected = only.length ? names.filter((n) => only.includes(n)) : names.filter((n) => !NOT_BY_DEFAULT.has(n));
  if (!only.length)
    for (const [n, why] of NOT_BY_DEFAULT) console.log(`e2e: ${n} not run by default (name it to run it): ${why}`);

  fs.rmSync(outRoot, { recursive: true, force: true });
  fs.mkdirSync(outRoot, { recursive: true });

  let t = Date.now();
  await ensureDebianPackages(BROWSER_AND_TOOLS, { install: false });
  await ensureCodeServer({ install: false });
  const setupMs = Date.now() - t;

  const browser = await launchBrowser({ outDir: outRoot });
  const results = [];
  try {
    for (const name of selected) {
      const result = { name, workbenches: [] };
      t = Date.now();
      try {
        if (name === 'extension-tests') {
          say('extension-tests: mocha in the extension host (dist/test/extension/index.js)');
          Object.assign(
            result,
            await withTimeout(runExtensionHostSuite(browser), timeoutMs + 30_000, 'extension-tests'),
          );
        } else {
          const outDir = path.join(outRoot, name);
          fs.mkdirSync(outDir, { recursive: true });
          result.logs = [outDir];
          const mod = await import(pathToFileURL(path.join(scenariosDir, `${name}.mjs`)).href);
          if (typeof mod.run !== 'function') throw new Error(`${name}.mjs exports no run()`);
          const log = (line) => say(`${name}: ${line}`);
          await withTimeout(
            mod.run({ helpers: makeHelpers(name, result, browser), browser, outDir, log }),
            timeoutMs,
            name,
          );
        }
        result.ok = true;
      } catch (e) {
        result.ok = false;
        result.error = e?.stack || String(e);
        if (e?.result?.logs) result.logs = e.result.logs;
        // The workbench's own logs (the extension host's output channels: PackScope's server log among
        // them) live in its user data, which closeCurrent removes: kept beside the scenario's for the failure.
        for (const workbench of current.workbenches) {
          const logs = workbench.userDataDir && path.join(workbench.userDataDir, 'logs');
          if (!logs || !fs.existsSync(logs)) continue;
          const kept = path.join(outRoot, name, `vscode-logs-${workbench.name}`);
          fs.cpSync(logs, kept, { recursive: true });
          result.logs?.push(kept);
        }
        let i = 0;
        for (const page of current.pages) {
          const file = path.join(outRoot, `${name}-FAILED${i++ ? `-${i}` : ''}.png`);
          await page.screenshot({ path: file }).then(
            () => result.logs?.push(file),
            () => {},
          );
        }
      } finally {
        await closeCurrent();
      }
      result.ms = Date.now() - t;
      results.push(result);
      const ready = result.workbenches
        .filter((w) => w.readyMs)
        .map((w) => `, workbench ready ${secs(w.readyMs)}`)
        .join('');
      say(`${result.ok ? 'PASS' : 'FAIL'} ${name} (${secs(result.ms)}${ready})`);
      if (!result.ok) {
        console.log(
          result.error
            .split('\n')
            .map((l) => `    ${l}`)
            .join('\n'),
        );
        for (const l of result.logs ?? []) console.log(`    see ${path.relative(process.cwd(), l) || l}`);
      }
    }
  } finally {
    await browser.close().catch(() => {});
    removeTempDirs();
  }
  const failed = results.filter((r) => !r.ok);
  fs.writeFileSync(
    path.join(outRoot, 'results.json'),
    JSON.stringify({ setupMs, totalMs: Date.now() - T0, results }, null, 2),
  );
  say(
    `${results.length - failed.length} passed, ${failed.length} failed in ${secs(Date.now() - T0)} ` +
      `(setup ${secs(setupMs)}; artifacts in ${path.relative(process.cwd(), outRoot) || outRoot})`,
  );
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (e) => {
    console.error(`e2e: ${e?.stack || e}`);
    process.exit(2);
  },
);
