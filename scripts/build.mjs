// One esbuild script for every bundle; `tsc --noEmit` type-checks separately.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import { readFileSync } from 'node:fs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const watch = process.argv.includes('--watch');

/** Node bundles: the CLI, the extension, the server, and the worker threads they start. */
const nodeEntries = {
  cli: 'src/cli/main.ts',
  extension: 'src/extension/extension.ts',
  server: 'src/server/server.ts',
  'model-worker': 'src/server/model-worker.ts',
  'verify-worker': 'src/core/verify/verify-worker.ts',
  'sim-worker': 'src/core/sim/sim-worker.ts',
};

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
  define: { PACKSCOPE_VERSION: JSON.stringify(JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).version) },
};

if (watch) {
  const { context } = await import('esbuild');
  const ctx = await context(options);
  await ctx.watch();
} else {
  await build(options);
}
