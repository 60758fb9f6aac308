import type { ObjectStore } from '../model/object-store.ts';
import type { LoadedRecording } from './load-recording.ts';
import type { ResolvedReads } from './resolve-reads.ts';

/**
 * A LoadedRecording as plain data for postMessage, with the ArrayBuffers to transfer (moved, not
 * copied): a worker parses a recording and maps its reads onto the packs (the costly part), and the
 * thread that asked gets the result for the cost of a message. The packs are named by their index
 * in the ObjectStore's pack list, which both sides share, so the receiver pairs them with its own
 * models of the same packs. A complete recording's knownPlaces and insertedReads are copied, not
 * transferred (small next to the reads).
 */
export type TransferredRecording = Omit<LoadedRecording, 'store' | 'resolved'> & {
  resolved: Omit<ResolvedReads, 'packs'> & { packs: { storeIndex: number; tracePath: string }[] };
};

export function recordingForTransfer(loaded: LoadedRecording): {
  message: TransferredRecording;
  transfer: ArrayBuffer[];
} {
  const { resolved, objects } = loaded;
  const packs = resolved.packs.map((p) => {
    const storeIndex = loaded.store.packs.indexOf(p.location);
    if (storeIndex < 0) throw new Error(`${p.location.files.pack} is not a pack of the recording's object store`);
    return { storeIndex, tracePath: p.tracePath };
  });
  const views: ArrayBufferView[] = [];
  // Each view gets an ArrayBuffer of its own (a subarray of a bigger one, or of Node's shared pool, is copied) before it moves.
  const own = <T extends ArrayBufferView>(view: T): T => {
    const exact =
      view.byteOffset === 0 && view.byteLength === view.buffer.byteLength && view.buffer instanceof ArrayBuffer;
    const result =
      exact && !views.some((v) => v.buffer === view.buffer) ? view : (view as unknown as { slice(): T }).slice();
    views.push(result);
    return result;
  };
  const { store: _, ...plain } = loaded;
  const message: TransferredRecording = {
    ...plain,
    log: { ...loaded.log, readPack: own(loaded.log.readPack), readOffset: own(loaded.log.readOffset) },
    resolved: {
      ...resolved,
      packs,
      readPack: own(resolved.readPack),
      readObject: own(resolved.readObject),
      readOffset: own(resolved.readOffset),
    },
    objects: {
      count: objects.count,
      packBase: objects.packBase,
      pack: own(objects.pack),
      offset: own(objects.offset),
      base: own(objects.base),
      size: own(objects.size),
      payloadSize: own(objects.payloadSize),
      isBlob: own(objects.isBlob),
      depth: own(objects.depth),
      oidPrefix: own(objects.oidPrefix),
    },
    reads: own(loaded.reads),
  };
  return { message, transfer: views.map((v) => v.buffer as ArrayBuffer) };
}

/** The recording again, over `store` (the same pack list the sender used; its models are taken from it). */
export function recordingFromTransfer(message: TransferredRecording, store: ObjectStore): LoadedRecording {
  const packs = message.resolved.packs.map(({ storeIndex, tracePath }) => {
    const location = store.packs[storeIndex];
    if (!location) throw new Error(`pack ${storeIndex} of the recording is not in the object store`);
    return { location, model: store.model(location), tracePath };
  });
  return { ...message, store, resolved: { ...message.resolved, packs } };
}
