// `npm start [-- path]`: shows PackScope on a repository (default: this checkout) with the CLI.
// The VS Code workbench launcher replaces this once the extension lands (issue 3).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const target = path.resolve(process.argv[2] ?? root);
const cli = path.join(root, 'dist', 'cli.js');
console.log(`PackScope on ${target}\n`);
const result = spawnSync(process.execPath, [cli, 'stats', target], { stdio: 'inherit' });
console.log(`\nMore: npx packscope --help   (verify-pack, stats, object, objects, record, simulate, sweep, locality, index-pack-sim; --json for machines)`);
process.exit(result.status ?? 1);
