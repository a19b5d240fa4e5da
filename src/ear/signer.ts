/**
 * The EAR signer: one private key (ES256 on P-256, or EdDSA on Ed25519) from its text, the JWT it
 * signs with the EAR media type's `typ`, and the public JWKS a relying party verifies with
 * (GET /.well-known/jwks.json). The key's text is never kept, shown or put in an error message.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { SignJWT, calculateJwkThumbprint, type JWK } from 'jose';
import { VerifierError } from '../errors.js';
import type { EarCode } from './errors.js';
import { EAR_SIGNING_KEY_ENV } from '../upstream/credentials.js';

export type EarAlg = 'ES256' | 'EdDSA';

export interface EarSigner {
  readonly alg: EarAlg;
  readonly kid: string;
  /** The public key set ({ keys: [the public JWK] }). */
  readonly jwks: { keys: JWK[] };
  sign(claims: Record<string, unknown>): Promise<string>;
}

/** The JWT `typ` of an EAR (its media type without `application/`, RFC 7515 §4.1.9). */
export const EAR_JWT_TYP = 'eat+jwt';

const bad = (msg: string): never => {
  throw new VerifierError<EarCode>('EAR_KEY_INVALID', `the EAR signing key (${EAR_SIGNING_KEY_ENV}): ${msg}`);
};

function privateKeyOf(text: string): KeyObject {
  try {
    if (text.startsWith('{')) return createPrivateKey({ key: JSON.parse(text) as import('node:crypto').JsonWebKey, format: 'jwk' });
    return createPrivateKey({ key: text, format: 'pem' });
  } catch {
    // The parser's message may quote the key: say only what was expected.
    return bad('not a private key (expected PKCS#8 PEM or a private JWK)');
  }
}

function algOf(key: KeyObject): EarAlg {
  if (key.asymmetricKeyType === 'ed25519') return 'EdDSA';
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1') return 'ES256';
  return bad(`a ${key.asymmetricKeyType ?? 'unknown'} key${key.asymmetricKeyDetails?.namedCurve ? ` on ${key.asymmetricKeyDetails.namedCurve}` : ''}; ES256 (P-256) or EdDSA (Ed25519) expected`);
}

/** The signer of a key's text (EAR_SIGNING_KEY); throws EAR_KEY_INVALID for anything else. */
export async function earSigner(text: string): Promise<EarSigner> {
  const key = privateKeyOf(text.trim());
  if (key.type !== 'private') bad('a public key; the private key is needed');
  const alg = algOf(key);
  const pub = createPublicKey(key).export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(pub, 'sha256');
  const publicJwk: JWK = { ...pub, kid, alg, use: 'sig' };
  return {
    alg,
    kid,
    jwks: { keys: [publicJwk] },
    sign: (claims) => new SignJWT(claims).setProtectedHeader({ alg, kid, typ: EAR_JWT_TYP }).sign(key),
  };
}
