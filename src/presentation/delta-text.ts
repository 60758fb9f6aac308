/**
 * A delta as JGit's `debug-show-pack-delta` prints it: BinaryDelta.format(delta, true) in
 * eclipse-jgit/jgit org.eclipse.jgit/src/org/eclipse/jgit/internal/storage/pack/BinaryDelta.java
 * (checked at master 8761509, and byte for byte against Debian's libjgit-java 4.11.9 in
 * test/core/read-object.test.ts). A header line `DELTA( BASE=<n> RESULT=<n> )`, then
 * `  COPY  (<offset>, <length>)` or `  INSERT(<text>)` per instruction. A listing cut short ends
 * with one line saying how many were left out, which JGit never prints. JGit reads the copy offset
 * into a signed int, so it would print offsets of 2 GiB and more as negative numbers; here they
 * stay exact. The one renderer of both the JGit text (the tests') and the object document's
 * delta section (src/extension/object-document-text.ts), so the two cannot drift.
 */

/** An instruction as the renderer needs it: core's DeltaListing and the protocol's DeltaInstructionItem both are one. */
export type DeltaTextInstruction =
  | { op: 'copy'; baseOffset: number; length: number }
  /** `preview`: the inserted bytes quoted as JGit quotes them (core's quoteLikeJGitPath). */
  | { op: 'insert'; length: number; preview: string };

export interface DeltaText<I extends DeltaTextInstruction = DeltaTextInstruction> {
  baseSize: number;
  resultSize: number;
  /** The listed instructions are the first ones of the delta, in order. */
  instructions: readonly I[];
  totalInstructions: number;
}

/** One instruction's line as JGit prints it. */
export function jgitInstructionLine(instruction: DeltaTextInstruction): string {
  return instruction.op === 'copy'
    ? `  COPY  (${instruction.baseOffset}, ${instruction.length})`
    : `  INSERT(${instruction.preview})`;
}

/**
 * The lines without their line ends. `instructionLines` may show an instruction otherwise (the
 * object document shows binary inserts in hex); it is given where the instruction's bytes start
 * in the result.
 */
export function deltaLines<I extends DeltaTextInstruction>(
  delta: DeltaText<I>,
  instructionLines: (instruction: I, resultAt: number) => string[] = (instruction) => [
    jgitInstructionLine(instruction),
  ],
): string[] {
  const lines = [`DELTA( BASE=${delta.baseSize} RESULT=${delta.resultSize} )`];
  let resultAt = 0;
  for (const instruction of delta.instructions) {
    lines.push(...instructionLines(instruction, resultAt));
    resultAt += instruction.length;
  }
  const left = delta.totalInstructions - delta.instructions.length;
  if (left > 0) lines.push(`  ... ${left} more instruction${left === 1 ? '' : 's'}`);
  return lines;
}

/** JGit's text: every line ending in "\n" (the command's println adds one more). */
export function renderJGitDelta(delta: DeltaText): string {
  return deltaLines(delta)
    .map((line) => `${line}\n`)
    .join('');
}
