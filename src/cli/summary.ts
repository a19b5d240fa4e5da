/** The summary of `reverify`, `verify` and `merge`: counts by kind × outcome × failure code, and the exit code. */
import { isOwnerRecord, outcomeOf, type OutputRecord } from '../ledger/records/updateRecord.js';

export class Summary {
  readonly counts = new Map<string, number>();
  updates = 0;
  owner = 0;
  valid = 0;
  invalid = 0;
  unverifiable = 0;
  /** Writes of oracle data with no report (owner or council overwrites). */
  unattested = 0;
  /** Updates from transitions the program registry does not name. */
  unrecognized = 0;
  mismatchInForce = 0;
  /** Updates whose measurement in force is unknown (no owner transition setting it was replayed). */
  unknownInForce = 0;
  /** Updates judged at their block's time (judgedAsOf), and of them those with today's status beside (judgedAsOf.today). */
  judgedAsOf = 0;
  ratedToday = 0;
  /** Valid at their block's time, not accepted today (a TCB recovery or a revocation since): the audit's "valid then, not valid now". */
  validThenNotNow = 0;
  /** Inclusion proofs (--prove-inclusion): proven, failed, not checked; who confirmed the block hashes. */
  inclusionProven = 0;
  inclusionFailed = 0;
  inclusionNotChecked = 0;
  readonly confirmedBy = new Set<string>();

  add(r: OutputRecord): void {
    if (isOwnerRecord(r)) {
      this.owner++;
      return;
    }
    this.updates++;
    const o = outcomeOf(r);
    this[o]++;
    if (r.unrecognized) this.unrecognized++;
    if (r.measurementInForce?.matches === false) this.mismatchInForce++;
    if (r.measurementInForce?.matches === 'unknown') this.unknownInForce++;
    if (r.judgedAsOf) this.judgedAsOf++;
    if (r.judgedAsOf?.today) {
      this.ratedToday++;
      if (o === 'valid' && !r.judgedAsOf.today.accepted) this.validThenNotNow++;
    }
    if (r.inclusion?.status === 'proven') {
      this.inclusionProven++;
      this.confirmedBy.add(r.inclusion.confirmedBy);
    } else if (r.inclusion?.status === 'failed') this.inclusionFailed++;
    else if (r.inclusion?.status === 'not_checked') this.inclusionNotChecked++;
    const key = `${r.kind}\u0000${o}\u0000${r.errorCode ?? '-'}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** 0 all valid, 1 some invalid, 2 some could not be verified. */
  exitCode(): 0 | 1 | 2 {
    if (this.unverifiable > 0) return 2;
    return this.invalid > 0 ? 1 : 0;
  }

  table(): string {
    const rows = [...this.counts.entries()]
      .map(([k, n]) => [...k.split('\u0000'), String(n)] as [string, string, string, string])
      .sort((a, b) => a[0].localeCompare(b[0]) || a[1].localeCompare(b[1]) || a[2].localeCompare(b[2]));
    const head: [string, string, string, string] = ['kind', 'outcome', 'code', 'count'];
    const all = [head, ...rows];
    const w = [0, 1, 2, 3].map((i) => Math.max(...all.map((r) => r[i]!.length)));
    const line = (r: readonly string[]) => r.map((c, i) => (i === 3 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ');
    const out = [line(head), w.map((n) => '-'.repeat(n)).join('  '), ...rows.map(line)];
    out.push(
      `updates ${this.updates}: valid ${this.valid}, invalid ${this.invalid}, unverifiable ${this.unverifiable}` +
        (this.unattested ? `, unattested writes ${this.unattested}` : '') +
        (this.unrecognized ? `; from unrecognized transitions ${this.unrecognized}` : '') +
        (this.owner || this.unknownInForce
          ? `; measurement transitions ${this.owner}, updates not matching the measurement in force ${this.mismatchInForce}, with the measurement in force unknown ${this.unknownInForce}`
          : ''),
    );
    if (this.judgedAsOf) {
      out.push(`judged at their block's time ${this.judgedAsOf}, with today's status beside ${this.ratedToday}: valid then, not valid now ${this.validThenNotNow}`);
    }
    if (this.inclusionProven || this.inclusionFailed || this.inclusionNotChecked) {
      out.push(`inclusion in their blocks: proven ${this.inclusionProven}, failed ${this.inclusionFailed}, not checked ${this.inclusionNotChecked}` + (this.confirmedBy.size ? `; block hashes confirmed by ${[...this.confirmedBy].sort().join(', ')}` : ''));
    }
    return `${out.join('\n')}\n`;
  }
}
