/**
 * The measurement-in-force replay of `reverify` and `merge`: the measurements each program held,
 * replayed from its owner transitions in ledger order, and the update records annotated with
 * whether their measurements are the ones in force. Measurements in force are kept per program
 * holding the mappings (era 4: the data program), so an update is compared with what its own
 * program's owner set.
 */
import { measurementLocation } from '../programs.js';
import { isReportType, reportKind } from '../../verify/kinds/index.js';
import { canonical, isOwnerRecord, type OutputRecord } from './updateRecord.js';

/** The program whose mappings a record's measurements belong to ('' when the record names none). */
function measurementDomain(r: OutputRecord): string {
  return r.program === undefined ? '' : measurementLocation(r.program).program;
}

/** Measurements each program held, replayed from its owner transitions in ledger order. */
export class MeasurementState {
  private readonly held = new Map<string, { uniqueId?: { value: string; height: number }; pcrs?: { value: string[]; height: number } }>();

  apply(r: OutputRecord): void {
    if (!isOwnerRecord(r) || !r.measurement || r.blockHeight === undefined) return;
    const key = measurementDomain(r);
    const h = this.held.get(key) ?? {};
    if ('uniqueId' in r.measurement) h.uniqueId = { value: r.measurement.uniqueId, height: r.blockHeight };
    else h.pcrs = { value: r.measurement.pcrs, height: r.blockHeight };
    this.held.set(key, h);
  }

  /** The update record with measurementInForce set (or removed when nothing was replayed for its program and kind). */
  annotate(r: OutputRecord): OutputRecord {
    const { measurementInForce: _old, ...rest } = r;
    const m = r.measurements as Partial<{ uniqueId: string; pcrs: string[] }> | undefined;
    const h = this.held.get(measurementDomain(r));
    let mif: OutputRecord['measurementInForce'];
    const measures = isReportType(r.kind) ? reportKind(r.kind).measures : undefined;
    if (measures === 'uniqueId' && h?.uniqueId) mif = { matches: m?.uniqueId === h.uniqueId.value, sourceHeight: h.uniqueId.height };
    if (measures === 'pcrs' && h?.pcrs) {
      const cur = h.pcrs.value;
      mif = { matches: Array.isArray(m?.pcrs) && m.pcrs.length === 3 && m.pcrs.every((p, i) => p === cur[i]), sourceHeight: h.pcrs.height };
    }
    return canonical(mif ? { ...rest, measurementInForce: mif } : rest);
  }
}
