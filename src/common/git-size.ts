/**
 * git's size syntax (config.c git_parse_unsigned: digits, then an optional k, m or g, base 1024,
 * either case), as `core.deltaBaseCacheLimit`, `--limits 0,1m,96m` and the Cache Lab's limit field
 * take it. Pure, so that the CLI, the server and the webviews accept the same sizes.
 */

/** git's default core.deltaBaseCacheLimit, 96 MiB (environment.c, DEFAULT_DELTA_BASE_CACHE_LIMIT; git-internals §1.2). */
export const GIT_DEFAULT_LIMIT = 96 * 1024 * 1024;

/** Parses `96m`, `1g`, `512k`, `1048576`; undefined when malformed or beyond 2^53. */
export function parseGitSize(value: string): number | undefined {
  const match = /^\s*(\d+)([kmg]?)\s*$/i.exec(value);
  if (!match) return undefined;
  const unit = match[2]!.toLowerCase();
  const scale = unit === 'k' ? 1024 : unit === 'm' ? 1024 ** 2 : unit === 'g' ? 1024 ** 3 : 1;
  const bytes = Number(match[1]) * scale;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** The items of a comma-separated list of sizes, blanks around them and empty items dropped. */
export function limitListItems(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** Parses `0,1m,4m,96m` into bytes; undefined when the list is empty or any item is not a size. */
export function parseLimitList(text: string): number[] | undefined {
  const items = limitListItems(text);
  if (items.length === 0) return undefined;
  const limits: number[] = [];
  for (const item of items) {
    const bytes = parseGitSize(item);
    if (bytes === undefined) return undefined;
    limits.push(bytes);
  }
  return limits;
}
