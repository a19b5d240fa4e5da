/**
 * AbortSignal.any, without its weak hold on the source signals. On Node 20 a pending
 * AbortSignal.timeout that only AbortSignal.any refers to can be garbage-collected and then never
 * fires: a request to a peer that stopped answering would wait for the server's own connection
 * limit instead of its timeout. Here each source keeps an 'abort' listener (which Node holds a
 * timeout signal alive for) until `done()`, called when the request has ended.
 */
export function combinedSignal(signals: readonly AbortSignal[]): { signal: AbortSignal; done(): void } {
  const ctrl = new AbortController();
  const listeners: [AbortSignal, () => void][] = [];
  for (const s of signals) {
    if (s.aborted) {
      ctrl.abort(s.reason);
      break;
    }
    const f = (): void => ctrl.abort(s.reason);
    s.addEventListener('abort', f, { once: true });
    listeners.push([s, f]);
  }
  return {
    signal: ctrl.signal,
    done() {
      for (const [s, f] of listeners) s.removeEventListener('abort', f);
      listeners.length = 0;
    },
  };
}
