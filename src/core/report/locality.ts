import { packLocality, percentile, type LocalityInput } from '../locality/locality.ts';
import type { LoadedRecording } from '../trace/load-recording.ts';
import { recordingSummary } from './recording.ts';
import type {
  LocalityDocument,
  PackLocalityWithQuantiles,
  PageCacheOptions,
} from '../documents/simulation-documents.ts';

/** Per pack of the recording, the offsets and entry sizes of its kept reads, in recording order. */
export function localityInputs(loaded: LoadedRecording): LocalityInput[] {
  const { resolved } = loaded;
  const { start: first, end } = loaded.range;
  const counts = new Uint32Array(resolved.packs.length);
  for (let i = first; i < end; i++) counts[resolved.readPack[i]!]!++;
  const inputs = resolved.packs.map((pack, k) => ({
    pack: pack.location.files.pack,
    offsets: new Float64Array(counts[k]!),
    entryBytes: new Float64Array(counts[k]!),
  }));
  const filled = new Uint32Array(resolved.packs.length);
  for (let i = first; i < end; i++) {
    const k = resolved.readPack[i]!;
    const at = filled[k]!++;
    inputs[k]!.offsets[at] = resolved.readOffset[i]!;
    inputs[k]!.entryBytes[at] = resolved.packs[k]!.model.columns.diskSize.get(resolved.readObject[i]!);
  }
  return inputs;
}

/** `packscope locality --json`. */
export function localityDocument(loaded: LoadedRecording, pageCache: PageCacheOptions): LocalityDocument {
  return {
    schema: 'packscope.locality/1',
    recording: recordingSummary(loaded),
    pageCache,
    packs: localityInputs(loaded).map((input) => packLocality(input, pageCache)),
  };
}

/** A pack's locality with its distance CDF (the server's Locality chart). */
export function packLocalityWithQuantiles(input: LocalityInput, cache: PageCacheOptions): PackLocalityWithQuantiles {
  const result = packLocality(input, cache);
  // The distances packLocality sorts, at every whole percent.
  const { offsets } = input;
  const distances = new Float64Array(Math.max(0, offsets.length - 1));
  for (let i = 1; i < offsets.length; i++) distances[i - 1] = Math.abs(offsets[i]! - offsets[i - 1]!);
  distances.sort();
  return { ...result, distanceQuantiles: Array.from({ length: 101 }, (_, p) => percentile(distances, p)) };
}
