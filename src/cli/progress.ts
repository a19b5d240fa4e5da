/**
 * Progress on stderr: on a TTY a cli-progress bar (blocks scanned, updates verified, rate, ETA);
 * otherwise a plain line every `intervalMs` (0 = none).
 */
import cliProgress from 'cli-progress';

export interface ProgressOptions {
  /** Blocks (or input units) to do in this run, when known. */
  total?: number;
  unit: string;
  tty: boolean;
  intervalMs: number;
  write?: (s: string) => void;
}

function fmtDuration(s: number): string {
  if (!Number.isFinite(s)) return '?';
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = Math.floor(s % 60);
  return h > 0 ? `${h}h${String(m).padStart(2, '0')}m` : m > 0 ? `${m}m${String(sec).padStart(2, '0')}s` : `${sec}s`;
}

export class Progress {
  private units = 0;
  private updates = 0;
  private readonly t0 = Date.now();
  private timer?: NodeJS.Timeout;
  private readonly write: (s: string) => void;
  private lastLen = 0;

  private readonly bar?: cliProgress.SingleBar;

  constructor(private readonly o: ProgressOptions) {
    this.write = o.write ?? ((s) => void process.stderr.write(s));
    if (o.tty && !o.write) {
      this.bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: `{bar} {percentage}% | {value}/{total} ${o.unit} | updates {updates} | {rate} updates/s | ETA {eta_formatted}`,
          hideCursor: true,
          etaBuffer: 50,
          fps: 4,
        },
        cliProgress.Presets.shades_classic,
      );
      this.bar.start(o.total ?? 0, 0, { updates: 0, rate: '0.0' });
      return;
    }
    const every = o.tty ? 250 : o.intervalMs;
    if (every > 0) {
      this.timer = setInterval(() => this.render(), every);
      this.timer.unref();
    }
  }

  add(units: number, updates: number): void {
    this.units += units;
    this.updates += updates;
    if (this.bar) {
      if (this.o.total === undefined) this.bar.setTotal(this.units);
      const secs = Math.max(0.001, (Date.now() - this.t0) / 1000);
      this.bar.update(this.units, { updates: this.updates, rate: (this.updates / secs).toFixed(1) });
    }
  }

  line(): string {
    const secs = Math.max(0.001, (Date.now() - this.t0) / 1000);
    const rate = this.updates / secs;
    const unitRate = this.units / secs;
    const total = this.o.total;
    const pct = total ? ` (${((100 * this.units) / total).toFixed(1)}%)` : '';
    const eta = total && unitRate > 0 ? ` ETA ${fmtDuration((total - this.units) / unitRate)}` : '';
    return `${this.o.unit} ${this.units}${total !== undefined ? `/${total}` : ''}${pct}, updates ${this.updates}, ${rate.toFixed(1)} updates/s, ${unitRate.toFixed(1)} ${this.o.unit}/s${eta}`;
  }

  private render(): void {
    const l = this.line();
    if (this.o.tty) {
      this.write(`\r${l.padEnd(this.lastLen)}`);
      this.lastLen = l.length;
    } else this.write(`progress: ${l}\n`);
  }

  stop(): void {
    if (this.bar) {
      this.bar.stop();
      return;
    }
    if (this.timer) clearInterval(this.timer);
    if (this.o.tty) this.write(`\r${this.line().padEnd(this.lastLen)}\n`);
  }
}
