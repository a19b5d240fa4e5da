/**
 * Credentials of the upstream services, from the environment only: never in config.json and never
 * in a configured URL (the config refuses userinfo; a URL's query is sent but never shown, see
 * src/upstream/publicUrl.ts). Each is sent as a request header to its own service, and to no other host.
 */

/** The Intel PCS subscription key (a PCCS needs none). */
export const PCCS_API_KEY_ENV = 'PCCS_API_KEY';
/** The header Intel's PCS reads the subscription key from. */
export const PCCS_API_KEY_HEADER = 'Ocp-Apim-Subscription-Key';
/** The ledger node's API key, sent in the header `liveCheck.apiKeyHeader`. */
export const LEDGER_NODE_API_KEY_ENV = 'LEDGER_NODE_API_KEY';
/**
 * The JWT of one's own snarkOS node (printed by the node at start, or minted with its
 * `--jwt-secret`): sent as `Authorization: Bearer …` with the mapping listing alone, the one
 * route of the completeness check that sits behind the node's JWT middleware.
 */
export const LEDGER_NODE_JWT_ENV = 'LEDGER_NODE_JWT';

const value = (env: NodeJS.ProcessEnv, name: string): string | undefined => {
  const v = env[name];
  return v === undefined || v === '' ? undefined : v;
};

/** Headers for requests to the PCCS (empty without PCCS_API_KEY). */
export function pccsHeaders(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const key = value(env, PCCS_API_KEY_ENV);
  return key === undefined ? {} : { [PCCS_API_KEY_HEADER]: key };
}

/** Headers for requests to the ledger node (empty without LEDGER_NODE_API_KEY). */
export function ledgerNodeHeaders(header: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const key = value(env, LEDGER_NODE_API_KEY_ENV);
  return key === undefined ? {} : { [header]: key };
}

/** The node's JWT (LEDGER_NODE_JWT), undefined when not set. */
export function ledgerNodeJwt(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return value(env, LEDGER_NODE_JWT_ENV)?.trim() || undefined;
}

/**
 * The private key this verifier signs its EARs with (src/ear/signer.ts): PKCS#8 PEM or a private
 * JWK, ES256 (P-256) or EdDSA (Ed25519). Unset: no EAR is signed.
 */
export const EAR_SIGNING_KEY_ENV = 'EAR_SIGNING_KEY';

/** The EAR signing key's text (EAR_SIGNING_KEY), undefined when not set. */
export function earSigningKey(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return value(env, EAR_SIGNING_KEY_ENV)?.trim() || undefined;
}
