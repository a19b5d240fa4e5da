/**
 * POST /verify bodies for the HTTP benchmarks: notarizer AttestationResponses as the notarizer
 * simulator emits them (test/support/notarizer-sim.ts, the same test PKIs the service trusts),
 * typeA and typeB alternating, each to a different target so that no two attest the same data.
 */
import type { TestPki } from '../test/support/typea-pki.js';
import type { TypeBPki } from '../test/support/typeb-pki.js';
import { startNotarizerSim } from '../test/support/notarizer-sim.js';

export interface EntryOptions {
  typeA: TestPki;
  typeB: TypeBPki;
  mrEnclave: Uint8Array;
  count: number;
  /**
   * Keep `oracleData` (userData and report struct texts, ≈ 30 KB an entry). Without it (the
   * default, ≈ 8 KB an entry) the verifier re-encodes every era's candidate and hashes each: the
   * most hashing a report can cost.
   */
  withOracleData?: boolean;
}

export async function mintAttestationResponses(o: EntryOptions): Promise<Record<string, unknown>[]> {
  const hosts = Array.from({ length: o.count }, (_, i) => `api${i}.example.com`);
  const targets = Object.fromEntries(hosts.map((h, i) => [`${h}/price`, { body: JSON.stringify({ price: `${59000 + i}.25` }) }]));
  const common = { whitelist: hosts, targets };
  const sims = [await startNotarizerSim({ kind: 'typeA', typeA: o.typeA, mrEnclave: o.mrEnclave, ...common }), await startNotarizerSim({ kind: 'typeB', typeB: o.typeB, ...common })];
  try {
    const out: Record<string, unknown>[] = [];
    for (let i = 0; i < o.count; i++) {
      const r = await fetch(`${sims[i % 2]!.url}/notarize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ url: `${hosts[i]}/price`, requestMethod: 'GET', selector: 'price', responseFormat: 'json', encodingOptions: { value: 'float', precision: 2 } }),
      });
      if (r.status !== 200) throw new Error(`notarizer simulator answered ${r.status}: ${await r.text()}`);
      const att = (await r.json()) as Record<string, unknown>;
      if (!o.withOracleData) delete att.oracleData;
      out.push(att);
    }
    return out;
  } finally {
    for (const s of sims) await s.close();
  }
}
