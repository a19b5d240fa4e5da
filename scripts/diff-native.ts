/**
 * Differential run: the native Poseidon8 kernel against the BigInt reference on N random 8- and
 * 10-chunk structs (dense, sparse, all-ones, near-max; default 10,000) and random element inputs
 * with values near p. Exits 1 on the first mismatch.  Usage: npx tsx scripts/diff-native.ts [N]
 */
import { ALEO_POSEIDON8_DOMAIN } from '../src/hash/domain.js';
import { FIELD_MODULUS } from '../src/hash/field.js';
import { createPoseidon8Native } from '../src/hash/poseidon8-native.js';
import { poseidon8 } from '../src/hash/poseidon8-reference.js';
import { structFieldElements } from '../src/hash/structFields.js';
import { randomStruct } from '../test/support/randomStructs.js';

const n = Number(process.argv[2] ?? 10_000);
const native = createPoseidon8Native();
const P = FIELD_MODULUS;
let seed = 0;
for (; seed < n; seed++) {
  const bytes = randomStruct(seed);
  const got = native.hashStruct(bytes);
  const want = poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes));
  if (got !== want) {
    console.error(`MISMATCH struct seed ${seed}: native ${got} reference ${want}`);
    process.exit(1);
  }
  // A short element input with values near p (not reachable from structs, whose elements are < 2^252).
  const input = Array.from({ length: seed % 12 }, (_, i) => P - 1n - BigInt((seed * 7919 + i) % 1000));
  if (native.hash(ALEO_POSEIDON8_DOMAIN, input) !== poseidon8(ALEO_POSEIDON8_DOMAIN, input)) {
    console.error(`MISMATCH near-p input seed ${seed}`);
    process.exit(1);
  }
  if ((seed + 1) % 1000 === 0) console.log(`${seed + 1} structs equal`);
}
console.log(`native == reference on ${seed} structs (8 and 10 chunks) and ${seed} near-p inputs`);
