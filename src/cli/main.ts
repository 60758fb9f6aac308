import * as path from 'node:path';
import type { Command } from './command.ts';
import { COMMANDS } from './commands/index.ts';
import { Progress } from './progress.ts';
import { reportError } from './report-error.ts';
import { usageErrorFromParseArgs } from './usage-errors.ts';

declare const PACKSCOPE_VERSION: string;

const overview = `usage: packscope <command> [options]

Looks inside Git packfiles.

commands:
${COMMANDS.map((command) => `  ${command.summary}`).join('\n')}

Run "packscope <command> --help" for a command's options. [path] is any path inside a
repository (default: the current directory) or a .pack/.idx file. Pack models are cached in
~/.cache/packscope/models (PACKSCOPE_CACHE_DIR, --cache-dir, --no-cache).`;

const commandNamed = (name: string | undefined): Command | undefined =>
  COMMANDS.find((command) => command.name === name);

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? commandNamed(rest[0]) : undefined;
    process.stdout.write(`${topic?.help ?? overview}\n`);
    return name === undefined ? 1 : 0;
  }
  if (name === '--version' || name === 'version') {
    process.stdout.write(`packscope ${typeof PACKSCOPE_VERSION === 'string' ? PACKSCOPE_VERSION : 'dev'}\n`);
    return 0;
  }
  const command = commandNamed(name);
  if (command === undefined) {
    process.stderr.write(`packscope: unknown command "${name}"\n\n${overview}\n`);
    return 1;
  }
  const optionArgs =
    command.forwardsAfterDoubleDash === true && rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
  if (optionArgs.includes('--help') || optionArgs.includes('-h')) {
    process.stdout.write(`${command.help}\n`);
    return 0;
  }
  try {
    return await command.run(rest, {
      progress: Progress.forStderr(),
      workerScript: (script) => path.join(__dirname, script),
    });
  } catch (error) {
    throw usageErrorFromParseArgs(command, error) ?? error;
  }
}

process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  // A reader that went away (`packscope objects | head`) is not an error.
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});

main(process.argv.slice(2)).then(
  (status) => {
    process.exitCode = status;
  },
  (error: unknown) => {
    process.exitCode = reportError(error);
  },
);
