/**
 * Whether the configured PCCS is reachable (GET /status/pccs, the ledger page's strip, the
 * `verifier_pccs_up` gauge). Two sources: every real PCCS request's outcome (passive, through the
 * client's onRequest), and a probe (`PccsClient.probe`: one small GET, no retries, bounded time)
 * made on demand when the last observation is older than `maxAgeMs`; concurrent callers share one
 * probe. "Reachable" means the service answered with an HTTP status below 500; no answer, a
 * timeout or a 5xx is "not reachable" with the reason. Requests to other hosts (Intel's root CA
 * CRL when the PCCS has no `rootcacrl` route) are not observations of the PCCS. While the PCCS
 * circuit breaker holds requests back (open, or its probe under way) no probe is sent: the answer
 * is the last observation and the circuit's state (until when it is open).
 */
import type { PccsCode } from './errors.js';
import { publicUrl } from './pccsClient.js';
import type { CircuitState, PccsCircuit } from './pccsCircuit.js';

export interface PccsObservation {
  reachable: boolean;
  /** When the exchange ended (epoch ms). */
  at: number;
  latencyMs: number;
  /** Why it is not reachable. */
  error?: string;
  errorCode?: Extract<PccsCode, 'PCCS_UNAVAILABLE' | 'PCCS_HTTP_ERROR'>;
}

/** The answer of GET /status/pccs. */
export interface PccsStatusReport {
  /** A PCCS URL is configured. */
  configured: boolean;
  /** typeA collateral comes from a collateral directory first. */
  collateralDir: boolean;
  /** The PCCS base URL without credentials and query. */
  url?: string;
  /** null: no PCCS configured. */
  reachable: boolean | null;
  checkedAt?: string;
  latencyMs?: number;
  error?: string;
  errorCode?: string;
  /** The circuit breaker: closed, open (until: no request is sent before it) or half-open (the next request probes). */
  circuit?: { state: CircuitState; until?: string; cooldownMs?: number; reason?: string; opens: number };
}

export interface PccsStatusOptions {
  /** The PCCS base URL (ending in '/'); absolute request URLs elsewhere are not observations. */
  baseUrl: string;
  /** An observation older than this is refreshed by a probe. */
  maxAgeMs: number;
  /** Sends the probe; its outcome arrives through observe() (PccsClient.probe with onRequest wired here). */
  probe: () => Promise<void>;
  /** The PCCS client's circuit breaker: no probe while it holds requests back. */
  circuit?: PccsCircuit;
  now?: () => number;
}

export class PccsStatus {
  private lastSeen: PccsObservation | undefined;
  private inflight: Promise<void> | undefined;
  private readonly now: () => number;
  /** Probes sent (tests, diagnostics). */
  probes = 0;

  constructor(private readonly o: PccsStatusOptions) {
    this.now = o.now ?? Date.now;
  }

  get url(): string {
    return publicUrl(this.o.baseUrl);
  }

  get circuit(): PccsCircuit | undefined {
    return this.o.circuit;
  }

  /** The latest observation, without probing. */
  get last(): PccsObservation | undefined {
    return this.lastSeen;
  }

  /** Fits PccsClientOptions.onRequest. */
  observe(route: string, status: number | 'error', ms: number, detail?: string): void {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(route) && !route.startsWith(this.o.baseUrl)) return;
    const base = { at: this.now(), latencyMs: Math.max(0, Math.round(ms)) };
    if (status === 'error') this.lastSeen = { ...base, reachable: false, error: detail ?? 'no response', errorCode: 'PCCS_UNAVAILABLE' };
    else if (status >= 500) this.lastSeen = { ...base, reachable: false, error: `HTTP ${status}`, errorCode: 'PCCS_HTTP_ERROR' };
    // A redirect is not the PCCS answering: it is never followed (its API key would go with it).
    else if (status >= 300 && status < 400) this.lastSeen = { ...base, reachable: false, error: `HTTP ${status}: a redirect, not followed`, errorCode: 'PCCS_HTTP_ERROR' };
    else this.lastSeen = { ...base, reachable: true };
  }

  private fresh(): boolean {
    return this.lastSeen !== undefined && this.now() - this.lastSeen.at < this.o.maxAgeMs;
  }

  /** Starts a probe unless the last observation is fresh, one is running or the circuit holds requests back; never throws. */
  refresh(): Promise<void> {
    if (this.fresh() || (this.inflight === undefined && this.o.circuit?.refusing)) return Promise.resolve();
    this.inflight ??= this.runProbe().finally(() => {
      this.inflight = undefined;
    });
    return this.inflight;
  }

  /** The state, probed first when the last observation is older than maxAgeMs. */
  async current(): Promise<PccsObservation> {
    await this.refresh();
    return this.lastSeen ?? { at: this.now(), latencyMs: 0, reachable: false, error: 'not observed yet: the circuit breaker holds requests back', errorCode: 'PCCS_UNAVAILABLE' };
  }

  private async runProbe(): Promise<void> {
    const t0 = this.now();
    this.probes++;
    let failure: string | undefined;
    try {
      await this.o.probe();
    } catch (e) {
      failure = e instanceof Error ? e.message : String(e);
    }
    // The probe reports through observe(); one that did not is itself the reason.
    if (this.lastSeen === undefined || this.lastSeen.at < t0) {
      this.lastSeen = { at: this.now(), latencyMs: 0, reachable: false, error: `probe failed: ${failure ?? 'no outcome reported'}`, errorCode: 'PCCS_UNAVAILABLE' };
    }
  }
}

/** GET /status/pccs of a verifier whose PCCS (if any) `status` tracks. */
export async function pccsStatusReport(status: PccsStatus | undefined, collateralDir: boolean): Promise<PccsStatusReport> {
  if (!status) return { configured: false, collateralDir, reachable: null };
  const s = await status.current();
  const c = status.circuit?.view();
  const circuit = c
    ? {
        circuit: {
          state: c.state,
          ...(c.until !== undefined ? { until: new Date(c.until).toISOString() } : {}),
          ...(c.cooldownMs !== undefined ? { cooldownMs: c.cooldownMs } : {}),
          ...(c.reason !== undefined ? { reason: c.reason } : {}),
          opens: c.opens,
        },
      }
    : {};
  return {
    configured: true,
    collateralDir,
    url: status.url,
    reachable: s.reachable,
    checkedAt: new Date(s.at).toISOString(),
    latencyMs: s.latencyMs,
    ...(s.error !== undefined ? { error: s.error } : {}),
    ...(s.errorCode !== undefined ? { errorCode: s.errorCode } : {}),
    ...circuit,
  };
}
