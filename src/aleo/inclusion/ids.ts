/**
 * The ids that commit an execution (snarkVM `ledger/block/src/{transition, transaction}` and
 * `console/program/src/{function_id, request, state_path}`):
 *   function id    BHP1024(network (u16) ‖ |name| (u8) ‖ name ‖ |"aleo"| (u8) ‖ "aleo" ‖ |function| (u8) ‖ function)
 *   input id       Poseidon8(function id, to_fields(value)…, tcm, index)   (public and constant inputs)
 *   transition id  BHP512(root ‖ tcm), root: depth-5 tree of version 1 (u8) ‖ index (u8) ‖ variant (u8) ‖ id
 *                  over the inputs, then the outputs
 *   transaction id the depth-5 tree of variant 1 (u8) ‖ index (u16) ‖ transition id over the
 *                  transitions, then the fee's (an execute transaction)
 */
import { BitString, bhp1024, bhp512, bhpMerkleRoot } from '../../hash/bhp/index.js';
import { ALEO_POSEIDON8_DOMAIN } from '../../hash/domain.js';
import { poseidon8Kernel } from '../../hash/kernel.js';
import { structFieldElements } from '../../hash/structFields.js';
import { parseChunkedStruct } from '../struct.js';
import { plaintextFields } from './plaintext.js';

/** The chunk counts of the oracle's structs (userData 8 or 10, report 10). */
const CHUNKED_COUNTS = [8, 10] as const;

/**
 * `to_fields` of a value's text. The oracle's chunked u128 structs (`{ c0: { f0: …u128, … }, … }`)
 * take the binding hash's own path (parsed to bytes, fields from a template: ≈ 10× faster than
 * the general reader); anything else, or a struct of other names, the general reader.
 */
export function valueFields(text: string): bigint[] {
  if (/^\s*\{\s*c0\s*:/.test(text)) {
    try {
      return structFieldElements(parseChunkedStruct(text, CHUNKED_COUNTS));
    } catch {
      // Not exactly a chunked u128 struct: the general reader decides.
    }
  }
  return plaintextFields(text);
}

export const TRANSITION_DEPTH = 5;
export const TRANSACTION_DEPTH = 5;
const TRANSITION_LEAF_VERSION = 1;
const EXECUTION_LEAF_VARIANT = 1;

/** snarkVM input/output variants in a transition leaf. */
export const INPUT_VARIANT: Readonly<Record<string, number>> = { constant: 0, public: 1, private: 2, record: 3, external_record: 4 };
export const OUTPUT_VARIANT: Readonly<Record<string, number>> = { constant: 0, public: 1, private: 2, record: 3, external_record: 4, future: 5 };

function identifierBits(b: BitString, name: string): void {
  const bytes = new TextEncoder().encode(name);
  b.int(bytes.length * 8, 8).bytes(bytes);
}

export function functionId(networkId: number, program: string, functionName: string): bigint {
  const dot = program.lastIndexOf('.');
  const b = new BitString().int(networkId, 16);
  identifierBits(b, program.slice(0, dot));
  identifierBits(b, program.slice(dot + 1));
  identifierBits(b, functionName);
  return bhp1024(b.toArray());
}

export function inputId(fnId: bigint, valueText: string, tcm: bigint, index: number): bigint {
  return poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, [fnId, ...valueFields(valueText), tcm, BigInt(index)]);
}

export interface TransitionLeafInput {
  readonly variant: number;
  readonly id: bigint;
}

export function transitionId(leaves: readonly TransitionLeafInput[], tcm: bigint): bigint {
  const root = bhpMerkleRoot(
    TRANSITION_DEPTH,
    leaves.map((l, index) => new BitString().int(TRANSITION_LEAF_VERSION, 8).int(index, 8).int(l.variant, 8).field(l.id).toArray()),
  );
  return bhp512(new BitString().field(root).field(tcm).toArray());
}

/** The id of an execute transaction from its transitions' ids and its fee transition's id. */
export function executionTransactionId(transitionIds: readonly bigint[], feeTransitionId: bigint | null): bigint {
  const ids = feeTransitionId === null ? transitionIds : [...transitionIds, feeTransitionId];
  return bhpMerkleRoot(
    TRANSACTION_DEPTH,
    ids.map((id, index) => new BitString().int(EXECUTION_LEAF_VARIANT, 8).int(index, 16).field(id).toArray()),
  );
}
