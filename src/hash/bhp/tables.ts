/**
 * The lookup tables of the mainnet hashers, computed on first use of each (≈ 40–50 ms each, in
 * BigInt) and kept for the thread's life; both backends read them (the native one hands them to
 * the addon once).
 */
import { buildTables, type BhpParameters, type BhpTables } from './hasher.js';

const tables = new Map<BhpParameters, BhpTables>();

export function tablesOf(p: BhpParameters): BhpTables {
  let t = tables.get(p);
  if (t === undefined) {
    t = buildTables(p);
    tables.set(p, t);
  }
  return t;
}
