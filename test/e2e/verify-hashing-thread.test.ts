/**
 * Nothing heavy on the HTTP thread: POST /verify's candidate hashing (entries without oracleData:
 * every era's re-encoding is a candidate, hashed to find the one the report binds) runs in the
 * verification pool. The hash kernel of this thread (src/hash/kernel.ts, behind src/hash/index.ts)
 * is wrapped to count its calls; the pool's worker threads load their own, uncounted copy. A real
 * server with `workers: 1` answers a batch of real Nitro attestations with no hash on this thread;
 * the same batch on a server with `workers: 0` (verification on this thread) shows that the count
 * sees the hashing wherever it runs here.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { readVectorJson } from '../support/paths.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { docPcrs, targets } from '../support/nitro-pair.js';

const calls = vi.hoisted(() => ({ struct: 0, fields: 0 }));
vi.mock('../../src/hash/kernel.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/hash/kernel.js')>();
  return {
    ...actual,
    hashStructBytesField: (bytes: Uint8Array) => {
      calls.struct++;
      return actual.hashStructBytesField(bytes);
    },
    poseidon8Kernel: (domain: bigint, input: readonly bigint[]) => {
      calls.fields++;
      return actual.poseidon8Kernel(domain, input);
    },
  };
});

const real = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
/** 16 entries as the SDK sends them without oracleData: the verifier finds the bound userData by hashing candidates. */
const batch = Array.from({ length: 16 }, () => {
  const { oracleData: _o, ...bare } = structuredClone(real);
  return bare;
});
const servers: RunningServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

async function verifyOn(workers: number): Promise<number> {
  const s = await startServer({ workers, uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: docPcrs });
  servers.push(s);
  calls.struct = 0;
  calls.fields = 0;
  const r = await postJson(`${s.url}/verify`, { reports: batch });
  expect(r.status).toBe(200);
  expect(r.body).toEqual({ success: true, validReports: [...batch.keys()] });
  return calls.struct + calls.fields;
}

describe('POST /verify hashes nothing on the HTTP thread', { timeout: 300_000 }, () => {
  it('with workers: 1, every candidate is hashed in the pool: 0 calls of this thread’s hash kernel', async () => {
    expect(await verifyOn(1)).toBe(0);
  });

  it('the count sees hashing on this thread (workers: 0 verifies here)', async () => {
    expect(await verifyOn(0)).toBeGreaterThanOrEqual(batch.length);
  });
});
