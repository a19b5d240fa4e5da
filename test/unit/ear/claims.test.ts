/** EAR claims of a verdict (src/ear/claims.ts) and the signer's key checks (src/ear/signer.ts). */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { importJWK, jwtVerify } from 'jose';
import { earClaims, trustVectorOf } from '../../../src/ear/claims.js';
import { earSigner } from '../../../src/ear/signer.js';
import { isVerifierError } from '../../../src/errors.js';

const ctx = { iat: 1700000000.7, build: 'b/1', developer: 'd', policyDigest: 'ab'.repeat(32), evidence: { report: 'r', userData: 'u' } };
const P = 'org.aleo-oracle-verifier.';

describe('earClaims', () => {
  it('unverifiable: status none and no trustworthiness claim, even for checks that passed', () => {
    const c = earClaims({ reportType: 'typeA', outcome: 'unverifiable', errorCode: 'PCCS_UNAVAILABLE', checks: [{ id: 'typeA.pckChain', title: '', status: 'passed' }, { id: 'typeA.collateral', title: '', status: 'failed', code: 'PCCS_UNAVAILABLE' }] }, ctx);
    const a = (c.submods as any).typeA;
    expect(a['ear.status']).toBe('none');
    expect(a['ear.trustworthiness-vector']).toBeUndefined();
    expect(a[`${P}error-code`]).toBe('PCCS_UNAVAILABLE');
    expect(c.iat).toBe(1700000000);
    expect(a['ear.appraisal-policy-id']).toBe(`sha256:${'ab'.repeat(32)}`);
  });

  it('a verdict before the kind is known goes in the submodule "unknown"', () => {
    const c = earClaims({ outcome: 'invalid', errorCode: 'STRUCT_SYNTAX' }, ctx);
    expect(Object.keys(c.submods as object)).toEqual(['unknown']);
    expect((c.submods as any).unknown['ear.status']).toBe('contraindicated');
  });

  it('the vector claims only what ran: a measurement mismatch is unrecognized run-time (33)', () => {
    expect(trustVectorOf([
      { id: 'typeA.pckChain', title: '', status: 'passed' },
      { id: 'typeA.isvSignature', title: '', status: 'passed' },
      { id: 'policy.tcbStatus', title: '', status: 'passed' },
      { id: 'policy.debug', title: '', status: 'passed' },
      { id: 'policy.uniqueId', title: '', status: 'failed', code: 'TYPEA_UNIQUE_ID_MISMATCH' as never },
    ])).toEqual({ hardware: 2, configuration: 2, executables: 33 });
    // A skipped check makes no claim for its element.
    expect(trustVectorOf([{ id: 'policy.pcrs', title: '', status: 'skipped' }])).toEqual({});
  });

  it('the extra claims go under the prefix', () => {
    const c = earClaims({ reportType: 'typeB', outcome: 'valid' }, { ...ctx, extra: { 'transaction-id': 'at1x', era: 3 } });
    expect((c.submods as any).typeB).toMatchObject({ [`${P}transaction-id`]: 'at1x', [`${P}era`]: 3 });
  });
});

describe('earSigner', () => {
  it('signs with Ed25519 from a private JWK; the JWKS holds the public part only', async () => {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' });
    const s = await earSigner(JSON.stringify(jwk));
    expect(s.alg).toBe('EdDSA');
    expect(s.jwks.keys[0]!.d).toBeUndefined();
    const jwt = await s.sign({ a: 1 });
    const { payload, protectedHeader } = await jwtVerify(jwt, await importJWK(s.jwks.keys[0]!, 'EdDSA'));
    expect(payload.a).toBe(1);
    expect(protectedHeader).toMatchObject({ typ: 'eat+jwt', kid: s.kid });
  });

  for (const [name, text] of [
    ['garbage', 'not a key at all'],
    ['an RSA key', generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string],
    ['a P-384 key', generateKeyPairSync('ec', { namedCurve: 'secp384r1' }).privateKey.export({ format: 'pem', type: 'pkcs8' }) as string],
  ] as const) {
    it(`refuses ${name} with EAR_KEY_INVALID, quoting no part of it`, async () => {
      const err = await earSigner(text).catch((e: unknown) => e);
      expect(isVerifierError(err) && err.code).toBe('EAR_KEY_INVALID');
      const body = text.split('\n').find((l) => l.length > 20 && !l.startsWith('-----'));
      if (body) expect((err as Error).message).not.toContain(body.slice(0, 20));
    });
  }
});
