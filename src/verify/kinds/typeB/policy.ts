/** The oracle policy's typeB rule: PCR0–2 equal the targets (the debug rule is part of the document checks). */
import { hex } from '../../../bytes.js';
import { equalBytes, fail } from '../../policy.js';

/**
 * PCR0–2 must equal those of the target or of one accepted build (`accepted`: the target first);
 * a mismatch names the first PCR that differs from the target.
 */
export function checkPcrs(pcrs: ReadonlyMap<number, Uint8Array>, accepted: readonly (readonly Uint8Array[])[]): void {
  const got: Uint8Array[] = [];
  for (let i = 0; i < 3; i++) {
    const pcr = pcrs.get(i);
    if (!pcr) fail('TYPEB_PCR_MISSING', `typeB: document has no PCR${i}`);
    got.push(pcr);
  }
  if (accepted.some((build) => got.every((pcr, i) => equalBytes(pcr, build[i]!)))) return;
  const target = accepted[0]!;
  const i = got.findIndex((pcr, j) => !equalBytes(pcr, target[j]!));
  const others = accepted.length > 1 ? `, nor do PCR0–2 match any of the ${accepted.length - 1} other accepted builds (PCR0 ${accepted.slice(1).map((b) => hex(b[0]!)).join(', ')})` : '';
  fail('TYPEB_PCR_MISMATCH', `PCR${i} does not match target: document has ${hex(got[i]!)}, target is ${hex(target[i]!)}${others}`);
}
