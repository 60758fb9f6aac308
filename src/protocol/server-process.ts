/**
 * How a client starts the server's process (the extension, the benchmarks): what its environment
 * adds to the client's own.
 *
 * `MALLOC_MMAP_THRESHOLD_`: glibc raises its mmap threshold each time a large block is freed, so
 * that after the first object document or sweep every buffer of a few MiB (inflated entries, delta
 * results, messages) comes from malloc's arenas and stays resident once freed: measured with
 * bench/server-load.bench.ts, the server kept 2.6-3.5x its idle RSS after a load, and 1.4x with the
 * threshold fixed at glibc's initial 128 KiB. Other C libraries ignore the variable.
 */
export const SERVER_PROCESS_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };
