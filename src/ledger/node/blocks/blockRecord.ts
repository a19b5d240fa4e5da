/**
 * One block as the audit reads it from a `/blocks` answer (./blocksBody.ts), and the named error
 * (LEDGER_NODE_MALFORMED_BLOCKS) for an answer that is not the blocks shape.
 */
import { VerifierError } from '../../../errors.js';
import type { LedgerNodeCode } from '../errors.js';

/** One block as the audit reads it. */
export interface BlockRecord {
  height: number;
  /** `header.metadata.timestamp`: Unix seconds (snarkOS i64). */
  timestamp: number;
  transactions: unknown[];
}

export type BlocksReader = (body: Buffer, start: number) => BlockRecord[];

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

export const malformed = (message: string): never => {
  throw new VerifierError<LedgerNodeCode>('LEDGER_NODE_MALFORMED_BLOCKS', `ledger node: ${message}`);
};
export const where = (index: number, start: number): string => `block #${index} of the answer (height ${start + index} expected)`;

/** The record of one parsed block, or LEDGER_NODE_MALFORMED_BLOCKS naming what it lacks. */
export function blockRecord(b: unknown, index: number, start: number): BlockRecord {
  if (!isObj(b)) return malformed(`${where(index, start)} is not a JSON object`);
  const meta = isObj(b.header) && isObj(b.header.metadata) ? b.header.metadata : undefined;
  const { height, timestamp } = meta ?? {};
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0) {
    return malformed(`${where(index, start)} lacks an integer header.metadata.height (${JSON.stringify(height) ?? 'absent'})`);
  }
  if (typeof timestamp !== 'number' || !Number.isSafeInteger(timestamp)) {
    return malformed(`${where(index, start)} (height ${height}) lacks an integer header.metadata.timestamp (${JSON.stringify(timestamp) ?? 'absent'})`);
  }
  if (!Array.isArray(b.transactions)) return malformed(`${where(index, start)} (height ${height}) has no transactions array`);
  return { height, timestamp, transactions: b.transactions };
}
