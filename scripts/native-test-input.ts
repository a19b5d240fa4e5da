/**
 * Writes the sanitizer driver's input (native/test-driver.c) to stdout: the kernel constants, then
 * cases with their expected outputs taken from the vector files (../shared/vectors/aleo/poseidon8,
 * not from our code) and a few random structs checked against the BigInt reference.
 * Format: whitespace-separated hex 64-bit words (see test-driver.c).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ALEO_POSEIDON8_DOMAIN } from '../src/hash/domain.js';
import { domainFromText } from '../src/hash/field.js';
import { structBitWords } from '../src/hash/limbs-struct.js';
import { limbs64, nativeConstantWords } from '../src/hash/native-constants.js';
import { poseidon8 } from '../src/hash/poseidon8-reference.js';
import { structFieldElements } from '../src/hash/structFields.js';
import { randomStruct } from '../test/support/randomStructs.js';

const dir = path.resolve(process.cwd(), '../shared/vectors/aleo/poseidon8');
const load = <T>(f: string): T => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as T;
const out: string[] = [];
const put = (...xs: bigint[]): void => {
  out.push(xs.map((x) => x.toString(16)).join(' '));
};

const consts = nativeConstantWords();
put(BigInt(consts.length), ...consts);

const cases: (() => void)[] = [];
const elements = (domain: bigint, input: bigint[], expected: bigint): void => {
  cases.push(() => put(0n, ...limbs64(domain), BigInt(input.length), ...input.flatMap(limbs64), ...limbs64(expected)));
};
const struct = (bytes: Uint8Array, expected: bigint): void => {
  const { words, fields } = structBitWords(bytes);
  const w = [...words].map(BigInt);
  cases.push(() => put(1n, ...limbs64(ALEO_POSEIDON8_DOMAIN), BigInt(w.length), ...w, BigInt(fields), ...limbs64(expected)));
};

const snarkvm = load<{ domain: string; cases: { inputs: string[]; expected: string }[] }>('snarkvm-poseidon8-test-vectors.json');
for (const c of snarkvm.cases) elements(domainFromText(snarkvm.domain), c.inputs.map(BigInt), BigInt(c.expected));
const random = load<{ cases: { inputs: string[]; expectedField: string }[] }>('aleo-poseidon8-random-field-vectors.json');
for (const c of random.cases) elements(ALEO_POSEIDON8_DOMAIN, c.inputs.map(BigInt), BigInt(c.expectedField));
const format = load<{ cases: { chunks: number; messageHex: string; hashField: string }[] }>('format-message-hash-vectors.json');
for (const c of format.cases) {
  const bytes = new Uint8Array(c.chunks * 512);
  bytes.set(Buffer.from(c.messageHex, 'hex'));
  struct(bytes, BigInt(c.hashField));
}
for (let seed = 0; seed < 8; seed++) {
  const bytes = randomStruct(seed);
  struct(bytes, poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)));
}

put(BigInt(cases.length));
for (const c of cases) c();
process.stdout.write(out.join('\n') + '\n');
