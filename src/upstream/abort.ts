/**
 * AbortSignal.any, without its weak hold on the source signals. On Node 20 a pending
 * AbortSignal.timeout that only AbortSignal.any refers to can be garbage-collected and then never
 * fires: a request to a peer that stopped answering would wait for the server's own connection
 * limit instead of its timeout. Here each source keeps an 'abort' listener (which Node holds a
 * timeout signal alive for) until `done()`, called when the request has ended.
 *
 * A source shared by many requests at once (the process's shutdown signal) gets one listener
 * whatever their number, which fans out to the requests combined with it: its listener count stays
 * bounded (no MaxListenersExceededWarning at 11 concurrent requests) and the last `done()` removes it.
 */
interface FanOut {
  subscribers: Set<() => void>;
  fire: () => void;
}
const fanOuts = new WeakMap<AbortSignal, FanOut>();

/** Calls `f` once when `s` aborts; the returned function unsubscribes. `s` holds one listener for all. */
function subscribe(s: AbortSignal, f: () => void): () => void {
  let fo = fanOuts.get(s);
  if (!fo) {
    const subscribers = new Set<() => void>();
    const fire = (): void => {
      fanOuts.delete(s);
      for (const g of [...subscribers]) g();
    };
    fo = { subscribers, fire };
    fanOuts.set(s, fo);
    s.addEventListener('abort', fire, { once: true });
  }
  const mine = fo;
  mine.subscribers.add(f);
  return () => {
    mine.subscribers.delete(f);
    if (mine.subscribers.size === 0 && fanOuts.get(s) === mine) {
      s.removeEventListener('abort', mine.fire);
      fanOuts.delete(s);
    }
  };
}

export function combinedSignal(signals: readonly AbortSignal[]): { signal: AbortSignal; done(): void } {
  const ctrl = new AbortController();
  const unsubscribe: (() => void)[] = [];
  for (const s of signals) {
    if (s.aborted) {
      ctrl.abort(s.reason);
      break;
    }
    unsubscribe.push(subscribe(s, () => ctrl.abort(s.reason)));
  }
  return {
    signal: ctrl.signal,
    done() {
      for (const u of unsubscribe) u();
      unsubscribe.length = 0;
    },
  };
}
