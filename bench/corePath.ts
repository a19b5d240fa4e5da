/**
 * The whole verification core per report, in process (what one pool task does): struct texts
 * already parsed to bytes → decode userData → detect → verify (caches warm) → policy → Poseidon8
 * binding, on a 50/50 typeA/typeB mix minted by the test PKIs (bench/mix.ts, the mix of
 * bench/http-load.ts). Shared by bench/core.bench.ts and by the HTTP load run, which measures it
 * right before each load run so that the throughput ratio compares figures taken under the same
 * machine state.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Bench } from 'tinybench';
import { defaultPcrs } from '../test/support/typeb-pki.js';
import { REPORT_BYTES } from '../test/support/ledger-reports.js';
import { parseCertificate, parsePemChain } from '../src/attestation/x509/certificate.js';
import { ChainCache } from '../src/attestation/x509/chainCache.js';
import { verifyCollateral } from '../src/attestation/typeA/verify.js';
import { verifyReportBytes, type VerifyDeps } from '../src/verify/verifyReport.js';
import type { Policy } from '../src/verify/types.js';
import type { MintedMix } from './mix.js';

/** Updates of the mix the core path cycles through (each as typeA and as typeB). */
const CORE_UPDATES = 32;

export interface CorePathResult {
  typeAMs: number;
  typeBMs: number;
  /** Mean of the two: the per-report CPU cost of the 50/50 mix. */
  mixMs: number;
  samples: [number, number];
}

export interface CorePath {
  measure(opts?: { timeMs?: number; warmupMs?: number }): Promise<CorePathResult>;
  /** Verifies report `k` of the cycle (even k: typeA, odd k: typeB); throws unless valid. */
  runOne(k: number): Promise<void>;
}

/** What the core path needs of a minted mix, as plain data (structured-clone safe, for a worker). */
export interface CoreInput {
  aRootPem: string;
  aCollateral: MintedMix['a']['collateral'];
  aTime: number;
  bRootDer: Uint8Array;
  mrEnclave: Uint8Array;
  updates: { userData: Uint8Array; typeA: Uint8Array; typeB: Uint8Array }[];
}

export function coreInputOf(mix: MintedMix): CoreInput {
  return {
    aRootPem: mix.a.root.pem,
    aCollateral: mix.a.collateral,
    aTime: mix.a.time,
    bRootDer: mix.b.rootDer,
    mrEnclave: mix.mrEnclave,
    updates: mix.updates.slice(0, CORE_UPDATES).map((u) => ({ userData: u.userData.bytes, typeA: u.typeA, typeB: u.typeB })),
  };
}

/** Prepares the core path on a mix (reports padded, collateral verified, every report checked valid once). */
export async function createCorePath(input: CoreInput): Promise<CorePath> {
  const pad = (x: Uint8Array) => {
    const r = new Uint8Array(REPORT_BYTES);
    r.set(x);
    return r;
  };
  const typeA = input.updates.map((u) => ({ userData: u.userData, report: pad(u.typeA) }));
  const typeB = input.updates.map((u) => ({ userData: u.userData, report: pad(u.typeB) }));
  const policy: Policy = {
    targets: { typeA: input.mrEnclave, typeB: defaultPcrs().slice(0, 3) },
    acceptedTcbStatuses: ['UpToDate'],
    allowDebugEnclaves: false,
  };
  const rootA = parsePemChain(input.aRootPem)[0]!;
  const vc = verifyCollateral(input.aCollateral, { root: rootA, time: input.aTime });
  const deps: VerifyDeps = {
    roots: { typeA: rootA, typeB: parseCertificate(input.bRootDer) },
    chainCache: new ChainCache(),
    keyCache: new LRUCache<string, KeyObject>({ max: 1024 }),
    collateral: { forReport: async () => vc },
    time: input.aTime,
  };
  for (const x of [...typeA, ...typeB]) {
    const out = await verifyReportBytes(x.userData, x.report, policy, deps);
    if (!out.reportValid) throw new Error(`not valid: ${out.error?.message}`);
  }
  let i = 0;
  let j = 0;
  return {
    async runOne(k) {
      const x = (k % 2 === 0 ? typeA : typeB)[(k >> 1) % typeA.length]!;
      const out = await verifyReportBytes(x.userData, x.report, policy, deps);
      if (!out.reportValid) throw new Error(`not valid: ${out.error?.message}`);
    },
    async measure(opts = {}) {
      const bench = new Bench({ time: opts.timeMs ?? 3000, warmupTime: opts.warmupMs ?? 500 });
      bench
        .add('core, typeA report (warm caches)', async () => {
          const x = typeA[i++ % typeA.length]!;
          await verifyReportBytes(x.userData, x.report, policy, deps);
        })
        .add('core, typeB report (warm caches)', async () => {
          const x = typeB[j++ % typeB.length]!;
          await verifyReportBytes(x.userData, x.report, policy, deps);
        });
      await bench.run();
      const r = bench.tasks.map((t) => {
        if (t.result.state !== 'completed') throw new Error(`${t.name}: ${t.result.state}`);
        return t.result.latency;
      });
      return { typeAMs: r[0]!.mean, typeBMs: r[1]!.mean, mixMs: (r[0]!.mean + r[1]!.mean) / 2, samples: [r[0]!.samplesCount, r[1]!.samplesCount] };
    },
  };
}
