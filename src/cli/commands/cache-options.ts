import type { CacheOptions } from '../open-target.ts';

/** --cache-dir / --no-cache, shared by the commands that read a repository's packs. */
export const cacheOptionSpec = {
  'cache-dir': { type: 'string' },
  'no-cache': { type: 'boolean' },
} as const;

export function cacheOptions(values: {
  'cache-dir'?: string | undefined;
  'no-cache'?: boolean | undefined;
}): CacheOptions {
  return { cacheDir: values['cache-dir'], noCache: values['no-cache'] };
}
