import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { projectRoot } from './generate.ts';

/**
 * Bundles the server and every worker it starts (bundledScript: models, sweeps, the other
 * simulations) as scripts/build.mjs does, into `outdir` (pinned for the run: a rebuild of dist/ by
 * someone else cannot change the server mid-bench). Returns the server's script.
 */
export function bundleServer(outdir: string): string {
  fs.rmSync(outdir, { recursive: true, force: true });
  const version = (JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;
  buildSync({
    absWorkingDir: projectRoot,
    entryPoints: {
      server: 'src/server/server.ts',
      'model-worker': 'src/server/workers/model-worker.ts',
      'sim-worker': 'src/core/sim/sim-worker.ts',
      'simulation-worker': 'src/server/workers/simulation-worker.ts',
    },
    outdir,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    sourcemap: 'linked',
    logLevel: 'warning',
    define: { PACKSCOPE_VERSION: JSON.stringify(version) },
  });
  return path.join(outdir, 'server.js');
}
