/**
 * Ledger items of `reverify` and of the server's ledger watcher (their transactions come from
 * src/ledger/node/blocks/fetchBlocks.ts or saved transaction JSON): the programs to follow, and what
 * each transition of a transaction is, by its function's role in the program registry
 * (src/ledger/programs.ts). A transaction lists every transition it executed, a called program's
 * before its caller's, so wrapped oracle calls are found too.
 *
 * Nothing that writes oracle data goes unaccounted for: an update is verified, a measurement is
 * replayed, an unattested write is recorded as such, a callee is accounted for by its caller's
 * transition in the same transaction; and any other transition, of any program, whose public
 * inputs hold a userData-shaped struct (8 or 10 chunks of 32 u128) followed by a report struct (10
 * chunks) is recorded as an unrecognized update and verified where its inputs decode.
 */
import { parseChunkedStruct, REPORT_CHUNKS } from '../../aleo/struct.js';
import { USER_DATA_CHUNK_COUNTS } from '../../encoding/eras/index.js';
import { normaliseProgramId, PROGRAMS, type FunctionRole, type OracleProgram, type ProgramRegistry } from '../programs.js';
import { unattestedWrite, updateWriteSpec, writesOfText, type MappingWrite, type UpdateWriteSpec } from './mappingWrites.js';
import { toFailure } from '../../verify/failure.js';
import { VerifierError } from '../../errors.js';
import type { ErrorCode } from '../../errorCodes.js';
import { canonical, type OutputRecord, type UpdateBase } from './updateRecord.js';
export type { UpdateBase };
import type { LedgerRecordCode } from './errors.js';
import { kindOfMeasurement } from '../../verify/kinds/index.js';

/** One thing found on the ledger: an update to verify, or a record ready to write. */
export type LedgerItem =
  | UpdateItem
  | { type: 'update-malformed'; record: OutputRecord }
  | { type: 'owner'; record: OutputRecord }
  | { type: 'unattested'; record: OutputRecord };

/**
 * An update to verify. `writeSpec`: where its program stores its requests (absent: nothing
 * tracked); the writes themselves are computed from the userData where it is parsed anyway (a
 * verification worker: VerifyOutcome.requestKeys), else by writesOfUpdate.
 */
export interface UpdateItem {
  type: 'update';
  base: UpdateBase;
  userData: string;
  report: string;
  writeSpec?: UpdateWriteSpec;
  /** Judge it as it stood at this time (epoch ms: its block's timestamp, blockTimes.ts); absent: judged now. */
  asOf?: number;
}

/** What an update item writes into the data mapping, computed on this thread from its userData text. */
export function writesOfUpdate(it: UpdateItem): MappingWrite[] {
  return it.writeSpec ? writesOfText(it.writeSpec, it.userData) : [];
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The programs to follow: the given names (`.aleo` optional) with their related programs (an
 * interface's data program and council), else every program of the registry. Every name must be a
 * known oracle program: an unknown one is a usage error of whoever named it (a CLI option or a
 * config key), CLI_USAGE for both.
 */
export function programsToFollow(names: readonly string[] | undefined, where: string, registry: ProgramRegistry = PROGRAMS): string[] {
  if (names === undefined || names.length === 0) return registry.ids;
  const ids = [...new Set(names.map(normaliseProgramId))];
  const unknown = ids.filter((id) => !registry.program(id));
  if (unknown.length) throw new VerifierError<ErrorCode>('CLI_USAGE', `${where}: unknown oracle program ${unknown.join(', ')} (known: ${registry.ids.join(', ')})`);
  return registry.withRelated(ids);
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

/** The shortest text a chunked struct of 8 chunks can have (32 fields of `fN: 0u128` a chunk). */
const MIN_STRUCT_TEXT = 8 * 32 * 9;

function isChunkedStruct(text: string, chunks: readonly number[]): boolean {
  if (text.length < MIN_STRUCT_TEXT || !text.includes('c7')) return false;
  for (const n of chunks) {
    try {
      parseChunkedStruct(text, n, 'input');
      return true;
    } catch {
      /* another chunk count, or not a struct */
    }
  }
  return false;
}

/** Whether some public input is long enough to be a chunked struct (a cheap first look before updateShapedInputs). */
function hasStructSizedInput(inputs: unknown): boolean {
  if (!Array.isArray(inputs)) return false;
  for (let i = 0; i < inputs.length; i++) {
    const v = publicValue(inputs, i);
    if (v !== undefined && v.length >= MIN_STRUCT_TEXT) return true;
  }
  return false;
}

/**
 * Where a transition of no known role carries an update: its first public input of the userData
 * shape and a later one of the report shape. undefined when it carries none.
 */
export function updateShapedInputs(inputs: unknown): { userData: number; report: number } | undefined {
  if (!Array.isArray(inputs)) return undefined;
  for (let i = 0; i < inputs.length; i++) {
    const u = publicValue(inputs, i);
    if (u === undefined || !isChunkedStruct(u, USER_DATA_CHUNK_COUNTS)) continue;
    for (let j = i + 1; j < inputs.length; j++) {
      const r = publicValue(inputs, j);
      if (r !== undefined && isChunkedStruct(r, [REPORT_CHUNKS])) return { userData: i, report: j };
    }
    return undefined;
  }
  return undefined;
}

function malformed(base: UpdateBase, kind: string, message: string): LedgerItem {
  return {
    type: 'update-malformed',
    record: canonical({ ...base, kind, reportValid: false, errorCode: 'LEDGER_TRANSITION_MALFORMED', errorString: message, measurements: {} }),
  };
}

/** What one transition is, by its role in `program` (undefined: nothing to account for). */
function itemOf(t: Json, program: OracleProgram | undefined, base: UpdateBase, present: () => ReadonlySet<string>): LedgerItem | undefined {
  const role = program && base.function !== undefined && Object.hasOwn(program.functions, base.function) ? program.functions[base.function] : undefined;
  const where = `${base.program}/${base.function}`;
  if (role?.role === 'update') {
    const userData = publicValue(t.inputs, role.userData);
    const report = publicValue(t.inputs, role.report);
    if (userData === undefined || report === undefined) {
      return malformed(base, role.kind, `${where}: inputs ${role.userData} and ${role.report} must be public values (report_data, report)`);
    }
    const writeSpec = updateWriteSpec(program?.attestedData, role.kind, base.function!);
    return { type: 'update', base, userData, report, ...(writeSpec ? { writeSpec } : {}) };
  }
  if (role?.role === 'measurement') {
    const value = publicValue(t.inputs, role.input);
    const rec: OutputRecord = { ...base, kind: 'measurement' };
    try {
      if (value === undefined) throw new VerifierError<LedgerRecordCode>('LEDGER_TRANSITION_MALFORMED', `${where}: input ${role.input} is not a public value`);
      const m = kindOfMeasurement(role.sets)!.target.ledger;
      rec.measurement = { [role.sets]: m.hex(m.fromLeo(value)) };
    } catch (e) {
      const f = toFailure(e);
      rec.errorCode = f.code;
      rec.errorString = f.message;
    }
    return { type: 'owner', record: canonical(rec) };
  }
  if (role?.role === 'unattested') {
    const key = publicValue(t.inputs, role.key);
    const value = publicValue(t.inputs, role.value);
    let mapping: string | undefined;
    if (typeof role.mapping === 'string') mapping = role.mapping;
    else {
      const sel = publicValue(t.inputs, role.mapping.input);
      mapping = sel === 'true' ? role.mapping.ifTrue : sel === 'false' ? role.mapping.ifFalse : undefined;
    }
    const rec: OutputRecord = { ...base, kind: 'unattested', outcome: 'unattested' };
    if (key === undefined || value === undefined || mapping === undefined) {
      rec.errorCode = 'LEDGER_TRANSITION_MALFORMED';
      rec.errorString = `${where}: inputs ${role.key} (key) and ${role.value} (value)${typeof role.mapping === 'string' ? '' : ` and ${role.mapping.input} (which mapping)`} must be public values`;
    } else {
      rec.written = { mapping, key, value: value.replace(/\s+/g, ' ').trim() };
      const w = unattestedWrite(program?.mappingProgram ?? base.program!, rec.written);
      if (w) rec.mappingWrites = [w];
    }
    return { type: 'unattested', record: canonical(rec) };
  }
  if (role?.role === 'ignored') return undefined;
  if (role?.role === 'callee' && present().has(normaliseProgramId(role.caller))) return undefined;
  // No role (or a callee without its caller): an update whenever the inputs have its shape.
  const shaped = updateShapedInputs(t.inputs);
  if (!shaped) return undefined;
  return { type: 'update', base: { ...base, unrecognized: true }, userData: publicValue(t.inputs, shaped.userData)!, report: publicValue(t.inputs, shaped.report)! };
}

/** The followed programs as a set, built once per list (a scan passes the same list for every transaction). */
const followedSets = new WeakMap<readonly string[], ReadonlySet<string>>();
function followedSetOf(programs: readonly string[]): ReadonlySet<string> {
  let set = followedSets.get(programs);
  if (!set) followedSets.set(programs, (set = new Set(programs)));
  return set;
}

/**
 * Every transition of one transaction that writes oracle data or carries an update, in transition
 * order: the followed programs' by their roles, and any transition of update shape whose program
 * or function the registry does not name (unrecognized). A known program that is not followed is
 * left out: the caller chose the subset.
 */
export function itemsOfTransaction(txv: unknown, programs: readonly string[], heightHint?: number, registry: ProgramRegistry = PROGRAMS): LedgerItem[] {
  const u = unwrapTransaction(txv);
  if (!u) return [];
  const height = u.height ?? heightHint;
  const transactionId = typeof u.tx.id === 'string' ? u.tx.id : undefined;
  const transitions = (u.tx.execution as Json).transitions;
  if (!Array.isArray(transitions)) return [];
  // The programs present in the transaction: needed only for a callee's transition (built once, then).
  let presentSet: Set<string> | undefined;
  const present = (): ReadonlySet<string> => (presentSet ??= new Set(transitions.flatMap((t) => (isObj(t) && typeof t.program === 'string' ? [t.program] : []))));
  const followedSet = followedSetOf(programs);
  const items: LedgerItem[] = [];
  for (const t of transitions) {
    if (!isObj(t) || typeof t.program !== 'string' || typeof t.function !== 'string') continue;
    const followed = followedSet.has(t.program);
    // A known program left out of the followed set (a --program subset) is the caller's choice.
    if (!followed && registry.program(t.program)) continue;
    // Any other program matters only through an update-shaped input (most transitions of a block).
    if (!followed && !hasStructSizedInput(t.inputs)) continue;
    const base: UpdateBase = {
      ...(transactionId !== undefined ? { transactionId } : {}),
      ...(typeof t.id === 'string' ? { transitionId: t.id } : {}),
      ...(height !== undefined ? { blockHeight: height } : {}),
      program: t.program,
      function: t.function,
    };
    const item = itemOf(t, followed ? registry.program(t.program) : undefined, base, present);
    if (item) items.push(item);
  }
  return items;
}
