/**
 * POST /verify as registered in the real application (bootstrap from config, worker pool), with the
 * real Nitro attestation of the documentation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { readVectorJson } from '../support/paths.js';

const real = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const targets = readVectorJson<any>('production-targets.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');

describe('POST /verify on the configured server', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer({ workers: 1, uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2] });
  });
  afterAll(async () => srv?.close());

  it('accepts the real attestation and filters a tampered copy, checking every report', async () => {
    const tampered = structuredClone(real);
    tampered.attestationData = '1.00000000';
    const r = await postJson(`${srv.url}/verify`, { reports: [real, tampered, real] });
    expect(r.status).toBe(200);
    expect(r.body.validReports).toEqual([0, 2]);
  });

  it('answers other methods with 405 in the SDK response shape', async () => {
    const r = await fetch(`${srv.url}/verify`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    expect(await r.json()).toMatchObject({ success: false, validReports: [] });
  });
});
