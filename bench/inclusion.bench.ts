/**
 * Inclusion proofs: `npx tsx bench/inclusion.bench.ts`
 *   (a) one oracle update proven in its block: a set_data_nitro transaction (userData 8 chunks,
 *       report 10 chunks, signature, address, fee) in a sealed block (test/support/sealed-chain.ts)
 *       with 1 and with 10 transactions
 *   (b) the real mainnet block 1,203,288: proveInclusion of its transfer_public, and its block hash
 *       alone (header root and hash, from the header)
 *   (c) the parts of (a): the public input ids, the transactions root, the header root and hash
 * The BHP backend in use is printed; VERIFIER_BHP_BACKEND chooses it where src/hash/bhp has one.
 * Ends with the projection for every oracle update on mainnet (≈ 12.7 k first-generation, up to
 * ≈ 114 k a year since) at the measured CPU per proven update.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Bench } from 'tinybench';
import * as bhp from '../src/hash/bhp/index.js';
import { checkBlock } from '../src/aleo/block/check.js';
import { readHeader } from '../src/aleo/block/blockJson.js';
import { blockHash, headerRoot } from '../src/aleo/block/header.js';
import { parseJsonLossless } from '../src/aleo/block/losslessJson.js';
import { transactionsRoot } from '../src/aleo/block/transactionsRoot.js';
import { functionId, inputId } from '../src/aleo/inclusion/ids.js';
import { fieldLiteral } from '../src/aleo/block/blockJson.js';
import { proveInclusion } from '../src/aleo/inclusion/prove.js';
import { LedgerChain, t } from '../test/support/ledger-chain.js';
import { makeUserData, reportText } from '../test/support/ledger-reports.js';
import { sealBlock } from '../test/support/sealed-chain.js';
import { pseudoRandomBytes } from '../test/support/random.js';

const real = parseJsonLossless(readFileSync(path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json'), 'utf8')) as any;
const realTransition = real.transactions[0].transaction.execution.transitions[0].id as string;
const { header, block_hash, previous_hash } = real;

function oracleBlock(fillers: number): { block: any; transition: string } {
  const chain = new LedgerChain(100, 100);
  const ud = makeUserData({ attestationData: '123.45678900' });
  chain.add(100, [t.setDataNitro('official_oracle.aleo', ud.text, reportText(pseudoRandomBytes(4000, 9)))]);
  for (let i = 0; i < fillers; i++) chain.add(100, [t.transfer()]);
  const { block } = sealBlock(chain.block(100), 1n);
  const tx = block.transactions.find((c: any) => c.transaction.execution.transitions.some((x: any) => x.function === 'set_data_nitro'));
  return { block, transition: tx.transaction.execution.transitions[0].id };
}
const one = oracleBlock(0);
const ten = oracleBlock(9);
const update = one.block.transactions[0].transaction.execution.transitions[0];
const fnId = functionId(0, update.program, update.function);
const tcm = fieldLiteral(update.tcm, 'tcm');
const headerRoots = readHeader(header);
const prev = 5n;

for (const [name, b, tr] of [['1', one.block, one.transition], ['10', ten.block, ten.transition]] as const) {
  const p = proveInclusion(b, b.transactions.find((c: any) => c.transaction.execution.transitions.some((x: any) => x.id === tr)), tr);
  if (p.status !== 'proven') throw new Error(`the sealed ${name}-transaction block does not prove: ${JSON.stringify(p)}`);
}

let sink = 0n;
const bench = new Bench({ time: 3000, warmupTime: 500 });
bench
  .add('(a) prove one oracle update, block of 1 transaction', () => {
    const c = one.block.transactions[0];
    const p = proveInclusion(one.block, c, one.transition);
    if (p.status === 'proven') sink ^= p.blockHash;
  })
  .add('(a) prove one oracle update, block of 10 transactions', () => {
    const c = ten.block.transactions.find((x: any) => x.transaction.execution.transitions.some((y: any) => y.id === ten.transition));
    const p = proveInclusion(ten.block, c, ten.transition);
    if (p.status === 'proven') sink ^= p.blockHash;
  })
  .add('(b) prove the real transfer_public of block 1,203,288', () => {
    const p = proveInclusion(real, real.transactions[0], realTransition);
    if (p.status === 'proven') sink ^= p.blockHash;
  })
  .add('(b) block hash from the header (header root + hash)', () => {
    sink ^= checkBlock({ header, block_hash, previous_hash }).computedHash;
  })
  .add('(c) the update\'s 4 public input ids (userData 8 chunks, report 10, signature, address)', () => {
    update.inputs.forEach((inp: any, i: number) => {
      sink ^= inputId(fnId, inp.value, tcm, i);
    });
  })
  .add('(c) transactions root of 10 ids (depth 20)', () => {
    sink ^= transactionsRoot(Array.from({ length: 10 }, (_, i) => BigInt(i + 1)));
  })
  .add('(c) header root + block hash', () => {
    sink ^= blockHash(prev, headerRoot(headerRoots));
  })
  .add('(c) one BHP512 (507 bits) / one BHP1024 (1000 bits)', () => {
    sink ^= bhp.bhp512(new Uint8Array(507).fill(1)) ^ bhp.bhp1024(new Uint8Array(1000).fill(1));
  });

await bench.run();
const backend = (bhp as Record<string, unknown>).bhpBackendName ?? 'portable (TypeScript BigInt)';
console.log(`BHP backend: ${String(backend)}`);
const rows: Record<string, number> = {};
for (const task of bench.tasks) {
  const r = task.result;
  if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
  rows[task.name] = r.latency.mean;
  console.log(`${task.name.padEnd(92)} ${r.latency.mean.toFixed(3).padStart(9)} ms  (±${r.latency.rme.toFixed(1)} %, ${r.latency.samplesCount} samples)`);
}
const perUpdate = rows['(a) prove one oracle update, block of 10 transactions'] as number;
for (const [what, n] of [['first-generation updates (≈ 12.7 k)', 12_700], ['a year of updates since (≈ 114 k)', 114_000]] as const) {
  console.log(`projection, ${what}: ${((perUpdate * n) / 60_000).toFixed(1)} min of one core at ${perUpdate.toFixed(2)} ms an update`);
}
if (sink === -1n) console.log('');
