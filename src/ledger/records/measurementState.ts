/**
 * The measurement-in-force replay of `reverify` and `merge`: the measurements each program held,
 * replayed from its owner transitions in ledger order, and the update records annotated with
 * whether their measurements are the ones in force. Measurements in force are kept per program
 * holding the mappings (era 4: the data program), so an update is compared with what its own
 * program's owner set.
 */
import { PROGRAMS, type ProgramRegistry } from '../programs.js';
import { isReportType, KINDS, reportKind } from '../../verify/kinds/index.js';
import { canonical, isOwnerRecord, type OutputRecord } from './updateRecord.js';

type Value = string | readonly string[];

/** Whether a record's measurement (hex) equals the one in force. */
function sameValue(got: unknown, held: Value): boolean {
  if (typeof held === 'string') return got === held;
  return Array.isArray(got) && got.length === held.length && got.every((p, i) => p === held[i]);
}

/** The program whose mappings a record's measurements belong to ('' when the record names none). */
function measurementDomain(r: OutputRecord, registry: ProgramRegistry): string {
  return r.program === undefined ? '' : registry.measurementLocation(r.program).program;
}

/** Measurements each program held, replayed from its owner transitions in ledger order. */
export class MeasurementState {
  /** Per program holding the mappings: each measurement (by its ledger name) in force and the height it was set at. */
  private readonly held = new Map<string, Map<string, { value: Value; height: number }>>();

  constructor(private readonly registry: ProgramRegistry = PROGRAMS) {}

  apply(r: OutputRecord): void {
    if (!isOwnerRecord(r) || !r.measurement || r.blockHeight === undefined) return;
    const key = measurementDomain(r, this.registry);
    const h = this.held.get(key) ?? new Map<string, { value: Value; height: number }>();
    for (const k of KINDS) {
      const name = k.target.ledger.name;
      const value = r.measurement[name];
      if (value !== undefined) h.set(name, { value, height: r.blockHeight });
    }
    this.held.set(key, h);
  }

  /**
   * The update record with measurementInForce set: whether its measurement is the one in force, or
   * `unknown` with the reason when no owner transition setting it was replayed for its program
   * (records of no report kind, such as unattested writes, get none).
   */
  annotate(r: OutputRecord): OutputRecord {
    const { measurementInForce: _old, ...rest } = r;
    const name = isReportType(r.kind) ? reportKind(r.kind).target.ledger.name : undefined;
    if (name === undefined) return canonical(rest);
    const domain = measurementDomain(r, this.registry);
    const inForce = this.held.get(domain)?.get(name);
    if (!inForce) {
      const reason = `no owner transition ${domain === '' ? '' : `of ${domain} `}setting its ${name} was replayed before this update (scan from before the owner last set it to know it)`;
      return canonical({ ...rest, measurementInForce: { matches: 'unknown', reason } });
    }
    const m = r.measurements as Readonly<Record<string, unknown>> | undefined;
    return canonical({ ...rest, measurementInForce: { matches: sameValue(m?.[name!], inForce.value), sourceHeight: inForce.height } });
  }
}
