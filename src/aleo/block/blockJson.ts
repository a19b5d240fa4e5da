/**
 * Reading the commitments of a block out of snarkOS's JSON (`GET /{network}/block/{h}` or
 * `…/header`): field literals (`123field`), Bech32m ids (`ab1…`, `sr1…`, `at1…`), integers that
 * may be strings (see losslessJson.ts).
 */
import { FIELD_MODULUS } from '../../hash/field.js';
import { decodeBech32m, leBytesToBigInt } from '../bech32m.js';
import type { HeaderRoots, Metadata } from './header.js';

export class BlockJsonError extends Error {}

function fail(path: string, why: string): never {
  throw new BlockJsonError(`${path}: ${why}`);
}

export function fieldLiteral(v: unknown, path: string): bigint {
  if (typeof v !== 'string' || !/^[0-9]{1,77}field$/.test(v)) fail(path, 'expected a field literal such as 123field');
  const x = BigInt(v.slice(0, -5));
  if (x >= FIELD_MODULUS) fail(path, 'not below the field modulus');
  return x;
}

export function bech32Id(v: unknown, hrp: string, path: string): bigint {
  if (typeof v !== 'string') fail(path, `expected a ${hrp}1… id`);
  const bytes = decodeBech32m(v, hrp);
  if (typeof bytes === 'string') fail(path, `not a ${hrp}1… id (${bytes})`);
  if (bytes.length !== 32) fail(path, `a ${hrp}1… id holds 32 bytes, this one ${bytes.length}`);
  const x = leBytesToBigInt(bytes);
  if (x >= FIELD_MODULUS) fail(path, 'not below the field modulus');
  return x;
}

function integer(v: unknown, path: string, bits: number, signed = false): bigint {
  const text = typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v;
  if (typeof text !== 'string' || !/^-?[0-9]{1,40}$/.test(text)) fail(path, 'expected an integer');
  const x = BigInt(text);
  const min = signed ? -(1n << BigInt(bits - 1)) : 0n;
  const max = signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  if (x < min || x > max) fail(path, `out of range for ${signed ? 'i' : 'u'}${bits}`);
  return x;
}

function record(v: unknown, path: string): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'expected an object');
  return v as Record<string, unknown>;
}

export function readMetadata(v: unknown, path = 'header.metadata'): Metadata {
  const m = record(v, path);
  return {
    network: integer(m.network, `${path}.network`, 16),
    round: integer(m.round, `${path}.round`, 64),
    height: integer(m.height, `${path}.height`, 32),
    cumulativeWeight: integer(m.cumulative_weight, `${path}.cumulative_weight`, 128),
    cumulativeProofTarget: integer(m.cumulative_proof_target, `${path}.cumulative_proof_target`, 128),
    coinbaseTarget: integer(m.coinbase_target, `${path}.coinbase_target`, 64),
    proofTarget: integer(m.proof_target, `${path}.proof_target`, 64),
    lastCoinbaseTarget: integer(m.last_coinbase_target, `${path}.last_coinbase_target`, 64),
    lastCoinbaseTimestamp: integer(m.last_coinbase_timestamp, `${path}.last_coinbase_timestamp`, 64, true),
    timestamp: integer(m.timestamp, `${path}.timestamp`, 64, true),
  };
}

export function readHeader(v: unknown, path = 'header'): HeaderRoots {
  const h = record(v, path);
  return {
    previousStateRoot: bech32Id(h.previous_state_root, 'sr', `${path}.previous_state_root`),
    transactionsRoot: fieldLiteral(h.transactions_root, `${path}.transactions_root`),
    finalizeRoot: fieldLiteral(h.finalize_root, `${path}.finalize_root`),
    ratificationsRoot: fieldLiteral(h.ratifications_root, `${path}.ratifications_root`),
    solutionsRoot: fieldLiteral(h.solutions_root, `${path}.solutions_root`),
    subdagRoot: fieldLiteral(h.subdag_root, `${path}.subdag_root`),
    metadata: readMetadata(h.metadata, `${path}.metadata`),
  };
}

/** The confirmed transactions' ids of a block's `transactions` array, in order. */
export function readTransactionIds(v: unknown, path = 'transactions'): bigint[] {
  if (!Array.isArray(v)) fail(path, 'expected an array');
  return v.map((t, i) => bech32Id(record(record(t, `${path}[${i}]`).transaction, `${path}[${i}].transaction`).id, 'at', `${path}[${i}].transaction.id`));
}

export { record as jsonObject };
