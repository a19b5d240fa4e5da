import { combinedSignal } from './abort.js';

/**
 * The fetch of one upstream service configured by a base URL (the PCCS): requests under that base
 * carry the base's query parameters (a key a gateway reads there: sent, never shown, see
 * src/upstream/publicUrl.ts) and the service's headers (its API key), so a credential only ever goes to its
 * own service, never to another host (Intel's CRL distribution point), and such requests follow
 * no redirect (the answer is the 3xx itself); and `signal` ends every
 * request, in progress or later (the server is shutting down).
 */
export interface ServiceFetchOptions {
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export function serviceFetch(baseUrl: string, o: ServiceFetchOptions, inner: typeof fetch = fetch): typeof fetch {
  const base = new URL(baseUrl);
  const prefix = `${base.origin}${base.pathname}`;
  const query = [...base.searchParams];
  return async (input, init = {}) => {
    if (o.signal?.aborted) throw o.signal.reason;
    const url = new URL(input instanceof Request ? input.url : String(input));
    let headers = init.headers;
    let redirect = init.redirect;
    if (`${url.origin}${url.pathname}`.startsWith(prefix)) {
      for (const [k, v] of query) if (!url.searchParams.has(k)) url.searchParams.append(k, v);
      headers = { ...Object.fromEntries(new Headers(init.headers)), ...o.headers };
      // Never followed: the redirected request would carry the service's credentials to wherever
      // the answer points (a 3xx is the caller's to refuse, src/collateral/pccsClient.ts).
      redirect = 'manual';
    }
    // The caller's signal (its time limit) and the shutdown signal, both held until the request ends.
    const sources = [init.signal, o.signal].filter((x): x is AbortSignal => x !== undefined && x !== null);
    const combined = combinedSignal(sources);
    try {
      return await inner(url.toString(), { ...init, ...(headers !== undefined ? { headers } : {}), ...(redirect !== undefined ? { redirect } : {}), ...(sources.length ? { signal: combined.signal } : {}) });
    } finally {
      combined.done();
    }
  };
}

/** The abort reason of a shutdown: what an abandoned upstream request reports. */
export function shutdownReason(): Error {
  const e = new Error('the verifier is shutting down');
  e.name = 'AbortError';
  return e;
}
