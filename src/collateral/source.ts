/**
 * The typeA collateral source of the server and the CLI alike: a collateral directory (with the
 * PCCS, when given, for the pieces it lacks), or the PCCS alone.
 */
import type { Certificate } from '../attestation/x509/certificate.js';
import { PccsClient, type PccsRequestListener } from './pccsClient.js';
import type { PccsCircuit } from './pccsCircuit.js';
import { PccsCollateralSource } from './pccsSource.js';
import { DirCollateralSource } from './collateralDir.js';
import type { ArchivedDocument } from './archive.js';

export interface CollateralSettings {
  root: Certificate;
  /** Clock of the PCCS caches. */
  now: () => number;
  /** Absolute path of a directory written by `oracle-verifier collateral fetch`. */
  collateralDir?: string;
  /** Names the directory setting in messages (`collateralDir`, `--collateral-dir`). */
  dirSetting?: string;
  /** The PCCS; with a directory, only for the pieces the directory lacks. */
  pccsUrl?: string;
  onPccsRequest?: PccsRequestListener;
  /** The PCCS client's fetch (credentials, shutdown). */
  fetchImpl?: typeof fetch;
  /** The PCCS circuit breaker (cold typeA requests fail at once while the PCCS is known not to answer). */
  pccsCircuit?: PccsCircuit;
  /** Each document the PCCS serves or the collateral directory holds, as served (a collateral archive keeps them as it goes). */
  onFetched?: (d: ArchivedDocument) => void;
}

export interface CollateralSetup {
  /** Absent with neither a directory nor a PCCS (only a collateral archive: reports judged as of a past time). */
  source?: DirCollateralSource | PccsCollateralSource;
  /** The PCCS source (its caches feed the metrics), when a PCCS is configured. */
  pccs?: PccsCollateralSource;
  /** Its client (the reachability probe), when a PCCS is configured. */
  client?: PccsClient;
}

export function createCollateralSource(s: CollateralSettings): CollateralSetup {
  let remote: { pccs: PccsCollateralSource; client: PccsClient } | undefined;
  if (s.pccsUrl !== undefined) {
    const client = new PccsClient({ baseUrl: s.pccsUrl, ...(s.onPccsRequest ? { onRequest: s.onPccsRequest } : {}), ...(s.fetchImpl ? { fetchImpl: s.fetchImpl } : {}), ...(s.pccsCircuit ? { circuit: s.pccsCircuit } : {}) });
    remote = { client, pccs: new PccsCollateralSource(client, { root: s.root, now: s.now, ...(s.onFetched ? { onFetched: s.onFetched } : {}) }) };
  }
  if (s.collateralDir === undefined) {
    return remote ? { source: remote.pccs, ...remote } : {};
  }
  const source = new DirCollateralSource(s.collateralDir, s.root, { ...(s.dirSetting ? { what: s.dirSetting } : {}), ...(remote ? { fallback: remote.pccs } : {}), ...(s.onFetched ? { onRead: s.onFetched } : {}) });
  return { source, ...remote };
}
