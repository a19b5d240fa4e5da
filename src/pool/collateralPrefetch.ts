/**
 * The main thread's share of a task: for a report whose kind needs collateral (the kind registry
 * says which and what identifies the platform), fetch it once per process (the source caches) and
 * attach it, packed once per version, to the task. A report that does not parse is left alone: the
 * worker reports the same parse failure in its order of checks.
 */
import { findReportKind } from '../verify/kinds/index.js';
import { toFailure } from '../verify/failure.js';
import type { PccsCollateralSource } from '../collateral/pccsSource.js';
import { CollateralPacker } from './collateralPack.js';
import type { VerifyTask } from './task.js';

export type CollateralFetcher = Pick<PccsCollateralSource, 'rawForQuote'>;

export function collateralPrefetch(source: CollateralFetcher): (task: VerifyTask) => Promise<void> {
  const packer = new CollateralPacker();
  return async (task) => {
    if (task.collateral) return;
    const kind = findReportKind(task.report);
    if (!kind?.collateralSubject) return;
    let subject;
    try {
      subject = kind.collateralSubject(task.report);
    } catch {
      return;
    }
    try {
      const raw = await source.rawForQuote(subject);
      task.collateral = packer.pack(raw.version, raw.collateral);
    } catch (e) {
      task.collateralError = toFailure(e);
    }
  };
}
