/**
 * The main thread's share of a task: for a report whose kind needs collateral (the kind registry
 * says which and what identifies the platform), fetch it once per process (the source caches) and
 * attach it, packed once per version, to the task. A report that does not parse is left alone: the
 * worker reports the same parse failure in its order of checks.
 */
import { findReportKind, type CollateralFetcher } from '../verify/kinds/index.js';
import { toFailure } from '../verify/failure.js';
import { CollateralPacker } from './collateralPack.js';
import type { VerifyTask } from './task.js';

export type { CollateralFetcher };

export function collateralPrefetch(source: CollateralFetcher): (task: VerifyTask) => Promise<void> {
  const packer = new CollateralPacker();
  return async (task) => {
    if (task.collateral) return;
    const kind = findReportKind(task.report);
    if (!kind?.collateral) return;
    let subject;
    try {
      subject = kind.collateral.subject(task.report);
    } catch {
      return;
    }
    try {
      const raw = await source.rawForSubject(subject);
      task.collateral = packer.pack(raw.version, raw.collateral);
    } catch (e) {
      task.collateralError = toFailure(e);
    }
  };
}
