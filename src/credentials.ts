/**
 * Credentials of the upstream services, from the environment only: never in config.json and never
 * in a configured URL (the config refuses userinfo; a URL's query is sent but never shown, see
 * src/publicUrl.ts). Each is sent as a request header to its own service, and to no other host.
 */

/** The Intel PCS subscription key (a PCCS needs none). */
export const PCCS_API_KEY_ENV = 'PCCS_API_KEY';
/** The header Intel's PCS reads the subscription key from. */
export const PCCS_API_KEY_HEADER = 'Ocp-Apim-Subscription-Key';
/** The ledger node's API key, sent in the header `liveCheck.apiKeyHeader`. */
export const LEDGER_NODE_API_KEY_ENV = 'LEDGER_NODE_API_KEY';

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
