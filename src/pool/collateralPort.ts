/**
 * Collateral for a worker's report, asked for by the worker when the report's kind reaches its
 * collateral step (after every collateral-free check: a forged report never makes the verifier
 * contact a PCCS) and answered by the main thread, which owns the collateral source and its caches.
 * Each task that may need collateral carries one end of a MessageChannel; the worker posts the
 * subject (what identifies the platform), the main thread answers with the collateral packed once
 * per version (collateralPack.ts) or the failure the source gave.
 */
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { VerifierError } from '../errors.js';
import { toFailure } from '../verify/failure.js';
import type { FailureInfo } from '../verify/types.js';
import type { CollateralFetcher } from '../verify/kinds/index.js';
import { CollateralPacker, type PackedCollateral } from './collateralPack.js';

export type { CollateralFetcher };
/** What identifies the collateral a report needs (its kind's collateral port says: typeA, the PCK chain). */
export type CollateralSubject = unknown;

type Reply = { collateral: PackedCollateral } | { error: FailureInfo };

export interface CollateralLine {
  /** The worker's end, transferred with the task. */
  port: MessagePort;
  close(): void;
}

/**
 * Main thread: a line per task. `waiting(true)` while a request is being answered (the task's
 * deadline is held meanwhile: the source has its own time limits), `waiting(false)` after.
 * `changed` is called when the source answers with a version not packed before (a refresh): the
 * pool tells the workers to drop the collateral they reuse (collateralReuse.ts).
 */
export function collateralLines(source: CollateralFetcher, changed: () => void = () => {}): (waiting: (on: boolean) => void) => CollateralLine {
  const packer = new CollateralPacker();
  const packOf = (version: string, collateral: object): PackedCollateral => {
    const fresh = !packer.has(version);
    const p = packer.pack(version, collateral);
    if (fresh) changed();
    return p;
  };
  return (waiting) => {
    const { port1, port2 } = new MessageChannel();
    let open = true;
    port1.on('message', (subject: CollateralSubject) => {
      waiting(true);
      void source.rawForSubject(subject).then(
        (raw): Reply => ({ collateral: packOf(raw.version, raw.collateral as object) }),
        (e: unknown): Reply => ({ error: toFailure(e) }),
      ).then((reply) => {
        if (!open) return;
        waiting(false);
        port1.postMessage(reply);
      });
    });
    return {
      port: port2,
      close() {
        open = false;
        port1.close();
      },
    };
  };
}

/** Worker: the collateral the main thread has for `subject`, or its failure thrown. */
export function requestCollateral(port: MessagePort, subject: CollateralSubject): Promise<PackedCollateral> {
  return new Promise((resolve, reject) => {
    port.once('message', (reply: Reply) => {
      if ('error' in reply) reject(new VerifierError(reply.error.code, reply.error.message));
      else resolve(reply.collateral);
    });
    port.postMessage(subject);
  });
}
