import type { Progress } from './progress.ts';

/** What main.ts hands every command. */
export interface CommandContext {
  /** The progress line on stderr. */
  progress: Progress;
  /** The absolute path of a worker script bundled next to cli.js (`verify-worker.js`, `sim-worker.js`). */
  workerScript(name: string): string;
}

/** One `packscope <name>` command: a row of the table in commands/index.ts. */
export interface Command {
  name: string;
  /**
   * The overview's line after its indent: the name and arguments, the description from column 42
   * (verify-pack's, whose arguments are long, starts one column earlier).
   */
  summary: string;
  /** `packscope <name> --help`. */
  help: string;
  /** What follows `--` is another program's arguments (git's): a `--help` there is not this command's. */
  forwardsAfterDoubleDash?: boolean;
  /**
   * Options other commands have that this one does not, with why: said after "has no option …"
   * (verify-pack keeps no model cache, so --no-cache means nothing to it).
   */
  optionNotes?: Readonly<Record<string, string>>;
  /** Returns the exit status. */
  run(argv: string[], context: CommandContext): number | Promise<number>;
}
