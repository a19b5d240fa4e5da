/**
 * What every verifying command needs from the config (same keys, defaults and composition root,
 * src/compose.ts, as the server): policy, trust roots, typeA collateral (PCCS or an offline
 * collateral directory), metrics and the verification service — the shared VerifierPool when
 * workers > 0, the in-process core otherwise.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { configuredTargets, loadConfig, type Config } from '../config/load.js';
import { KINDS } from '../verify/kinds/index.js';
import { PACKAGE_ROOT } from '../packageRoot.js';
import { composeVerifier } from '../compose.js';
import type { VerifierPool } from '../pool/pool.js';
import type { Metrics } from '../observability/metrics.js';
import type { Policy, ReportTexts, VerifierService, VerifyOutcome } from '../verify/types.js';
import { cliError } from './errors.js';
import type { TcbUpdatePolicy } from '../attestation/typeA/evaluationInForce.js';
import type { HistoryCollateralSource } from '../collateral/historySource.js';

export interface ContextOptions {
  configPath?: string;
  /** typeA verification time (epoch ms); overrides the config's verificationTime. */
  at?: number;
  workers?: number;
  collateralDir?: string;
  pccsUrl?: string;
  /** The collateral archive that judges reports asked as of a past time (else the config's collateralArchive). */
  archive?: { dir: string; policy: TcbUpdatePolicy };
  /** No network: typeA collateral from the archive and `collateralDir` only, never a PCCS (the config's pccsUrl is not used). */
  offline?: boolean;
}

export interface CliVerifier {
  config: Config;
  policy: Policy;
  workers: number;
  service: VerifierService;
  pool?: VerifierPool;
  /** The metrics its verifications count in (verifier_verifications_total). */
  metrics: Metrics;
  /** The collateral archive's source, when one is configured (--archive or collateralArchive): reports asked as of a past time are judged with it. */
  history?: HistoryCollateralSource;
  /** decodeReport of the pair; `asOf`: judged as it stood at that time (epoch ms; the archive's collateral). */
  verify(userData: string, report: string, nonce?: string, asOf?: number): Promise<VerifyOutcome>;
  /** verify of several pairs, in one pool task when the service has a pool (decodeReports). */
  verifyMany(pairs: readonly ReportTexts[]): Promise<VerifyOutcome[]>;
  close(): Promise<void>;
}

/** The config file: --config, else ./config.json, else the bundled one. `port` and `liveCheck` may be omitted. */
export function loadCliConfig(path?: string): Config {
  return loadConfig(path ?? (existsSync('config.json') ? 'config.json' : resolve(PACKAGE_ROOT, 'config.json')), { port: 0, liveCheck: { skip: true } });
}

export function createCliVerifier(o: ContextOptions): CliVerifier {
  const config = loadCliConfig(o.configPath);
  const targets = configuredTargets(config);
  if (!targets) {
    const required = KINDS.map((k) => k.target.required).join(' and ');
    throw cliError('CLI_NO_TARGETS', `config ${config.file}: ${required} are required by the CLI (it does not run the reproducible build)`);
  }
  // --collateral-dir falls back only to an explicit --pccs (an offline audit stays offline); the
  // config's collateralDir behaves as in the server (its pccsUrl serves what the directory lacks).
  const current =
    o.collateralDir !== undefined
      ? { collateralDir: resolve(o.collateralDir), dirSetting: '--collateral-dir', ...(o.pccsUrl !== undefined && !o.offline ? { pccsUrl: o.pccsUrl } : {}) }
      : {
          ...(config.collateralDir !== undefined ? { collateralDir: config.collateralDir, dirSetting: 'collateralDir' } : {}),
          ...(!o.offline && (o.pccsUrl ?? config.pccsUrl) !== undefined ? { pccsUrl: (o.pccsUrl ?? config.pccsUrl)! } : {}),
        };
  // The archive (--archive, else the config's collateralArchive) judges reports as they stood at a past time.
  const archive = o.archive ? { dir: resolve(o.archive.dir), policy: o.archive.policy } : config.collateralArchive !== undefined ? { dir: config.collateralArchive, policy: config.tcbUpdatePolicy } : undefined;
  const collateral = { ...current, ...(archive ? { archive } : {}) };
  const c = composeVerifier(config, {
    targets,
    ...(o.at !== undefined ? { at: o.at } : {}),
    ...(o.workers !== undefined ? { workers: o.workers } : {}),
    collateral,
  });
  const service = c.service;
  return {
    config,
    policy: c.policy,
    workers: c.workers,
    service,
    ...(c.pool ? { pool: c.pool } : {}),
    metrics: c.metrics,
    ...(c.history ? { history: c.history } : {}),
    verify: (u, r, nonce, asOf) => service.decodeReport(u, r, { ...(nonce === undefined ? {} : { nonce }), ...(asOf === undefined ? {} : { asOf }) }),
    verifyMany: (pairs) => (service.decodeReports ? service.decodeReports(pairs) : Promise.all(pairs.map((p) => service.decodeReport(p.userData, p.report)))),
    close: c.close,
  };
}

export { decodeReportBody } from '../verify/decodeReportBody.js';
