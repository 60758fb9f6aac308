// dist/cli.js, the packscope command: the CLI's bundle (dist/cli-main.js) from its code cache (code-cache.ts).
import { launchBundle } from './code-cache.ts';

launchBundle(__dirname);
