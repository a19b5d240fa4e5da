/**
 * The inclusion proof of one transition: that the values an update carries are committed in the
 * block the node placed it in, link by link, each link named:
 *   1. every public (and constant) input id is Poseidon8(function id, value, tcm, index)
 *   2. the transition id commits to its input and output ids and tcm
 *   3. the transaction id commits to its transitions' ids and the fee's
 *   4. the transaction is one of the block's confirmed transactions
 *   5. the block's transactions root is the root of those confirmed transaction ids
 *   6. the block hash is BHP1024(previous hash ‖ header root)
 * What this proves: the values are in the block whose hash it returns. That the hash is the
 * chain's (not a node's own fork) is the caller's to confirm, with a second source.
 */
import { bech32Id, BlockJsonError, fieldLiteral, jsonObject, readHeader, readTransactionIds } from '../block/blockJson.js';
import { blockHash, headerRoot } from '../block/header.js';
import { transactionsRoot } from '../block/transactionsRoot.js';
import type { InclusionCode } from './errors.js';
import { executionTransactionId, functionId, INPUT_VARIANT, inputId, OUTPUT_VARIANT, transitionId } from './ids.js';
import { PlaintextError } from './plaintext.js';

export type InclusionLink = 'input id' | 'transition id' | 'transaction id' | 'in block' | 'transactions root' | 'block hash';

export type InclusionProof =
  | { readonly status: 'proven'; readonly blockHash: bigint; readonly height: bigint }
  | { readonly status: 'failed'; readonly code: InclusionCode; readonly link: InclusionLink | 'block'; readonly detail: string };

/** Mainnet's network id (snarkVM `MainnetV0::ID`). */
export const MAINNET_ID = 0;

class Failure extends Error {
  constructor(readonly code: InclusionCode, readonly link: InclusionLink | 'block', detail: string) {
    super(detail);
  }
}

function read<T>(link: InclusionLink | 'block', f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof BlockJsonError) throw new Failure(link === 'block' ? 'INCLUSION_HEADER_MISSING' : 'INCLUSION_UNSUPPORTED', link, e.message);
    throw e;
  }
}

function array(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw new BlockJsonError(`${path}: expected an array`);
  return v;
}

function checkTransition(t: Record<string, unknown>, networkId: number, path: string): bigint {
  const program = t.program;
  const fn = t.function;
  if (typeof program !== 'string' || !/^[a-z][a-z0-9_]*\.aleo$/.test(program) || typeof fn !== 'string' || !/^[A-Za-z][A-Za-z0-9_]*$/.test(fn)) {
    throw new BlockJsonError(`${path}: program or function is not an identifier`);
  }
  const tcm = fieldLiteral(t.tcm, `${path}.tcm`);
  const fnId = functionId(networkId, program, fn);
  const inputs = array(t.inputs, `${path}.inputs`);
  const outputs = array(t.outputs, `${path}.outputs`);
  const leaves = inputs.map((raw, i) => {
    const input = jsonObject(raw, `${path}.inputs[${i}]`);
    const variant = INPUT_VARIANT[String(input.type)];
    if (variant === undefined) throw new BlockJsonError(`${path}.inputs[${i}]: unknown input type ${JSON.stringify(input.type)}`);
    const id = fieldLiteral(input.id, `${path}.inputs[${i}].id`);
    if ((input.type === 'public' || input.type === 'constant') && input.value !== undefined) {
      if (typeof input.value !== 'string') throw new BlockJsonError(`${path}.inputs[${i}].value: expected a Leo value`);
      let computed: bigint;
      try {
        computed = inputId(fnId, input.value, tcm, i);
      } catch (e) {
        if (e instanceof PlaintextError) throw new Failure('INCLUSION_UNSUPPORTED', 'input id', `${path}.inputs[${i}].value: ${e.message}`);
        throw e;
      }
      if (computed !== id) {
        throw new Failure('INCLUSION_INPUT_ID_MISMATCH', 'input id', `${path}.inputs[${i}] (${program}/${fn}): the value ${input.value.slice(0, 120)} hashes to ${computed}field, the transition commits to ${id}field`);
      }
    }
    return { variant, id };
  });
  outputs.forEach((raw, i) => {
    const output = jsonObject(raw, `${path}.outputs[${i}]`);
    const variant = OUTPUT_VARIANT[String(output.type)];
    if (variant === undefined) throw new BlockJsonError(`${path}.outputs[${i}]: unknown output type ${JSON.stringify(output.type)}`);
    leaves.push({ variant, id: fieldLiteral(output.id, `${path}.outputs[${i}].id`) });
  });
  if (leaves.length > 32) throw new BlockJsonError(`${path}: ${leaves.length} inputs and outputs, more than a transition holds`);
  const stated = bech32Id(t.id, 'au', `${path}.id`);
  const computed = transitionId(leaves, tcm);
  if (computed !== stated) throw new Failure('INCLUSION_TRANSITION_ID_MISMATCH', 'transition id', `${path} (${program}/${fn}): its inputs and outputs hash to another id than ${String(t.id)}`);
  return stated;
}

/**
 * Proves the transition `transitionIdText` of the confirmed transaction `confirmed` (an element of
 * a block's `transactions`) included in `block` (snarkOS's block JSON: header, block_hash,
 * previous_hash, transactions). Every transition of the transaction is checked, not only the one
 * asked for: the transaction id commits to them all.
 */
export function proveInclusion(block: unknown, confirmed: unknown, transitionIdText: string, networkId = MAINNET_ID): InclusionProof {
  try {
    const b = read('block', () => jsonObject(block, 'block'));
    const header = read('block', () => readHeader(b.header, 'block.header'));
    const stated = read('block', () => bech32Id(b.block_hash, 'ab', 'block.block_hash'));
    const previous = read('block', () => bech32Id(b.previous_hash, 'ab', 'block.previous_hash'));
    const ids = read('block', () => readTransactionIds(b.transactions, 'block.transactions'));

    const c = read('transaction id', () => jsonObject(confirmed, 'transaction'));
    if (c.status !== undefined && c.status !== 'accepted') throw new Failure('INCLUSION_UNSUPPORTED', 'transaction id', `the transaction is ${String(c.status)}: a rejected transaction's execution is not what its confirmed id commits to`);
    const tx = read('transaction id', () => jsonObject(c.transaction ?? c, 'transaction'));
    if (tx.type !== 'execute') throw new Failure('INCLUSION_UNSUPPORTED', 'transaction id', `a ${String(tx.type)} transaction, not an execution`);
    const txId = read('transaction id', () => bech32Id(tx.id, 'at', 'transaction.id'));
    const execution = read('transaction id', () => jsonObject(tx.execution, 'transaction.execution'));
    const transitions = read('transaction id', () => array(execution.transitions, 'transaction.execution.transitions'));
    if (transitions.length === 0 || transitions.length >= 32) throw new Failure('INCLUSION_UNSUPPORTED', 'transaction id', `${transitions.length} transitions: an execution holds 1 to 31`);
    const wanted = read('transition id', () => bech32Id(transitionIdText, 'au', 'the transition id asked for'));
    const transitionIds = transitions.map((t, i) => read('transition id', () => checkTransition(jsonObject(t, `transitions[${i}]`), networkId, `transitions[${i}]`)));
    if (!transitionIds.includes(wanted)) throw new Failure('INCLUSION_TRANSITION_ID_MISMATCH', 'transition id', `the transaction holds no transition ${transitionIdText}`);
    let feeId: bigint | null = null;
    if (tx.fee !== undefined && tx.fee !== null) {
      const fee = read('transaction id', () => jsonObject(jsonObject(tx.fee, 'transaction.fee').transition, 'transaction.fee.transition'));
      feeId = read('transition id', () => checkTransition(fee, networkId, 'fee.transition'));
    }
    if (executionTransactionId(transitionIds, feeId) !== txId) throw new Failure('INCLUSION_TRANSACTION_ID_MISMATCH', 'transaction id', `its transitions hash to another id than ${String(tx.id)}`);
    if (!ids.includes(txId)) throw new Failure('INCLUSION_NOT_IN_BLOCK', 'in block', `block ${header.metadata.height} holds no transaction ${String(tx.id)}`);
    const root = transactionsRoot(ids);
    if (root !== header.transactionsRoot) throw new Failure('INCLUSION_TRANSACTIONS_ROOT_MISMATCH', 'transactions root', `block ${header.metadata.height}: its ${ids.length} confirmed transaction ids hash to ${root}field, its header states ${header.transactionsRoot}field`);
    if (blockHash(previous, headerRoot(header)) !== stated) throw new Failure('INCLUSION_BLOCK_HASH_MISMATCH', 'block hash', `block ${header.metadata.height}: its header and previous hash do not hash to ${String(b.block_hash)}`);
    return { status: 'proven', blockHash: stated, height: header.metadata.height };
  } catch (e) {
    if (e instanceof Failure) return { status: 'failed', code: e.code, link: e.link, detail: e.message };
    throw e;
  }
}
