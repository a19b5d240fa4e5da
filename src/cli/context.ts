/**
 * Builds what every verifying command needs from the config (same keys and defaults as the
 * server): policy, trust roots, typeA collateral (PCCS or an offline collateral directory) and the
 * verification service — the shared VerifierPool when workers > 0, the in-process core otherwise.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LRUCache } from 'lru-cache';
import { resolveConfig, needsReproducibleBuild, type Config } from '../config/load.js';
import { DEFAULT_TRUST_ROOTS, PACKAGE_ROOT } from '../config/packageRoot.js';
import { VerifierError } from '../errors.js';
import { loadTrustRoot } from '../attestation/trustRoots.js';
import { ChainCache } from '../attestation/x509/chainCache.js';
import { createCollateralSource } from '../collateral/source.js';
import { VerifierPool } from '../pool/pool.js';
import { createInProcessService } from '../verify/service.js';
import type { Policy, VerifierService, VerifyOutcome } from '../verify/types.js';
import { cliError } from './errors.js';

export interface ContextOptions {
  configPath?: string;
  /** typeA verification time (epoch ms); overrides the config's verificationTime. */
  at?: number;
  workers?: number;
  collateralDir?: string;
  pccsUrl?: string;
}

export interface CliVerifier {
  config: Config;
  policy: Policy;
  workers: number;
  service: VerifierService;
  pool?: VerifierPool;
  verify(userData: string, report: string, nonce?: string): Promise<VerifyOutcome>;
  close(): Promise<void>;
}

/** The config file: --config, else ./config.json, else the bundled one. `port` and `liveCheck` may be omitted. */
export function loadCliConfig(path?: string): Config {
  const file = resolve(path ?? (existsSync('config.json') ? 'config.json' : resolve(PACKAGE_ROOT, 'config.json')));
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new VerifierError('CONFIG_NOT_FOUND', `config: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`);
  }
  let raw: Record<string, unknown>;
  try {
    raw = JSON.parse(text) as Record<string, unknown>;
  } catch (e) {
    throw new VerifierError('CONFIG_NOT_JSON', `config: ${file} is not valid JSON: ${(e as Error).message}`);
  }
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new VerifierError('CONFIG_INVALID', `config: ${file} is not a JSON object`);
  return resolveConfig({ port: 0, liveCheck: { skip: true }, ...raw }, dirname(file), file);
}

export function createCliVerifier(o: ContextOptions): CliVerifier {
  const config = loadCliConfig(o.configPath);
  if (needsReproducibleBuild(config)) {
    throw cliError('CLI_NO_TARGETS', `config ${config.file}: uniqueIdTarget and three pcrValuesTarget are required by the CLI (it does not run the reproducible build)`);
  }
  const at = o.at ?? config.verificationTime;
  const roots = {
    // The typeA root must be valid at the verification time (--at, else the clock).
    typeA: loadTrustRoot('typeA', config.trustedRoots.typeA, {
      pinned: config.trustedRoots.typeA === DEFAULT_TRUST_ROOTS.typeA,
      ...(at !== undefined ? { now: at } : {}),
    }),
    typeB: loadTrustRoot('typeB', config.trustedRoots.typeB, { pinned: config.trustedRoots.typeB === DEFAULT_TRUST_ROOTS.typeB }),
  };
  const policy: Policy = {
    uniqueIdTarget: config.uniqueIdTarget!,
    pcrValuesTarget: config.pcrValuesTarget!,
    acceptedTcbStatuses: config.acceptedTcbStatuses,
    ...(config.acceptedAdvisories !== undefined ? { acceptedAdvisories: config.acceptedAdvisories } : {}),
    allowDebugEnclaves: config.allowDebugEnclaves,
  };
  const clock = at !== undefined ? () => at : Date.now;
  // --collateral-dir falls back only to an explicit --pccs (an offline audit stays offline); the
  // config's collateralDir behaves as in the server (its pccsUrl serves what the directory lacks).
  const dir = o.collateralDir !== undefined ? { collateralDir: resolve(o.collateralDir), dirSetting: '--collateral-dir' } : config.collateralDir !== undefined ? { collateralDir: config.collateralDir, dirSetting: 'collateralDir' } : {};
  const pccsUrl = o.collateralDir !== undefined ? o.pccsUrl : (o.pccsUrl ?? config.pccsUrl);
  const { source: collateral } = createCollateralSource({ root: roots.typeA, now: clock, ...dir, ...(pccsUrl !== undefined ? { pccsUrl } : {}) });
  const workers = o.workers ?? config.workers;
  let service: VerifierService;
  let pool: VerifierPool | undefined;
  if (workers > 0) {
    pool = new VerifierPool({
      threads: workers,
      maxQueue: config.maxQueue,
      taskTimeoutMs: config.taskTimeoutMs,
      collateral,
      setup: {
        policy: { ...policy, pcrValuesTarget: [...policy.pcrValuesTarget], acceptedTcbStatuses: [...policy.acceptedTcbStatuses] },
        roots: { typeA: roots.typeA.der, typeB: roots.typeB.der },
        ...(at !== undefined ? { typeATime: at } : {}),
      },
    });
    service = pool;
  } else {
    service = createInProcessService(policy, {
      roots,
      collateral,
      chainCache: new ChainCache(),
      keyCache: new LRUCache({ max: 1024 }),
      ...(at !== undefined ? { typeATime: at } : {}),
    });
  }
  return {
    config,
    policy,
    workers,
    service,
    ...(pool ? { pool } : {}),
    verify: (u, r, nonce) => service.decodeReport(u, r, nonce === undefined ? {} : { nonce }),
    close: async () => {
      await pool?.close();
    },
  };
}

export { decodeReportBody } from '../verify/responseBody.js';
