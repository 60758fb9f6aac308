// One esbuild script for every bundle; `tsc --noEmit` type-checks separately.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFileSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { tsImport } from 'tsx/esm/api';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const watch = process.argv.includes('--watch');

/**
 * Node bundles: the CLI, the extension, the server, and the worker threads they start. One list,
 * in scripts/node-entries.json: the benches that bundle their own pinned server read it too.
 */
const nodeEntries = JSON.parse(readFileSync(path.join(root, 'scripts', 'node-entries.json'), 'utf8'));

const options = {
  absWorkingDir: root,
  entryPoints: nodeEntries,
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  sourcemap: 'linked',
  logLevel: 'warning',
  external: ['vscode'],
  define: {
    PACKSCOPE_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version),
  },
};

// The extension: dist/extension.js is entry.ts, tiny, which loads and times dist/extension-main.js
// (activation budget: 100 ms for load plus activate). The main bundle is minified: compiling 1 MB of
// vscode-languageclient is most of its load time.
const extensionEntryOptions = {
  ...options,
  entryPoints: { extension: 'src/extension/entry.ts' },
  external: ['vscode', './extension-main.js'],
};
const extensionMainOptions = {
  ...options,
  // vscode-languageclient is a bundle of its own, required when the server first starts.
  entryPoints: {
    'extension-main': 'src/extension/extension.ts',
    'language-client': 'src/extension/language-client.ts',
  },
  external: ['vscode', './language-client.js'],
  minify: true,
  keepNames: true,
};

// --- Extension-host tests (run inside VS Code by test/e2e/run.mjs and test/electron/run-electron-tests.mjs):
// test/extension/index.ts and every test/extension/*.test.ts, each its own entry, into dist/test/extension/.
// index.js finds the *.test.js files next to it at run time. mocha stays external: Node resolves it
// from the project's node_modules. dist/test/ is left out of the .vsix by .vscodeignore.
const extensionTestDir = path.join(root, 'test', 'extension');
const extensionTestOptions = existsSync(extensionTestDir) && {
  ...options,
  entryPoints: readdirSync(extensionTestDir)
    .filter((f) => f === 'index.ts' || f.endsWith('.test.ts'))
    .map((f) => `test/extension/${f}`),
  outdir: 'dist/test/extension',
  outbase: 'test/extension',
  external: ['vscode', 'mocha'],
};
// Emptied first, so that the bundle of a deleted test does not keep running.
if (extensionTestOptions) rmSync(path.join(root, 'dist', 'test', 'extension'), { recursive: true, force: true });
const allOptions = [
  options,
  extensionEntryOptions,
  extensionMainOptions,
  ...(extensionTestOptions ? [extensionTestOptions] : []),
];

// --- Webviews: each panel's front end (its `entry` in the table of panels, src/extension/webview-panels.ts,
// Chart.js bundled in) for the browser, one self-contained script, dist/webview/<script>, loaded under its
// panel's nonce CSP (no eval, no chunks).
const { WEBVIEW_PANELS } = await tsImport('../src/extension/webview-panels.ts', import.meta.url);
allOptions.push({
  absWorkingDir: root,
  entryPoints: Object.fromEntries(
    Object.values(WEBVIEW_PANELS).map((panel) => [panel.script.replace(/\.js$/, ''), panel.entry]),
  ),
  outdir: 'dist/webview',
  bundle: true,
  platform: 'browser',
  format: 'iife',
  target: 'es2022',
  minify: !watch,
  sourcemap: 'linked',
  logLevel: 'warning',
});

if (watch) {
  const { context } = await import('esbuild');
  for (const o of allOptions) await (await context(o)).watch();
} else {
  await Promise.all(allOptions.map((o) => build(o)));
}
