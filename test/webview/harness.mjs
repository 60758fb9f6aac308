// The Cache Lab webview tests' harness: the Chromium they share (opened before the first test, closed
// after the last), the page as the host builds it with a stub acquireVsCodeApi, VS Code's theme
// variables, and the messages the host sends. Imported by run.mjs and the test files it loads.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { servePage } from './serve-page.mjs';
import { after, before } from 'node:test';
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { launchBrowser } from '../../scripts/vscode/code-server.mjs';
import { SWEEP_LIMITS, SWEEP_POLICIES, recordingInfo, sweepResult } from './fixtures.mjs';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const outDir = path.join(root, 'test-artifacts', 'webview');
const bundle = path.join(root, 'dist', 'webview', 'cache-lab.js');
export const ORIGIN = 'https://cache-lab.webview.test';

execFileSync(
  process.execPath,
  [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', path.join(root, 'media')],
  { stdio: 'inherit' },
);
if (!fs.existsSync(bundle))
  execFileSync(process.execPath, [path.join(root, 'scripts', 'build.mjs')], { stdio: 'inherit', cwd: root });
fs.rmSync(outDir, { recursive: true, force: true });
fs.mkdirSync(outDir, { recursive: true });

const { WEBVIEW_PANELS } = await tsImport('../../src/extension/webview-panels.ts', import.meta.url);
export const { contentSecurityPolicy, webviewHtml } = await tsImport(
  '../../src/extension/webview-html.ts',
  import.meta.url,
);
export const protocol = await tsImport('../../src/protocol/cache-lab-protocol.ts', import.meta.url);
export const { gitCommandLine } = await tsImport('../../src/common/shell-words.ts', import.meta.url);
export const { CACHE_LAB_POLICIES } = await tsImport('../../src/core/sim/policy-registry.ts', import.meta.url);

// A few of the variables VS Code sets on the webview's <html> for its Default Light/Dark Modern themes.
export const THEMES = {
  light: {
    bodyClass: 'vscode-light',
    vars: {
      '--vscode-foreground': '#3b3b3b',
      '--vscode-descriptionForeground': '#717171',
      '--vscode-editor-background': '#ffffff',
      '--vscode-charts-foreground': '#616161',
      '--vscode-charts-lines': 'rgba(97, 97, 97, 0.5)',
      '--vscode-charts-blue': '#1a85ff',
      '--vscode-charts-red': '#e51400',
      '--vscode-charts-green': '#388a34',
      '--vscode-charts-yellow': '#bf8803',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-purple': '#652d90',
      '--vscode-terminal-ansiCyan': '#0598bc',
      '--vscode-button-background': '#005fb8',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#e5e5e5',
      '--vscode-button-secondaryForeground': '#3b3b3b',
      '--vscode-input-background': '#ffffff',
      '--vscode-input-foreground': '#3b3b3b',
      '--vscode-input-border': '#cecece',
      '--vscode-dropdown-background': '#ffffff',
      '--vscode-dropdown-foreground': '#3b3b3b',
      '--vscode-dropdown-border': '#cecece',
      '--vscode-focusBorder': '#005fb8',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-errorForeground': '#f85149',
      '--vscode-panelTitle-activeBorder': '#005fb8',
      '--vscode-panelTitle-activeForeground': '#3b3b3b',
      '--vscode-panelTitle-inactiveForeground': '#3b3b3b',
      '--vscode-editor-inactiveSelectionBackground': '#e5ebf1',
    },
  },
  dark: {
    bodyClass: 'vscode-dark',
    vars: {
      '--vscode-foreground': '#cccccc',
      '--vscode-descriptionForeground': '#9d9d9d',
      '--vscode-editor-background': '#1f1f1f',
      '--vscode-charts-foreground': '#cccccc',
      '--vscode-charts-lines': 'rgba(204, 204, 204, 0.5)',
      '--vscode-charts-blue': '#3794ff',
      '--vscode-charts-red': '#f14c4c',
      '--vscode-charts-green': '#89d185',
      '--vscode-charts-yellow': '#cca700',
      '--vscode-charts-orange': '#d18616',
      '--vscode-charts-purple': '#b180d7',
      '--vscode-terminal-ansiCyan': '#11a8cd',
      '--vscode-button-background': '#0078d4',
      '--vscode-button-foreground': '#ffffff',
      '--vscode-button-secondaryBackground': '#313131',
      '--vscode-button-secondaryForeground': '#cccccc',
      '--vscode-input-background': '#313131',
      '--vscode-input-foreground': '#cccccc',
      '--vscode-input-border': '#3c3c3c',
      '--vscode-dropdown-background': '#313131',
      '--vscode-dropdown-foreground': '#cccccc',
      '--vscode-dropdown-border': '#3c3c3c',
      '--vscode-focusBorder': '#0078d4',
      '--vscode-font-family': 'system-ui, sans-serif',
      '--vscode-font-size': '13px',
      '--vscode-editor-font-family': 'monospace',
      '--vscode-errorForeground': '#f85149',
      '--vscode-panelTitle-activeBorder': '#0078d4',
      '--vscode-panelTitle-activeForeground': '#cccccc',
      '--vscode-panelTitle-inactiveForeground': '#9d9d9d',
      '--vscode-editor-inactiveSelectionBackground': '#3a3d41',
    },
  },
};

/**
 * The stub of `acquireVsCodeApi` is the test's boundary: what the webview posts is recorded in
 * window.__posted, setState in window.__states, and getState returns the state this page was
 * opened with (a reload after setState). Host messages are sent with window.postMessage, as VS
 * Code's webview host delivers them (a MessageEvent whose data is the message).
 */
function stubScript(nonce, initialState) {
  return `<script nonce="${nonce}">
window.__posted = [];
window.__states = [];
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI));
let state = ${JSON.stringify(initialState ?? null)};
window.acquireVsCodeApi = () => ({
  postMessage: (m) => window.__posted.push(JSON.parse(JSON.stringify(m))),
  getState: () => state,
  setState: (s) => { state = JSON.parse(JSON.stringify(s)); window.__states.push(state); },
});
</script>`;
}

let browser;
let context;
const pages = new Set();

before(async () => {
  browser = await launchBrowser({ outDir: path.join(root, 'test-artifacts', 'webview-browser') });
  context = await browser.newContext({ viewport: { width: 1200, height: 1800 } });
});

after(async () => {
  await context?.close().catch(() => {});
  await browser?.close().catch(() => {});
});

/** The browser context the harness opened (before the first test): for test files that load another panel's page. */
export const browserContext = () => context;

/** Opens the Cache Lab page as the host builds it; `theme` sets VS Code's variables and body class. */
export async function openLab({ theme = 'dark', initialState } = {}) {
  const page = await context.newPage();
  pages.add(page);
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  const nonce = 'TestNonce0123456789abcdefABCDEF';
  const html = webviewHtml(WEBVIEW_PANELS.cacheLab, {
    cspSource: ORIGIN,
    nonce,
    scriptUri: `${ORIGIN}/dist/webview/cache-lab.js`,
    styleUris: WEBVIEW_PANELS.cacheLab.styles.map((parts) => `${ORIGIN}/${parts.join('/')}`),
  }).replace('<head>', `<head>\n${stubScript(nonce, initialState)}`);
  await servePage(page, { origin: ORIGIN, root, html });
  await page.goto(`${ORIGIN}/index.html`);
  await setTheme(page, theme);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
  return { page, errors };
}

export async function setTheme(page, theme) {
  const { bodyClass, vars } = THEMES[theme];
  await page.evaluate(
    ({ bodyClass, vars }) => {
      for (const [name, value] of Object.entries(vars)) document.documentElement.style.setProperty(name, value);
      document.body.className = bodyClass;
    },
    { bodyClass, vars },
  );
}

/**
 * Posts a host message and resolves once the page has handled it: window.postMessage dispatches
 * later, so a check right after a bare post raced the handler (the Cancel button's state after
 * runEnded, once under load). A listener added after the page's runs after it, and the timeout
 * lets the handler's promises settle.
 */
export const send = (page, message) =>
  page.evaluate(
    (m) =>
      new Promise((resolve) => {
        window.addEventListener('message', () => setTimeout(resolve, 0), { once: true });
        window.postMessage(m, '*');
      }),
    message,
  );
export const posted = (page) => page.evaluate(() => window.__posted);

/** Measure for real's result as the host posts it: git log --raw -n 60000 at the known sweep's limits. */
export function measureMessage(fields = {}) {
  const args = ['log', '--raw', '-n', '60000'];
  return {
    type: 'measure',
    runId: 'm1',
    command: gitCommandLine(args),
    args,
    cwd: '/src/git.git',
    reconstructed: false,
    result: {
      gitVersion: '2.39.5',
      results: SWEEP_LIMITS.map((limit, i) => ({
        limit,
        seconds: [3 - i * 0.3, 2.9 - i * 0.3, 3.1 - i * 0.3],
        bestSeconds: 2.9 - i * 0.3,
        cpuSeconds: [2.9 - i * 0.3, 2.8 - i * 0.3, 3 - i * 0.3],
        minorFaults: [90000 - i * 10000, 94000 - i * 12000, 91000 - i * 10000],
      })),
    },
    ...fields,
  };
}

export function initMessage(state = {}) {
  return {
    type: 'init',
    version: protocol.CACHE_LAB_PROTOCOL_VERSION,
    state: {
      ...protocol.defaultCacheLabState(),
      recording: recordingInfo().file,
      limits: SWEEP_LIMITS,
      policies: SWEEP_POLICIES,
      ...state,
    },
    recordings: [{ file: recordingInfo().file, label: 'lograw.psrec', description: 'git log --raw -n 60000' }],
    availablePolicies: [...CACHE_LAB_POLICIES],
  };
}

export async function sendKnownSweep(page) {
  await send(page, initMessage());
  await send(page, {
    type: 'sweep',
    runId: 'r1',
    request: { limits: SWEEP_LIMITS, policies: SWEEP_POLICIES },
    result: sweepResult(),
  });
  await page.locator('#sweep-table tbody tr').first().waitFor();
}

/** The table as numbers: rows = limits (data-limit), columns = policies (data-policy). */
export async function readSweepTable(page) {
  return page.evaluate(() => {
    const policies = [...document.querySelectorAll('#sweep-table thead th[data-policy]')].map(
      (th) => th.dataset.policy,
    );
    const rows = [...document.querySelectorAll('#sweep-table tbody tr')].map((tr) => ({
      limit: Number(tr.dataset.limit),
      cells: [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value)),
      shown: [...tr.querySelectorAll('td')].map((td) => td.textContent),
    }));
    return { policies, rows, caption: document.querySelector('#sweep-table caption')?.textContent ?? '' };
  });
}
