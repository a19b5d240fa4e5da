/**
 * The ordered check trace of POST /decodeReport on the real Nitro pair (README example): every
 * check passed when valid; on a failure, the checks before it passed, it failed with the answer's
 * errorCode, and the ones after it were skipped.
 */
import { describe, expect, it } from 'vitest';
import { postJson } from '../support/server.js';
import { useNitroServers, examples, oracleDoc, tweak } from '../support/nitro-pair.js';

const TYPEB_ORDER = [
  'struct.parse',
  'userData.decode',
  'report.kind',
  'typeB.parse',
  'typeB.debug',
  'typeB.chain',
  'typeB.signature',
  'policy.pcrs',
  'typeB.userDataLength',
  'typeB.nonce',
  'binding',
];

function statuses(checks: any[]): Record<string, string> {
  return Object.fromEntries(checks.map((c) => [c.id, c.status]));
}

describe('check trace of /decodeReport (real Nitro pair)', () => {
  const srv = useNitroServers();

  it('valid: every check in run order passed, the nonce check skipped (no nonce sent)', async () => {
    const r = await postJson(`${srv.own.url}/decodeReport`, examples.nitro.request);
    expect(r.body.reportValid).toBe(true);
    expect(r.body.checks.map((c: any) => c.id)).toEqual(TYPEB_ORDER);
    for (const c of r.body.checks) {
      expect(typeof c.title).toBe('string');
      expect(c.code).toBeUndefined();
    }
    expect(r.body.checks.filter((c: any) => c.status !== 'passed').map((c: any) => c.id)).toEqual(['typeB.nonce']);
  });

  it('with a matching nonce the nonce check passes too', async () => {
    const r = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, nonce: oracleDoc.nonce });
    expect(r.body.reportValid).toBe(true);
    expect(r.body.checks.every((c: any) => c.status === 'passed')).toBe(true);
  });

  it('PCR mismatch: the checks before passed, policy.pcrs failed with the code, the rest skipped', async () => {
    const r = await postJson(`${srv.shipped.url}/decodeReport`, examples.nitro.request);
    expect(r.body.errorCode).toBe('TYPEB_PCR_MISMATCH');
    const s = statuses(r.body.checks);
    for (const id of TYPEB_ORDER.slice(0, 7)) expect(s[id], id).toBe('passed');
    expect(r.body.checks.find((c: any) => c.id === 'policy.pcrs')).toMatchObject({ status: 'failed', code: 'TYPEB_PCR_MISMATCH' });
    for (const id of TYPEB_ORDER.slice(8)) expect(s[id], id).toBe('skipped');
  });

  it('tampered userData: decoding passes, binding fails last', async () => {
    const ud = tweak(examples.nitro.request.userData, 0, 2);
    const r = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, userData: ud });
    expect(r.body.errorCode).toBe('USERDATA_HASH_MISMATCH');
    expect(r.body.checks.at(-1)).toMatchObject({ id: 'binding', status: 'failed', code: 'USERDATA_HASH_MISMATCH' });
    expect(r.body.checks.slice(0, -2).every((c: any) => c.status === 'passed')).toBe(true);
  });

  it('unparsable struct text: only struct.parse ran, and failed', async () => {
    const r = await postJson(`${srv.own.url}/decodeReport`, { ...examples.nitro.request, report: '{ c0: 1u128 }' });
    expect(r.body.reportValid).toBe(false);
    expect(r.body.checks[0]).toMatchObject({ id: 'struct.parse', status: 'failed', code: r.body.errorCode });
    expect(r.body.checks.slice(1).every((c: any) => c.status === 'skipped')).toBe(true);
    expect(r.body.checks.map((c: any) => c.id)).toEqual(['struct.parse', 'userData.decode', 'report.kind']);
  });

  it('the response schema documents checks (OpenAPI)', async () => {
    const doc = (await (await fetch(`${srv.own.url}/docs/json`)).json()) as any;
    const schema = doc.paths['/decodeReport'].post.responses['200'].content['application/json'].schema;
    expect(schema.properties.checks.items.properties.status.enum).toEqual(['passed', 'failed', 'skipped']);
  });
});
