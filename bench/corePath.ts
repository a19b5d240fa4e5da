/**
 * The whole verification core per report, in process (what one pool task does): struct texts
 * already parsed to bytes → decode userData → detect → verify (caches warm) → policy → Poseidon8
 * binding, on a 50/50 typeA/typeB mix minted by the test PKIs (the mix of bench/http-load.ts).
 * Shared by bench/core.bench.ts and by the HTTP load run, which measures it right before each
 * load run so that the throughput ratio compares figures taken under the same machine state.
 */
import type { KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { Bench } from 'tinybench';
import { createTypeBPki, defaultPcrs } from '../test/support/typeb-pki.js';
import { mintTypeAPki } from '../test/support/typea-pki.js';
import { makeUserData, openEnclaveReport, REPORT_BYTES } from '../test/support/ledger-reports.js';
import { parseCertificate, parsePemChain } from '../src/attestation/x509/certificate.js';
import { ChainCache } from '../src/attestation/x509/chainCache.js';
import { verifyCollateral } from '../src/attestation/typeA/verify.js';
import { verifyReportBytes, type VerifyDeps } from '../src/verify/verifyReport.js';
import type { Policy } from '../src/verify/types.js';

export interface CorePathResult {
  typeAMs: number;
  typeBMs: number;
  /** Mean of the two: the per-report CPU cost of the 50/50 mix. */
  mixMs: number;
  samples: [number, number];
}

export async function measureCorePath(opts: { timeMs?: number; warmupMs?: number } = {}): Promise<CorePathResult> {
  const a = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
  const b = createTypeBPki();
  const MRENCLAVE = new Uint8Array(32).fill(0x5a);
  const pad = (x: Uint8Array) => {
    const r = new Uint8Array(REPORT_BYTES);
    r.set(x);
    return r;
  };
  const typeA: { userData: Uint8Array; report: Uint8Array }[] = [];
  const typeB: { userData: Uint8Array; report: Uint8Array }[] = [];
  for (let i = 0; i < 32; i++) {
    const ud = makeUserData({ attestationData: `${59000 + i}.01000000`, timestamp: 1725008028 + i });
    const rd = new Uint8Array(64);
    rd.set(ud.hash);
    typeA.push({ userData: ud.bytes, report: pad(openEnclaveReport(a.quote({ reportData: rd, mrEnclave: MRENCLAVE }))) });
    typeB.push({ userData: ud.bytes, report: pad(b.mintDocument({ userData: ud.hash })) });
  }
  const policy: Policy = {
    uniqueIdTarget: MRENCLAVE,
    pcrValuesTarget: defaultPcrs().slice(0, 3),
    acceptedTcbStatuses: ['UpToDate'],
    allowDebugEnclaves: false,
  };
  const rootA = parsePemChain(a.root.pem)[0]!;
  const vc = verifyCollateral(a.collateral, { root: rootA, time: a.time });
  const deps: VerifyDeps = {
    roots: { typeA: rootA, typeB: parseCertificate(b.rootDer) },
    chainCache: new ChainCache(),
    keyCache: new LRUCache<string, KeyObject>({ max: 1024 }),
    collateral: { forQuote: async () => vc },
    typeATime: a.time,
  };
  for (const x of [...typeA, ...typeB]) {
    const out = await verifyReportBytes(x.userData, x.report, policy, deps);
    if (!out.reportValid) throw new Error(`not valid: ${out.error?.message}`);
  }
  let i = 0;
  let j = 0;
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
}
