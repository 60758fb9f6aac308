import { decodeWorkerError } from '../../core/worker-error.ts';
import { Worker } from 'node:worker_threads';
import type { CancellationToken } from 'vscode-languageserver/node';
import { cancelledError } from '../cancellation.ts';
import type { MapPackRef, MapWorkerReply, MapWorkerRequest } from './map-worker-protocol.ts';

type Question = Exclude<MapWorkerRequest, { kind: 'reads' } | { kind: 'cancel' }>;
type Unsent<T> = T extends unknown ? Omit<T, 'id'> : never;

interface Pending {
  resolve(reply: MapWorkerReply): void;
  reject(error: unknown): void;
}

/**
 * The server's side of the map worker (map-worker.ts): started on the first request, kept while
 * the server runs (it holds the maps), started again after a crash. Each request resolves with its
 * reply; a cancelled one rejects at once with RequestCancelled and the worker drops it if it has
 * not started it.
 */
export class MapWorkerClient {
  private worker: Worker | undefined;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** Overlay keys the running worker was sent, with the recording's reads of that pack in all. */
  private readonly sentOverlays = new Map<string, { reads: number; readObjects: number }>();

  constructor(
    private readonly script: string,
    private readonly log: (message: string) => void,
  ) {}

  /** The reads and distinct objects of an overlay the running worker keeps (undefined: send it). */
  overlay(key: string): { reads: number; readObjects: number } | undefined {
    return this.worker === undefined ? undefined : this.sentOverlays.get(key);
  }

  /** Sends a recording's reads of a pack (idx order) once, under `key`; the buffer is moved to the worker. */
  sendReads(key: string, pack: MapPackRef, counts: Uint32Array): { reads: number; readObjects: number } {
    let reads = 0;
    let readObjects = 0;
    for (const count of counts) {
      reads += count;
      if (count > 0) readObjects++;
    }
    const worker = this.running();
    worker.postMessage({ kind: 'reads', key, pack, counts } satisfies MapWorkerRequest, [counts.buffer as ArrayBuffer]);
    const sent = { reads, readObjects };
    this.sentOverlays.set(key, sent);
    return sent;
  }

  forgetOverlay(key: string): void {
    this.sentOverlays.delete(key);
  }

  ask(question: Unsent<Question>, token: CancellationToken): Promise<MapWorkerReply> {
    if (token.isCancellationRequested) return Promise.reject(cancelledError());
    const worker = this.running();
    const id = this.nextId++;
    return new Promise<MapWorkerReply>((resolve, reject) => {
      const subscription = token.onCancellationRequested(() => {
        if (!this.pending.delete(id)) return;
        subscription.dispose();
        this.worker?.postMessage({ kind: 'cancel', id } satisfies MapWorkerRequest);
        reject(cancelledError());
      });
      this.pending.set(id, {
        resolve: (reply) => {
          subscription.dispose();
          if (reply.kind === 'error' && reply.missingOverlay === undefined) reject(decodeWorkerError(reply));
          else if (reply.kind === 'cancelled') reject(cancelledError());
          else resolve(reply);
        },
        reject: (error) => {
          subscription.dispose();
          reject(error);
        },
      });
      worker.postMessage({ ...question, id } as MapWorkerRequest);
    });
  }

  /**
   * Ends the worker when it has nothing to answer (the server is idle): the models, maps, colour
   * tables and overlays it kept go with its isolate, all at once, where dropping them inside a
   * running thread would leave V8's heap at its peak. The next request starts a new worker, which
   * reads the model from the model cache and makes the map again. Returns whether it ended one.
   */
  release(): boolean {
    const worker = this.worker;
    if (worker === undefined || this.pending.size > 0) return false;
    this.worker = undefined;
    this.sentOverlays.clear();
    void worker.terminate();
    this.log(
      `idle: ended the map worker (thread ${worker.threadId}) and released its maps; the next map request starts another`,
    );
    return true;
  }

  dispose(): void {
    void this.worker?.terminate();
    this.worker = undefined;
  }

  private running(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(this.script);
    // The map worker never keeps the server's process alive on its own.
    worker.unref();
    this.log(`the map worker started (thread ${worker.threadId})`);
    worker.on('message', (reply: MapWorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      waiting.resolve(reply);
    });
    const ended = (why: string): void => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.sentOverlays.clear();
      this.log(`the map worker ended (${why}); it starts again on the next request`);
      for (const [id, waiting] of this.pending) {
        this.pending.delete(id);
        waiting.reject(new Error(`the map worker ended (${why})`));
      }
    };
    worker.on('error', (error) => ended(error.message));
    worker.on('exit', (code) => ended(`exit code ${code}`));
    this.worker = worker;
    return worker;
  }
}
