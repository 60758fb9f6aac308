/**
 * Where a run spends its time: runs `node --cpu-prof <script> …` (dist/cli.js, or the bundled
 * measure script) and sums self time per function across the samples, mapped through the
 * bundle's source map back to src/ file:line.
 */
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import { SourceMap } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

export interface FunctionTime {
  name: string;
  where: string;
  selfMs: number;
  percent: number;
}

export interface ThreadProfile {
  file: string;
  totalMs: number;
  top: FunctionTime[];
}

const sourceMaps = new Map<string, SourceMap | null>();

function sourceMapFor(file: string): SourceMap | null {
  if (!sourceMaps.has(file)) {
    let map: SourceMap | null = null;
    try {
      map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
    } catch {
      map = null;
    }
    sourceMaps.set(file, map);
  }
  return sourceMaps.get(file)!;
}

function locate(frame: ProfileNode['callFrame'], root: string): string {
  if (!frame.url) return '';
  let file = frame.url;
  if (file.startsWith('file://')) file = fileURLToPath(file);
  const map = path.isAbsolute(file) ? sourceMapFor(file) : null;
  if (map && frame.lineNumber >= 0) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber) as {
      originalSource?: string;
      originalLine?: number;
    };
    if (entry.originalSource !== undefined && entry.originalLine !== undefined) {
      let source = entry.originalSource;
      if (source.startsWith('file://')) source = fileURLToPath(source);
      source = path.isAbsolute(source)
        ? path.relative(root, source)
        : path.relative(root, path.resolve(path.dirname(file), source));
      return `${source}:${entry.originalLine + 1}`;
    }
  }
  return `${path.isAbsolute(file) ? path.relative(root, file) : file}:${frame.lineNumber + 1}`;
}

export function summariseProfile(file: string, root: string, top = 12): ThreadProfile {
  const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as Profile;
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) byId.set(node.id, node);
  const selfUs = new Map<number, number>();
  // timeDeltas[i] is the time between sample i-1 and sample i; charge it to sample i's node.
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, profile.timeDeltas[i] ?? 0));
  }
  const byFunction = new Map<string, FunctionTime>();
  let totalUs = 0;
  for (const [id, us] of selfUs) {
    totalUs += us;
    const frame = byId.get(id)!.callFrame;
    const name = frame.functionName || (frame.url ? '(anonymous)' : '');
    const where = locate(frame, root);
    const key = `${name || frame.functionName}\0${where}`;
    const entry = byFunction.get(key) ?? { name: name || '(root)', where, selfMs: 0, percent: 0 };
    entry.selfMs += us / 1000;
    byFunction.set(key, entry);
  }
  const all = [...byFunction.values()].sort((a, b) => b.selfMs - a.selfMs);
  for (const entry of all) entry.percent = totalUs === 0 ? 0 : (entry.selfMs * 1000 * 100) / totalUs;
  return { file, totalMs: totalUs / 1000, top: all.slice(0, top) };
}

/**
 * Runs `node --cpu-prof <args>` once (stdout to /dev/null) and summarises every thread's profile,
 * busiest thread first.
 */
export function profileNode(args: string[], root: string, top = 12): ThreadProfile[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'packscope-bench-prof-'));
  try {
    const devNull = fs.openSync('/dev/null', 'w');
    try {
      const result = spawnSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', dir, ...args], {
        cwd: root,
        stdio: ['ignore', devNull, 'pipe'],
        env: { ...process.env, PACKSCOPE_NO_PROGRESS: '1' },
      });
      if (result.status !== 0) throw new Error(`profiled run failed: ${result.stderr.toString()}`);
    } finally {
      fs.closeSync(devNull);
    }
    const files = fs.readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'));
    return files.map((name) => summariseProfile(path.join(dir, name), root, top)).sort((a, b) => b.totalMs - a.totalMs);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
