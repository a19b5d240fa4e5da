/**
 * Differential run: each native Poseidon8 kernel this CPU runs (portable, ADX) against the BigInt reference on N random 8- and
 * 10-chunk structs (dense, sparse, all-ones, near-max; default 10,000) and random element inputs
 * with values near p. Exits 1 on the first mismatch.  Usage: npx tsx scripts/diff-native.ts [N]
 */
import { ALEO_POSEIDON8_DOMAIN } from '../src/hash/domain.js';
import { FIELD_MODULUS } from '../src/hash/field.js';
import { createPoseidon8Native, nativeKernels } from '../src/hash/poseidon8-native.js';
import { poseidon8 } from '../src/hash/poseidon8-reference.js';
import { structFieldElements } from '../src/hash/structFields.js';
import { randomStruct } from '../test/support/randomStructs.js';

const n = Number(process.argv[2] ?? 10_000);
const kernels = nativeKernels().map((k) => ({ k, native: createPoseidon8Native(undefined, k) }));
console.log(`kernels: ${kernels.map((x) => x.k).join(', ')}`);
const P = FIELD_MODULUS;
let seed = 0;
for (; seed < n; seed++) {
  const bytes = randomStruct(seed);
  const want = poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes));
  // A short element input with values near p (not reachable from structs, whose elements are < 2^252).
  const input = Array.from({ length: seed % 12 }, (_, i) => P - 1n - BigInt((seed * 7919 + i) % 1000));
  const wantInput = poseidon8(ALEO_POSEIDON8_DOMAIN, input);
  for (const { k, native } of kernels) {
    const got = native.hashStruct(bytes);
    if (got !== want) {
      console.error(`MISMATCH struct seed ${seed}, kernel ${k}: native ${got} reference ${want}`);
      process.exit(1);
    }
    if (native.hash(ALEO_POSEIDON8_DOMAIN, input) !== wantInput) {
      console.error(`MISMATCH near-p input seed ${seed}, kernel ${k}`);
      process.exit(1);
    }
  }
  if ((seed + 1) % 1000 === 0) console.log(`${seed + 1} structs equal`);
}
console.log(`native (${kernels.map((x) => x.k).join(', ')}) == reference on ${seed} structs (8 and 10 chunks) and ${seed} near-p inputs`);
