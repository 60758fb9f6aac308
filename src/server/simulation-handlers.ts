import type { ServerContext } from './server-context.ts';

/**
 * Recordings, sweeps, locality, index-pack simulation, recording and measuring git commands
 * (the requests of the "Recordings, simulations" part of server-protocol.ts).
 */
export function registerSimulationHandlers(context: ServerContext): void {
  void context;
}
