/**
 * A mainnet-shaped snarkOS stand-in: blocks of mainnet's size and shape (test/support/mainnet-shape.ts),
 * mainnet's transaction density, oracle updates every `updateEvery` blocks, served the way snarkOS
 * serves them (node/rest/src/lib.rs and routes.rs, 2026):
 *   GET {prefix}/block/height/latest
 *   GET {prefix}/block/{h}/header                 (the block's header: its metadata.timestamp places times)
 *   GET {prefix}/blocks?start&end                 (end exclusive, at most 50)
 *   GET {prefix}/blocks/transactions?start&end    (at most 160; one array of confirmed transactions per block)
 *   GET {prefix}/program/{id}/mapping/{name}/{key}
 *   GET {prefix}/program/{id}/mapping/{name}?all=true[&metadata=true]  (behind the JWT when one is set)
 * under the prefixes `/mainnet`, `/v1/mainnet` (v1: every error a 500 whose text ends "(HTTP n)")
 * and `/v2/mainnet` (the status kept, errors as `{ message, error_type }`), each with its own per-IP
 * rate limit (tower_governor: `rps` per second, burst `rps`; over it, v2 answers 429 "Too Many
 * Requests! Wait for Ns" with `retry-after`, v1 a 500 "Too Many Requests! Wait for Ns (HTTP 429)").
 *
 * Bodies are cheap to serve: a few pretty-printed authority templates (by height), the block's
 * frame (hashes, height, round, timestamp) rendered per block, its transactions spliced in
 * (none, a filler transfer, or an oracle update built by LedgerChain, the one builder of
 * transactions); the pieces are written without joining them. Run it as its own process with
 * test/support/mainnet-node-main.ts (`startMainnetNodeProcess`).
 *
 * The updates are placed in the order of their attestation times, and the block times hold them
 * (test/support/mainnet-times.ts): the block of an update's first placement is at or a little
 * after its attestation time. Later placements (the updates in turn again, to fill a long chain)
 * are replays of old attestations and write what the first did. The programs deployed are those
 * the updates call or store into: any other's mapping "does not exist" (a 500, as snarkOS says it).
 *
 * Not snarkOS, outside the prefixes: `GET /__served` (what it served), `PUT /__listed` (a JSON
 * array of ListedValue: the mapping values the node claims instead of what its blocks wrote, a
 * lying or stale node; [] tells the truth again) and `PUT /__latest` (a JSON height: the chain
 * grows, or shrinks, to it).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { fakeId, LedgerChain, t, type ConfirmedTx } from './ledger-chain.js';
import { AUTHORITY_MARK, blockFrame, MAINNET_AUTHORITY_SHAPES, prettyAt, quorumAuthority, TRANSACTIONS_MARK } from './mainnet-shape.js';
import { PROGRAMS, updateKindOf } from '../../src/ledger/programs.js';
import { updateWrites } from '../../src/ledger/records/mappingWrites.js';
import { prettyLeo } from './ledger-node.js';
import { TSX } from './process.js';
import { BlockTimes } from './mainnet-times.js';
import type { MappingWrite } from '../../src/ledger/records/mappingWrites.js';

export interface MainnetUpdate {
  program: string;
  fn: string;
  userData: string;
  report: string;
}

export interface MainnetNodeSpec {
  /** The latest height (the chain is 0..latest). */
  latest: number;
  /** Requests per second per IP and prefix (burst the same). */
  rps: number;
  /** The updates placed, in turn, at heights ≡ updateEvery/2 (mod updateEvery). */
  updates: MainnetUpdate[];
  updateEvery?: number;
  /** Average bytes of pretty-printed transactions per block (mainnet ≈ 1.5 KB); filler transfers make it up. */
  txBytesPerBlock?: number;
  /** When set, the mapping listing wants `Authorization: Bearer <jwt>`. */
  jwt?: string;
  /**
   * Block 0's timestamp (Unix seconds; each block 2.9 s later, an update's block not before its
   * attestation: mainnet-times.ts); default: 1725000000, as on mainnet, or earlier when an update
   * attests an earlier time than its block would have.
   */
  genesisTime?: number;
  /** Mapping values the node claims instead of what its blocks wrote (also `PUT /__listed`). */
  listed?: ListedValue[];
}

/** One mapping value a lying node claims: `value` (Leo text, served as given) under `key`; null: the key is left out. */
export interface ListedValue {
  program: string;
  mapping: string;
  key: string;
  value: string | null;
}

export const PREFIXES = ['/mainnet', '/v1/mainnet', '/v2/mainnet'] as const;
export const MAX_BLOCKS = 50;
export const MAX_BLOCK_TRANSACTIONS = 160;
const GENESIS_TIME = 1725000000;
const ID_SLOT = '\u0000id';
const ROUTES = [/^\/block\/height\/latest$/, /^\/block\/\d+\/header$/, /^\/blocks(\/transactions)?$/, /^\/program\/[^/]+\/mapping\/[^/]+(\/[^/]+)?$/];

export class MainnetChain {
  latest: number;
  readonly every: number;
  /** Spec indices of the updates in placement order (by attestation time). */
  private readonly order: number[];
  /** The mapping writes of each update (by spec index), as the scan computes them. */
  private readonly writes: MappingWrite[][];
  readonly times: BlockTimes;
  /** Programs deployed: those the updates call or store into. */
  private readonly deployed = new Set<string>();
  /** program\0mapping → key → the value claimed instead (null: left out). */
  private readonly lies = new Map<string, Map<string, string | null>>();
  private readonly authorities: Buffer[];
  private readonly filler: ConfirmedTx[];
  private readonly fillerPretty: string[];
  private readonly templates = new Map<string, string[]>();
  readonly fillerEvery: number;
  /** program\0mapping → key → Leo value text. */
  readonly mappings = new Map<string, Map<string, string>>();

  constructor(readonly spec: MainnetNodeSpec) {
    this.latest = spec.latest;
    this.every = spec.updateEvery ?? 100;
    this.writes = spec.updates.map((u) => {
      const kind = updateKindOf(u.program, u.fn);
      return kind ? updateWrites(PROGRAMS.program(u.program)?.attestedData, kind, u.fn, u.userData).filter((w) => w.data !== undefined && w.attestationTimestamp !== undefined) : [];
    });
    for (const [i, u] of spec.updates.entries()) for (const p of [u.program, ...this.writes[i]!.map((w) => w.program)]) this.deployed.add(p);
    // Placed by attestation time (the latest of an update's requests), those without one last.
    const attested = this.writes.map((ws) => (ws.length ? Math.max(...ws.map((w) => Number(w.attestationTimestamp))) : Number.POSITIVE_INFINITY));
    this.order = spec.updates.map((_u, i) => i).sort((a, b) => attested[a]! - attested[b]! || a - b);
    const anchors = this.order.flatMap((i, p) => (Number.isFinite(attested[i]) ? [{ height: Math.floor(this.every / 2) + p * this.every, time: attested[i]! }] : []));
    this.times = new BlockTimes(anchors, spec.genesisTime);
    this.setListed(spec.listed ?? []);
    this.authorities = MAINNET_AUTHORITY_SHAPES.map((s, i) => Buffer.from(prettyAt(quorumAuthority(s, 4_000_000 + 8 * i, GENESIS_TIME, `authority${i}`), 2)));
    this.filler = this.fillerChain();
    this.fillerPretty = [prettyAt(this.filler, 1), prettyAt(this.filler, 2)];
    const fillerBytes = prettyAt(this.filler, 1).length;
    const updateBytes = spec.updates.length === 0 ? 0 : spec.updates.reduce((n, _u, i) => n + prettyAt(this.updateTxs(this.every / 2 + i * this.every), 1).length, 0) / spec.updates.length;
    const left = (spec.txBytesPerBlock ?? 1500) - updateBytes / this.every;
    this.fillerEvery = left > 0 ? Math.max(1, fillerBytes / left) : Number.POSITIVE_INFINITY;
    this.placeMappings();
  }

  private fillerChain(): ConfirmedTx[] {
    const c = new LedgerChain(0, 0, 'filler/');
    c.add(0, [t.transfer()]);
    return c.transactionsAt(0);
  }

  /** The spec index of the update placed at `height`, if any. */
  private placedAt(height: number): number | undefined {
    const n = this.spec.updates.length;
    if (n === 0 || height % this.every !== Math.floor(this.every / 2)) return undefined;
    return this.order[Math.floor(height / this.every) % n];
  }

  /** The update placed at `height`, if any. */
  updateAt(height: number): MainnetUpdate | undefined {
    const i = this.placedAt(height);
    return i === undefined ? undefined : this.spec.updates[i];
  }

  /** The chain is 0..`latest` from now on (the mappings hold what its blocks wrote). */
  setLatest(latest: number): void {
    this.latest = latest;
    this.placeMappings();
  }

  /** What the node claims instead of its blocks' writes (replacing earlier claims). */
  setListed(listed: readonly ListedValue[]): void {
    this.lies.clear();
    for (const l of listed) {
      const k = `${l.program}\u0000${l.mapping}`;
      const m = this.lies.get(k) ?? new Map<string, string | null>();
      m.set(l.key, l.value);
      this.lies.set(k, m);
    }
  }

  /** Whether `program` is deployed (the updates call or store into it, or the node claims keys of it). */
  isDeployed(program: string): boolean {
    return this.deployed.has(program) || [...this.lies.keys()].some((k) => k.startsWith(`${program}\u0000`));
  }

  /** Every pair of a mapping as the node lists it: its blocks' writes, with the claims applied. */
  listing(program: string, mapping: string): [string, string][] {
    const k = `${program}\u0000${mapping}`;
    const lies = this.lies.get(k) ?? new Map<string, string | null>();
    const pairs: [string, string][] = [];
    for (const [key, v] of this.mappings.get(k) ?? []) {
      const lie = lies.get(key);
      if (lie === undefined) pairs.push([key, prettyLeo(v)]);
      else if (lie !== null) pairs.push([key, lie]);
    }
    for (const [key, lie] of lies) if (lie !== null && !this.mappings.get(k)?.has(key)) pairs.push([key, lie]);
    return pairs;
  }

  /** One value as the node serves it (the claim, if any); undefined: no such key. */
  value(program: string, mapping: string, key: string): string | undefined {
    const lie = this.lies.get(`${program}\u0000${mapping}`)?.get(key);
    if (lie !== undefined) return lie ?? undefined;
    const v = this.mappings.get(`${program}\u0000${mapping}`)?.get(key);
    return v === undefined ? undefined : prettyLeo(v);
  }

  /**
   * Update `i`'s transaction pretty-printed `depth` levels deep, split at its transaction id and its
   * transition ids, so that each placement gets ids of its own by a join (built once by LedgerChain).
   */
  private updateTemplate(i: number, depth: 1 | 2): string[] {
    const key = `${i}/${depth}`;
    const hit = this.templates.get(key);
    if (hit) return hit;
    const u = this.spec.updates[i]!;
    const c = new LedgerChain(0, 0, `update${i}/`);
    const { transactionId, transitionIds } = c.add(0, [t.update(u.program, u.fn, u.userData, u.report)]);
    let parts = [prettyAt(c.transactionsAt(0), depth)];
    for (const id of [transactionId, ...transitionIds]) parts = parts.flatMap((p) => p.split(id).flatMap((x, k) => (k === 0 ? [x] : [ID_SLOT, x])));
    this.templates.set(key, parts);
    return parts;
  }

  /** The pretty transactions of the update placed at `height` (ids of its own), or undefined. */
  private updatePretty(height: number, depth: 1 | 2): string | undefined {
    const i = this.placedAt(height);
    if (i === undefined) return undefined;
    let n = 0;
    return this.updateTemplate(i, depth)
      .map((p) => (p === ID_SLOT ? (n++ === 0 ? fakeId('at', `h${height}/tx`) : fakeId('au', `h${height}/transition${n - 1}`)) : p))
      .join('');
  }

  private updateTxs(height: number): ConfirmedTx[] {
    const text = this.updatePretty(height, 1);
    return text === undefined ? [] : (JSON.parse(text) as ConfirmedTx[]);
  }

  /** The confirmed transactions of the block at `height`. */
  transactionsAt(height: number): ConfirmedTx[] {
    if (this.updateAt(height)) return this.updateTxs(height);
    return this.hasFiller(height) ? this.filler : [];
  }

  /** One filler every `fillerEvery` blocks on average (a real number: the density comes out exact). */
  private hasFiller(height: number): boolean {
    return Math.floor(height / this.fillerEvery) !== Math.floor((height - 1) / this.fillerEvery);
  }

  /** The block's transactions pretty-printed `depth` levels deep. */
  private prettyTransactions(height: number, depth: 1 | 2): string {
    return this.updatePretty(height, depth) ?? (this.hasFiller(height) ? this.fillerPretty[depth - 1]! : '[]');
  }

  /** The block at `height` without its authority and transactions (as a header route reads it). */
  private frame(height: number): Record<string, unknown> {
    return blockFrame(height, this.times.at(height), 4_000_000 + 2 * height);
  }

  /** `/block/{h}/header`: the block's header, pretty-printed. */
  header(height: number): string {
    return JSON.stringify(this.frame(height).header, null, 2);
  }

  /** The pieces of the block at `height`, pretty-printed as an element of `/blocks`' array. */
  blockPieces(height: number): (string | Buffer)[] {
    const frame = prettyAt(this.frame(height), 1);
    const [head, rest] = frame.split(`"${AUTHORITY_MARK}"`) as [string, string];
    const [middle, tail] = rest.split(`"${TRANSACTIONS_MARK}"`) as [string, string];
    return [`  ${head}`, this.authorities[height % this.authorities.length]!, middle, this.prettyTransactions(height, 2), tail];
  }

  /** The transactions of `height` as an element of `/blocks/transactions`' array. */
  transactionsPiece(height: number): string {
    return `  ${this.prettyTransactions(height, 1)}`;
  }

  /**
   * What the chain's mappings hold after the updates placed at or below the latest height, in block
   * order: a request-hash key (`latest`) only by a newer attestation, a timestamped one always. The
   * first round of placements decides it (later ones replay them: the same writes again).
   */
  private placeMappings(): void {
    this.mappings.clear();
    const held = new Map<string, bigint>();
    const first = Math.floor(this.every / 2);
    this.order.forEach((i, p) => {
      if (first + p * this.every > this.latest) return;
      for (const w of this.writes[i]!) {
        const id = `${w.program}\u0000${w.mapping}\u0000${w.key}`;
        const t = BigInt(w.attestationTimestamp!);
        if (w.role === 'latest' && held.has(id) && held.get(id)! >= t) continue;
        held.set(id, t);
        const k = `${w.program}\u0000${w.mapping}`;
        const m = this.mappings.get(k) ?? new Map<string, string>();
        m.set(w.key, `{ data: ${w.data}u128, attestation_timestamp: ${w.attestationTimestamp}u128 }`);
        this.mappings.set(k, m);
      }
    });
  }
}

interface Answer {
  status: number;
  body: (string | Buffer)[];
  headers?: Record<string, string>;
}

const json = (text: string): Answer => ({ status: 200, body: [text], headers: { 'content-type': 'application/json' } });
const restError = (status: number, errorType: string, message: string): Answer => ({
  status,
  body: [JSON.stringify({ message, error_type: errorType })],
  headers: { 'content-type': 'application/json' },
});

/** v1_error_middleware: any error becomes a 500 with a plain text; the status is kept in the text unless the body was a REST error. */
function v1(a: Answer): Answer {
  if (a.status < 400) return a;
  const text = a.body.map(String).join('').trim();
  let message: string;
  try {
    const e = JSON.parse(text) as { message?: unknown; chain?: unknown };
    if (typeof e.message !== 'string') throw new Error('not a REST error');
    message = [e.message, ...(Array.isArray(e.chain) ? e.chain : [])].join(' — ');
  } catch {
    message = text === '' ? `Failed to convert error (HTTP ${a.status})` : `${text} (HTTP ${a.status})`;
  }
  return { status: 500, body: [message] };
}

function range(query: URLSearchParams, max: number, item: string): { start: number; end: number } | Answer {
  for (const name of ['start', 'end']) {
    const v = query.get(name);
    if (v === null) return { status: 400, body: [`Failed to deserialize query string: missing field \`${name}\``], headers: { 'content-type': 'text/plain; charset=utf-8' } };
    if (!/^\d+$/.test(v) || Number(v) > 0xffffffff) return { status: 400, body: [`Failed to deserialize query string: ${name}: invalid digit found in string`], headers: { 'content-type': 'text/plain; charset=utf-8' } };
  }
  const start = Number(query.get('start'));
  const end = Number(query.get('end'));
  if (start > end) return restError(400, 'bad_request', 'Invalid block range');
  if (end - start > max) return restError(400, 'bad_request', `Cannot request more than ${max} ${item} per call (requested ${end - start})`);
  return { start, end };
}

/** tower_governor's GCRA: one cell per 1/rps s, a burst of rps. */
class RateLimit {
  private readonly tat = new Map<string, number>();
  constructor(private readonly rps: number) {}
  /** undefined: allowed; else the whole seconds to wait. */
  check(key: string, now: number): number | undefined {
    const period = 1000 / this.rps;
    const tat = Math.max(this.tat.get(key) ?? now, now) + period;
    const over = tat - now - this.rps * period;
    if (over > 0) return Math.floor(over / 1000);
    this.tat.set(key, tat);
    return undefined;
  }
}

export interface MainnetNode {
  /** `http://127.0.0.1:PORT` (add a prefix). */
  origin: string;
  chain: MainnetChain;
  close(): Promise<void>;
}

export async function startMainnetNode(spec: MainnetNodeSpec): Promise<MainnetNode> {
  const chain = new MainnetChain(spec);
  const limits = new Map(PREFIXES.map((p) => [p, new RateLimit(spec.rps)]));

  const route = (path: string, query: URLSearchParams, req: IncomingMessage): Answer => {
    if (path === '/block/height/latest') return json(String(chain.latest));
    const header = /^\/block\/(\d+)\/header$/.exec(path);
    if (header) {
      const h = Number(header[1]);
      if (h > chain.latest) return restError(404, 'not_found', `Missing block hash for block ${h}`);
      return json(chain.header(h));
    }
    if (path === '/blocks' || path === '/blocks/transactions') {
      const whole = path === '/blocks';
      const r = range(query, whole ? MAX_BLOCKS : MAX_BLOCK_TRANSACTIONS, whole ? 'blocks' : "blocks' transactions");
      if ('status' in r) return r;
      if (r.end - 1 > chain.latest) return restError(404, 'not_found', `Missing block hash for block ${chain.latest + 1}`);
      if (r.start === r.end) return json('[]');
      const body: (string | Buffer)[] = ['[\n'];
      for (let h = r.start; h < r.end; h++) {
        if (h > r.start) body.push(',\n');
        if (whole) body.push(...chain.blockPieces(h));
        else body.push(chain.transactionsPiece(h));
      }
      body.push('\n]');
      return { status: 200, body, headers: { 'content-type': 'application/json' } };
    }
    const value = /^\/program\/([^/]+)\/mapping\/([^/]+)\/([^/]+)$/.exec(path);
    if (value) {
      const [, program = '', mapping = '', key = ''] = value.map((s) => decodeURIComponent(s ?? ''));
      if (!chain.isDeployed(program)) return restError(500, 'internal_server_error', `Program '${program}' does not exist`);
      const v = chain.value(program, mapping, key);
      return json(v === undefined ? 'null' : JSON.stringify(v));
    }
    const listing = /^\/program\/([^/]+)\/mapping\/([^/]+)$/.exec(path);
    if (listing) {
      if (spec.jwt !== undefined && req.headers.authorization !== `Bearer ${spec.jwt}`) return { status: 401, body: ['Unauthorized'] };
      if (query.get('all') !== 'true') return restError(400, 'bad_request', "Invalid query parameter. At this time, 'all=true' must be included");
      const [, program = '', mapping = ''] = listing.map((s) => decodeURIComponent(s ?? ''));
      if (!chain.isDeployed(program)) return restError(500, 'internal_server_error', `Program '${program}' does not exist`);
      const pairs = chain.listing(program, mapping);
      return json(JSON.stringify(query.get('metadata') === 'true' ? { data: pairs, height: chain.latest } : pairs, null, 2));
    }
    return { status: 404, body: [] };
  };

  const served = { requests: 0, bytes: 0 };
  const send = (res: ServerResponse, a: Answer): void => {
    const length = a.body.reduce((n, p) => n + Buffer.byteLength(p), 0);
    served.requests++;
    served.bytes += length;
    res.writeHead(a.status, { 'content-length': String(length), ...a.headers });
    res.cork();
    for (const p of a.body) res.write(p);
    res.uncork();
    res.end();
  };

  const control = (req: IncomingMessage, res: ServerResponse, path: string): void => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      let v: unknown;
      try {
        v = JSON.parse(body);
      } catch {
        return void send(res, { status: 400, body: ['not JSON'] });
      }
      if (path === '/__latest') chain.setLatest(v as number);
      else chain.setListed(v as ListedValue[]);
      res.end('{}');
    });
  };

  const server = createServer((req, res) => {
    const u = new URL(req.url ?? '/', 'http://node.invalid');
    // Not snarkOS: what this stand-in has served so far (for the benchmark's MB/s), outside the prefixes.
    if (u.pathname === '/__served') return void res.end(JSON.stringify(served));
    // Not snarkOS either: a test's claims (PUT /__listed) and the chain's growth (PUT /__latest).
    if ((u.pathname === '/__listed' || u.pathname === '/__latest') && req.method === 'PUT') return void control(req, res, u.pathname);
    const prefix = [...PREFIXES].sort((a, b) => b.length - a.length).find((p) => u.pathname.startsWith(`${p}/`));
    if (!prefix || req.method !== 'GET') return send(res, { status: prefix ? 405 : 404, body: [] });
    const path = u.pathname.slice(prefix.length);
    // The limiter is a layer of the matched routes (an unknown path is the outer router's bare 404).
    const wait = ROUTES.some((r) => r.test(path)) ? limits.get(prefix)!.check(req.socket.remoteAddress ?? '', Date.now()) : undefined;
    const answer: Answer =
      wait === undefined ? route(path, u.searchParams, req) : { status: 429, body: [`Too Many Requests! Wait for ${wait}s`], headers: { 'x-ratelimit-after': String(wait), 'retry-after': String(wait) } };
    send(res, prefix === '/v2/mainnet' ? answer : v1(answer));
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok());
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    chain,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

export interface MainnetNodeProcess {
  child: ChildProcess;
  origin: string;
  stop(): Promise<void>;
}

/** Runs the stand-in as its own process (test/support/mainnet-node-main.ts) on the spec in `specFile`. */
export function startMainnetNodeProcess(specFile: string): Promise<MainnetNodeProcess> {
  const entry = resolve(import.meta.dirname, 'mainnet-node-main.ts');
  const child = spawn(process.execPath, ['--import', TSX, entry, specFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((ok, fail) => {
    let out = '';
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(out);
      if (m)
        ok({
          child,
          origin: m[1]!,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
    });
    child.once('exit', (code) => fail(new Error(`mainnet node exited with ${code} before listening\n${out}\n${err}`)));
  });
}
