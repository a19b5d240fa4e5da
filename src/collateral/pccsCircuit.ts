/**
 * The PCCS circuit breaker. A PCCS that does not answer (a request timed out or its connection
 * failed) would make every cold typeA verification wait for its own timeouts (3 × 10 s). After one
 * such failure the circuit opens: for a cool-down no request is sent, and the collateral the
 * caches lack fails at once (PCCS_UNAVAILABLE: unverifiable, the message says until when). When
 * the cool-down is over the circuit is half-open: the next request (a collateral fetch or the
 * reachability probe of GET /status/pccs) is the one probe, the others keep failing at once while
 * it runs. Any answer of the PCCS (an HTTP status, also 4xx/5xx: it is there) closes the circuit;
 * a probe without answer opens it again for twice the previous cool-down, up to a cap.
 *
 * Only requests to the PCCS pass through it; requests to other hosts (Intel's root CA CRL
 * distribution point) do not. A request that was sent before the circuit opened and fails later
 * does not open it again (the failure is already known).
 */

export type CircuitState = 'closed' | 'open' | 'half-open';

export interface PccsCircuitOptions {
  /** First cool-down (ms). */
  cooldownMs: number;
  /** Cap of the doubling cool-down (ms). */
  maxCooldownMs: number;
  now?: () => number;
  /** Called each time the circuit opens (metrics, log). */
  onOpen?: (until: number, cooldownMs: number, reason: string) => void;
}

/** What GET /status/pccs shows of the circuit. */
export interface CircuitView {
  state: CircuitState;
  /** Open: when the next request may probe the PCCS (epoch ms). */
  until?: number;
  /** The cool-down in force (ms), while open or half-open. */
  cooldownMs?: number;
  /** Why it opened: the failure of the request that opened it. */
  reason?: string;
  /** Times it opened since start. */
  opens: number;
}

/** A request let through: report its end with `answered` or `failed`. */
export interface CircuitTicket {
  readonly probe: boolean;
  readonly generation: number;
}

export class PccsCircuit {
  private readonly now: () => number;
  /** While open or half-open: the end of the cool-down. */
  private openUntil: number | undefined;
  private cooldown = 0;
  private reason: string | undefined;
  private probing = false;
  /** Incremented at each opening: a ticket of an older generation cannot open it again. */
  private generation = 0;
  opens = 0;

  constructor(private readonly o: PccsCircuitOptions) {
    this.now = o.now ?? Date.now;
  }

  get state(): CircuitState {
    if (this.openUntil === undefined) return 'closed';
    return this.now() < this.openUntil ? 'open' : 'half-open';
  }

  /** Whether a request asked now would be refused (open, or half-open with its probe under way). */
  get refusing(): boolean {
    const s = this.state;
    return s === 'open' || (s === 'half-open' && this.probing);
  }

  view(): CircuitView {
    const state = this.state;
    return {
      state,
      ...(state === 'open' ? { until: this.openUntil! } : {}),
      ...(state !== 'closed' ? { cooldownMs: this.cooldown } : {}),
      ...(state !== 'closed' && this.reason !== undefined ? { reason: this.reason } : {}),
      opens: this.opens,
    };
  }

  /**
   * Asks to send a request: a ticket, or the sentence saying why not (the circuit is open until
   * a time, or its probe is under way).
   */
  admit(): CircuitTicket | { refused: string } {
    const state = this.state;
    if (state === 'closed') return { probe: false, generation: this.generation };
    const why = this.reason === undefined ? '' : ` after ${this.reason}`;
    if (state === 'open') {
      return { refused: `the PCCS circuit is open${why}: no request is sent until ${new Date(this.openUntil!).toISOString()}, when one request probes the PCCS again (cool-down ${this.cooldown} ms)` };
    }
    if (this.probing) return { refused: `the PCCS circuit is half-open${why}: one request is probing the PCCS now; the others fail until it answers` };
    this.probing = true;
    return { probe: true, generation: this.generation };
  }

  /** The PCCS answered (any HTTP status): the circuit closes. */
  answered(t: CircuitTicket): void {
    if (t.probe) this.probing = false;
    this.openUntil = undefined;
    this.cooldown = 0;
    this.reason = undefined;
  }

  /** The request got no answer (`reason`: the timeout or the connection failure). */
  failed(t: CircuitTicket, reason: string): void {
    if (t.probe) this.probing = false;
    if (this.openUntil === undefined) {
      // Closed: a request sent since it last closed opens it (an older one's failure is known).
      if (t.probe || t.generation === this.generation) this.open(this.o.cooldownMs, reason);
    } else if (t.probe) {
      this.open(Math.min(Math.max(this.cooldown, this.o.cooldownMs) * 2, Math.max(this.o.maxCooldownMs, this.o.cooldownMs)), reason);
    }
  }

  private open(cooldownMs: number, reason: string): void {
    this.generation++;
    this.opens++;
    this.cooldown = cooldownMs;
    this.reason = reason;
    this.openUntil = this.now() + cooldownMs;
    this.o.onOpen?.(this.openUntil, cooldownMs, reason);
  }
}
