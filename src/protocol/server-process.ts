/**
 * How a client starts the server's process (the extension, the benchmarks): what its environment
 * adds to the client's own.
 *
 * `MALLOC_MMAP_THRESHOLD_`: glibc raises its mmap threshold each time a large block is freed, so
 * that after the first object document or sweep every buffer of a few MiB (inflated entries, delta
 * results, messages) comes from malloc's arenas and stays resident once freed: measured with
 * bench/server-load.bench.ts, the server kept 2.6-3.5x its idle RSS after a load, and 1.4x with the
 * threshold fixed at glibc's initial 128 KiB. Other C libraries ignore the variable.
 *
 * `MALLOC_ARENA_MAX`: every worker thread (sweeps, object documents, builds, the map) gets its own
 * malloc arena, and an arena's freed memory stays with the process after its thread ends: with the
 * thread budget and the map worker the same bench kept 2.79x its idle RSS on an idle machine, and
 * 1.34x (peak 212 MiB, not 310) with two arenas. The workers' large buffers are mmapped (above), so
 * sharing arenas costs them no lock contention worth measuring.
 */
export const SERVER_PROCESS_ENVIRONMENT: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
  MALLOC_ARENA_MAX: '2',
};
