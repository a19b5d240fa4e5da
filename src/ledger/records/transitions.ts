/**
 * Ledger items of `reverify` and of the server's ledger watcher (their transactions come from
 * src/ledger/node/blockScanner.ts or saved transaction JSON): the programs to follow, and the
 * followed oracle programs' transitions of a transaction (the programs and their transitions come
 * from the registry, src/ledger/programs.ts). A transaction lists every transition it executed, those of
 * programs called by another program's transition included, so wrapped oracle calls are found too.
 */
import { kindOfMeasurement } from '../../verify/kinds/index.js';
import { KNOWN_PROGRAM_IDS, normaliseProgramId, oracleProgram, OWNER_INPUT, ownerKindOf, UPDATE_INPUTS, updateKindOf } from '../programs.js';
import { toFailure } from '../../verify/failure.js';
import { VerifierError } from '../../errors.js';
import type { ErrorCode } from '../../errorCodes.js';
import { canonical, type OutputRecord } from './updateRecord.js';
import type { LedgerRecordCode } from './errors.js';

/** One thing found on the ledger: an update to verify, or an owner record ready to write. */
export type LedgerItem =
  | { type: 'update'; base: UpdateBase; userData: string; report: string }
  | { type: 'update-malformed'; record: OutputRecord }
  | { type: 'owner'; record: OutputRecord };

export type UpdateBase = Pick<OutputRecord, 'transactionId' | 'transitionId' | 'blockHeight' | 'id' | 'program' | 'function'>;

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The programs to follow: the given names (`.aleo` optional), else all known programs. Every name
 * must be a known oracle program: an unknown one is a usage error of whoever named it (a CLI
 * option or a config key), CLI_USAGE for both.
 */
export function programsToFollow(names: readonly string[] | undefined, where: string): string[] {
  if (names === undefined || names.length === 0) return [...KNOWN_PROGRAM_IDS];
  const ids = [...new Set(names.map(normaliseProgramId))];
  const unknown = ids.filter((id) => !oracleProgram(id));
  if (unknown.length) throw new VerifierError<ErrorCode>('CLI_USAGE', `${where}: unknown oracle program ${unknown.join(', ')} (known: ${KNOWN_PROGRAM_IDS.join(', ')})`);
  return ids;
}

/**
 * The inner execute transaction of any of the shapes a node serves: a confirmed transaction
 * (`{status, type, index, transaction}`), `?metadata=true` (`{transaction, block_height}`), or the
 * bare transaction. Rejected transactions (status ≠ accepted) yield nothing.
 */
export function unwrapTransaction(v: unknown): { tx: Json; height?: number } | undefined {
  if (!isObj(v)) return undefined;
  if (typeof v.status === 'string' && v.status !== 'accepted') return undefined;
  const height = typeof v.block_height === 'number' ? v.block_height : undefined;
  const inner = isObj(v.transaction) ? v.transaction : v;
  if (!isObj(inner.execution)) return undefined;
  return height === undefined ? { tx: inner } : { tx: inner, height };
}

function publicValue(inputs: unknown, i: number): string | undefined {
  if (!Array.isArray(inputs)) return undefined;
  const x: unknown = inputs[i];
  if (!isObj(x) || x.type !== 'public' || typeof x.value !== 'string') return undefined;
  return x.value;
}


/** The followed programs' update and owner transitions of one transaction, in transition order. */
export function itemsOfTransaction(txv: unknown, programs: readonly string[], heightHint?: number): LedgerItem[] {
  const u = unwrapTransaction(txv);
  if (!u) return [];
  const height = u.height ?? heightHint;
  const transactionId = typeof u.tx.id === 'string' ? u.tx.id : undefined;
  const transitions = (u.tx.execution as Json).transitions;
  if (!Array.isArray(transitions)) return [];
  const items: LedgerItem[] = [];
  for (const t of transitions) {
    if (!isObj(t) || typeof t.program !== 'string' || !programs.includes(t.program) || typeof t.function !== 'string') continue;
    const program = t.program;
    const fn = t.function;
    const base: UpdateBase = {
      ...(transactionId !== undefined ? { transactionId } : {}),
      ...(typeof t.id === 'string' ? { transitionId: t.id } : {}),
      ...(height !== undefined ? { blockHeight: height } : {}),
      program,
      function: fn,
    };
    const kind = updateKindOf(program, fn);
    const sets = ownerKindOf(program, fn);
    if (kind !== undefined) {
      const userData = publicValue(t.inputs, UPDATE_INPUTS.userData);
      const report = publicValue(t.inputs, UPDATE_INPUTS.report);
      if (userData === undefined || report === undefined) {
        items.push({
          type: 'update-malformed',
          record: canonical({
            ...base,
            kind,
            reportValid: false,
            errorCode: 'LEDGER_TRANSITION_MALFORMED',
            errorString: `${program}/${fn}: inputs ${UPDATE_INPUTS.userData} and ${UPDATE_INPUTS.report} must be public values (report_data, report)`,
            measurements: {},
          }),
        });
      } else items.push({ type: 'update', base, userData, report });
    } else if (sets !== undefined) {
      const value = publicValue(t.inputs, OWNER_INPUT);
      const rec: OutputRecord = { ...base, kind: 'measurement' };
      try {
        if (value === undefined) throw new VerifierError<LedgerRecordCode>('LEDGER_TRANSITION_MALFORMED', `${program}/${fn}: input ${OWNER_INPUT} is not a public value`);
        const m = kindOfMeasurement(sets)!.target.ledger;
        rec.measurement = { [sets]: m.hex(m.fromLeo(value)) };
      } catch (e) {
        const f = toFailure(e);
        rec.errorCode = f.code;
        rec.errorString = f.message;
      }
      items.push({ type: 'owner', record: canonical(rec) });
    }
  }
  return items;
}
