/**
 * How an inclusion proof that did not succeed changes an update's verdict: never `valid` without
 * it. A failed proof of a valid update makes it not valid with the proof's code (invalid where the
 * node's data contradicts itself, unverifiable where the block could not be had or the sources
 * disagree); an update that was not valid keeps its own code beside the proof.
 */
import { outcomeOfCode } from '../../errorCodes.js';
import type { Inclusion } from '../../aleo/inclusion/verdict.js';
import type { OutputRecord } from '../records/updateRecord.js';

export function withInclusion(r: OutputRecord, inclusion: Inclusion): OutputRecord {
  const out: OutputRecord = { ...r, inclusion };
  if (inclusion.status === 'failed' && r.reportValid === true) {
    out.reportValid = false;
    out.errorCode = inclusion.code;
    out.errorString = `inclusion not proven (${inclusion.link}): ${inclusion.detail}`;
    out.outcome = outcomeOfCode(inclusion.code);
  }
  return out;
}
