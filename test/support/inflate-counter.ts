import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * An LD_PRELOAD shim that counts zlib's inflateInit2_ and inflateInit_ calls of a git process (one
 * per git_inflate_init, git-internals §0) and appends the total to $INFLATE_COUNT_FILE at exit.
 * Built with the machine's gcc; when no compiler is found the tests fail loudly instead of
 * passing without the check.
 */
const SHIM_SOURCE = String.raw`
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

/* zlib's own prototypes, declared here so that no zlib headers are needed (z_streamp is a pointer). */
static unsigned long inflate_inits;
/* zlib's inflateInit_ calls inflateInit2_ through its PLT, which this shim also interposes:
   count that inner call once, not twice. */
static int inside_inflate_init;

int inflateInit_(void *strm, const char *version, int stream_size) {
  static int (*real)(void *, const char *, int);
  if (!real) real = (int (*)(void *, const char *, int))dlsym(RTLD_NEXT, "inflateInit_");
  inflate_inits++;
  inside_inflate_init = 1;
  int status = real(strm, version, stream_size);
  inside_inflate_init = 0;
  return status;
}

int inflateInit2_(void *strm, int window_bits, const char *version, int stream_size) {
  static int (*real)(void *, int, const char *, int);
  if (!real) real = (int (*)(void *, int, const char *, int))dlsym(RTLD_NEXT, "inflateInit2_");
  if (!inside_inflate_init) inflate_inits++;
  return real(strm, window_bits, version, stream_size);
}

__attribute__((destructor)) static void report(void) {
  const char *file = getenv("INFLATE_COUNT_FILE");
  if (!file) return;
  FILE *out = fopen(file, "a");
  if (!out) return;
  fprintf(out, "%lu\n", inflate_inits);
  fclose(out);
}
`;

/** Compiles the shim into `dir` and returns the .so path. Throws (failing the test) without gcc. */
export function buildInflateCounter(dir: string): string {
  const source = path.join(dir, 'inflate-counter.c');
  const library = path.join(dir, 'inflate-counter.so');
  fs.writeFileSync(source, SHIM_SOURCE);
  try {
    execFileSync('gcc', ['-shared', '-fPIC', '-O2', '-o', library, source, '-ldl'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? String(error);
    throw new Error(`cannot build the inflate-counting shim (gcc is required for these tests): ${stderr}`);
  }
  return library;
}

/** Environment for a git process counted by the shim; read the total with `readInflateCount`. */
export function countingEnv(library: string, countFile: string): Record<string, string> {
  fs.rmSync(countFile, { force: true });
  return { LD_PRELOAD: library, INFLATE_COUNT_FILE: countFile };
}

/** Sum over every process that wrote to the count file (git may run children). */
export function readInflateCount(countFile: string): number {
  if (!fs.existsSync(countFile)) throw new Error(`no inflate count was written to ${countFile}: the shim did not load`);
  return fs
    .readFileSync(countFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .reduce((sum, line) => sum + Number(line), 0);
}
