/** The oracle policy's typeB rule: PCR0–2 equal the targets (the debug rule is part of the document checks). */
import { hex } from '../../../bytes.js';
import { equalBytes, fail } from '../../policy.js';

export function checkPcrs(pcrs: ReadonlyMap<number, Uint8Array>, targets: readonly Uint8Array[]): void {
  for (let i = 0; i < 3; i++) {
    const got = pcrs.get(i);
    const want = targets[i]!;
    if (!got) fail('TYPEB_PCR_MISSING', `typeB: document has no PCR${i}`);
    if (!equalBytes(got, want)) fail('TYPEB_PCR_MISMATCH', `PCR${i} does not match target: document has ${hex(got)}, target is ${hex(want)}`);
  }
}
