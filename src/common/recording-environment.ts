/**
 * The one definition of the environment that makes git record its pack accesses (git-internals
 * §1.10, §8). Pure and I/O-free, so that both the CLI's recorder (src/core/trace/record-git.ts, which
 * spawns git with it) and the extension's terminal recorder (src/extension/recording, which puts it
 * in the terminals' environment variable collection) set exactly the same variables.
 */

export type RecordingMode = 'exact' | 'passive';

/** The config key an exact recording forces, and the value it forces (§8: record at limit 0). */
export const EXACT_RECORDING_CONFIG = { key: 'core.deltaBaseCacheLimit', value: '0' } as const;

/** The limit an exact recording runs with, in bytes. */
export const EXACT_RECORDING_LIMIT = 0;

export interface RecordingVariables {
  /** Variables to set (replacing any value the environment has), in this order. */
  set: [name: string, value: string][];
  /**
   * Variables to take out of the environment: GIT_TRACE_BARE when the environment has it (bare
   * GIT_TRACE lines lose the prefix the trace reader keys on). Listed only when present in `base`.
   */
  unset: string[];
}

/**
 * What recording sets on top of `base` (the environment git would otherwise run with):
 * - GIT_TRACE_PACK_ACCESS: the access log, an absolute file every git process appends to;
 * - GIT_TRACE: the same file, unless the user already points GIT_TRACE elsewhere; its
 *   `trace: built-in: git …` lines split the log per git process (segments);
 * - GIT_TRACE_SETUP: the same file, unless the user already points it elsewhere; its
 *   `setup: git_common_dir:` and `setup: cwd:` lines say which repository each git process ran in
 *   (a terminal recording may hold commands of several repositories, and none has a header);
 * - GIT_TRACE_PERFORMANCE: the same file, unless the user already points it elsewhere; each git
 *   process writes `performance: <seconds> s: git command: git …` as it exits, with its arguments as
 *   given (`-c` options included): the command time a raw trace otherwise lacks, and the one place a
 *   `-c core.deltaBaseCacheLimit=…` that overrides exact mode shows;
 * - exact mode: core.deltaBaseCacheLimit=0 through GIT_CONFIG_COUNT / GIT_CONFIG_KEY_n /
 *   GIT_CONFIG_VALUE_n (git ≥ 2.31), appended after the entries the user already passes that way
 *   (n = the user's GIT_CONFIG_COUNT, which becomes n + 1).
 */
export function recordingVariables(
  base: Readonly<Record<string, string | undefined>>,
  traceFile: string,
  mode: RecordingMode,
  /** The limit exact mode forces: 0, or another limit for the extra runs of a complete recording (§8.1). */
  exactLimit = EXACT_RECORDING_LIMIT,
  /** More config for the recorded commands, after the limit (`record` makes a threaded reader read in one thread: threaded-readers.ts). */
  extraConfig: readonly { key: string; value: string }[] = [],
): RecordingVariables {
  const set: [string, string][] = [['GIT_TRACE_PACK_ACCESS', traceFile]];
  if (!base.GIT_TRACE) set.push(['GIT_TRACE', traceFile]);
  if (!base.GIT_TRACE_SETUP) set.push(['GIT_TRACE_SETUP', traceFile]);
  if (!base.GIT_TRACE_PERFORMANCE) set.push(['GIT_TRACE_PERFORMANCE', traceFile]);
  const config: { key: string; value: string }[] = [];
  if (mode === 'exact')
    config.push({
      key: EXACT_RECORDING_CONFIG.key,
      value: exactLimit === EXACT_RECORDING_LIMIT ? EXACT_RECORDING_CONFIG.value : String(exactLimit),
    });
  config.push(...extraConfig);
  if (config.length > 0) {
    const existing = Number(base.GIT_CONFIG_COUNT ?? '0');
    const count = Number.isInteger(existing) && existing >= 0 ? existing : 0;
    set.push(['GIT_CONFIG_COUNT', String(count + config.length)]);
    config.forEach(({ key, value }, i) => {
      set.push([`GIT_CONFIG_KEY_${count + i}`, key]);
      set.push([`GIT_CONFIG_VALUE_${count + i}`, value]);
    });
  }
  const unset = base.GIT_TRACE_BARE === undefined ? [] : ['GIT_TRACE_BARE'];
  return { set, unset };
}

/** `base` with the recording variables applied: the environment to spawn git with. */
export function applyRecordingVariables<E extends Record<string, string | undefined>>(
  base: E,
  variables: RecordingVariables,
): E {
  const env: Record<string, string | undefined> = { ...base };
  for (const name of variables.unset) delete env[name];
  for (const [name, value] of variables.set) env[name] = value;
  return env as E;
}
