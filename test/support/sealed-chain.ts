/**
 * A LedgerChain (./ledger-chain.ts) whose blocks commit to what they hold, as snarkVM's do: every
 * public input id the hash of its value, transition and transaction ids the roots of theirs, the
 * transactions root, header root and block hash recomputed, each block's previous_hash the one
 * before. Computed with the verifier's own code (src/aleo): the real mainnet block and transactions
 * (test/vectors/mainnet-inclusion.test.ts) anchor that code to snarkVM; this chain exercises the
 * audit's pipeline and a node that lies about it. Served at /blocks, /block/{h} and
 * /block/height/latest, with `lie(h, change)` to serve one block's JSON changed on both routes.
 */
import { bigIntToLeBytes, decodeBech32m, encodeBech32m } from '../../src/aleo/bech32m.js';
import { bech32Id, fieldLiteral, readHeader } from '../../src/aleo/block/blockJson.js';
import { blockHash, headerRoot } from '../../src/aleo/block/header.js';
import { transactionsRoot } from '../../src/aleo/block/transactionsRoot.js';
import { executionTransactionId, functionId, INPUT_VARIANT, inputId, OUTPUT_VARIANT, transitionId } from '../../src/aleo/inclusion/ids.js';
import type { LedgerChain } from './ledger-chain.js';
import { jsonAnswer, type LedgerNode } from './ledger-node.js';

/** A mainnet address (../shared/vectors/aleo/mainnet/tx-transfer-public.json). */
const REAL_ADDRESS = 'aleo1vs44yrqhmg77afudr43k2zeuqe724adc7p8ps0thjfy5e0wfksgsarj6pj';
const field = (hrp: string, x: bigint) => encodeBech32m(hrp, bigIntToLeBytes(x, 32));

function sealTransition(tr: any): bigint {
  const tcm = fieldLiteral(tr.tcm, 'tcm');
  const fid = functionId(0, tr.program, tr.function);
  const leaves = tr.inputs.map((inp: any, i: number) => {
    // The chain's placeholder signatures and addresses carry no checksum: well-formed ones in their place.
    if (inp.type === 'public' && typeof inp.value === 'string' && inp.value.startsWith('sign1') && typeof decodeBech32m(inp.value, 'sign') === 'string') inp.value = encodeBech32m('sign', new Uint8Array(128).fill(1));
    if (inp.type === 'public' && typeof inp.value === 'string' && inp.value.startsWith('aleo1') && typeof decodeBech32m(inp.value, 'aleo') === 'string') inp.value = REAL_ADDRESS;
    if (inp.type === 'public') inp.id = `${inputId(fid, inp.value, tcm, i)}field`;
    return { variant: INPUT_VARIANT[inp.type] as number, id: fieldLiteral(inp.id, 'input id') };
  });
  for (const o of tr.outputs) leaves.push({ variant: OUTPUT_VARIANT[o.type] as number, id: fieldLiteral(o.id, 'output id') });
  const id = transitionId(leaves, tcm);
  tr.id = field('au', id);
  return id;
}

function sealTransaction(tx: any): void {
  const ids = tx.type === 'execute' ? tx.execution.transitions.map(sealTransition) : [];
  const fee = tx.fee ? sealTransition(tx.fee.transition) : null;
  tx.id = field('at', executionTransactionId(ids, fee));
}

/** Block `height` of `chain`, sealed: `previousHash` (a field) is the hash of the block before. */
export function sealBlock(block: any, previousHash: bigint): { block: any; hash: bigint } {
  const b = JSON.parse(JSON.stringify(block));
  for (const c of b.transactions) sealTransaction(c.transaction);
  b.header.previous_state_root = field('sr', 7n);
  b.header.transactions_root = `${transactionsRoot(b.transactions.map((c: any) => bech32Id(c.transaction.id, 'at', 'transaction id')))}field`;
  b.previous_hash = field('ab', previousHash);
  const hash = blockHash(previousHash, headerRoot(readHeader(b.header)));
  b.block_hash = field('ab', hash);
  return { block: b, hash };
}

export interface SealedChain {
  block(height: number): any;
  /** Serves block `height` (both routes) as `change` leaves a copy of it. */
  lie(height: number, change: (block: any) => void): void;
  install(node: LedgerNode): void;
}

export function sealChain(chain: LedgerChain): SealedChain {
  const sealed = new Map<number, any>();
  let previous = 1n;
  for (let h = chain.first; h <= chain.latest; h++) {
    const { block, hash } = sealBlock(chain.block(h), previous);
    sealed.set(h, block);
    previous = hash;
  }
  const served = new Map<number, any>();
  const at = (h: number) => served.get(h) ?? sealed.get(h);
  return {
    block: (h) => sealed.get(h),
    lie(h, change) {
      const copy = JSON.parse(JSON.stringify(sealed.get(h)));
      change(copy);
      served.set(h, copy);
    },
    install(node) {
      node.addRoute('GET', /^\/block\/height\/latest$/, () => jsonAnswer(chain.latest));
      node.addRoute('GET', /^\/blocks$/, ({ query }) => {
        const s = Number(query.get('start'));
        const e = Number(query.get('end'));
        if (!Number.isInteger(s) || !Number.isInteger(e) || e <= s || e - s > 50 || s < chain.first || e - 1 > chain.latest) return { status: 500, body: `Invalid block range ${s}..${e}` };
        const out = [];
        for (let h = s; h < e; h++) out.push(at(h));
        return { status: 200, body: JSON.stringify(out, null, 2), headers: { 'content-type': 'application/json' } };
      });
      node.addRoute('GET', /^\/block\/(\d+)$/, ({ params: [h = ''] }) => {
        const b = at(Number(h));
        return b === undefined ? { status: 500, body: `Missing block ${h}` } : { status: 200, body: JSON.stringify(b, null, 2), headers: { 'content-type': 'application/json' } };
      });
    },
  };
}
