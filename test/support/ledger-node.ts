/**
 * A real HTTP server imitating a snarkOS ledger node's REST API, for tests. Bound to 127.0.0.1 on
 * a free port. Routes live in a table (see `addRoute`); the built-in ones are
 * `GET {prefix}/program/{id}/mapping/{name}/{key}` and the mapping listing
 * `GET {prefix}/program/{id}/mapping/{name}?all=true&metadata=true` (behind the JWT check, as
 * snarkOS serves it: see `jwt`). Any path can be scripted with a queue of behaviours (errors, rate
 * limits, delays…) consumed one per request before the route answers.
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { streamBody, type StreamedBody } from './stream-body.js';

/** What the server sends for one request. */
export interface Answer {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

export interface RouteRequest {
  /** Capture groups of the route pattern, URL-decoded. */
  params: string[];
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
}

export type RouteHandler = (req: RouteRequest) => Answer;

/** One scripted reaction to a request. */
export type Behaviour =
  /** Let the route table answer (optionally after a delay). */
  | { kind: 'route'; delayMs?: number }
  /** A fixed answer (optionally after a delay). */
  | { kind: 'answer'; answer: Answer; delayMs?: number }
  /** Close the connection without answering. */
  | { kind: 'hangUp' }
  /** An answer built from the request's path and query as received (a node echoing the URL in its error text). */
  | { kind: 'echo'; status: number; body: (rawUrl: string) => string; delayMs?: number }
  /** `bytes` bytes of body (Infinity: without end) written as the client reads them (see `streamed`). */
  | { kind: 'stream'; status: number; bytes: number; declareLength: boolean };

export type LeoStyle = 'pretty' | 'single';

/** Behaviour constructors. */
export const reply = {
  route: (delayMs?: number): Behaviour => (delayMs === undefined ? { kind: 'route' } : { kind: 'route', delayMs }),
  /** The route's normal answer, but only after `delayMs`. */
  slow: (delayMs: number): Behaviour => ({ kind: 'route', delayMs }),
  json: (value: unknown, status = 200): Behaviour => ({ kind: 'answer', answer: jsonAnswer(value, status) }),
  text: (status: number, body: string, headers?: Record<string, string>): Behaviour => ({
    kind: 'answer',
    answer: { status, body, headers: { 'content-type': 'text/plain; charset=utf-8', ...headers } },
  }),
  /** A v1 snarkOS error: status 500 with a plain-text reason. */
  serverError: (body = 'Something went wrong: internal error'): Behaviour => reply.text(500, body),
  /** A newer node's rate limit: 429, optionally with Retry-After. */
  tooManyRequests: (retryAfter?: string): Behaviour =>
    reply.text(429, 'Too Many Requests', retryAfter === undefined ? {} : { 'retry-after': retryAfter }),
  /** An old (2024) node's rate limit: status 200 with the limiter's plain text. */
  rateLimitText: (): Behaviour => reply.text(200, 'Too Many Requests! Wait for 1s (rate limit exceeded)'),
  /**
   * snarkOS's rate limit on its `/{network}` and `/v1/{network}` paths: the v1 error middleware
   * turns the limiter's 429 into a 500 whose body is the limiter's text plus " (HTTP 429)", with
   * no Retry-After (node/rest/src/lib.rs, v1_error_middleware).
   */
  v1RateLimit: (waitSeconds = 1): Behaviour => reply.text(500, `Too Many Requests! Wait for ${waitSeconds}s (HTTP 429)`),
  hangUp: (): Behaviour => ({ kind: 'hangUp' }),
  /** A plain-text answer built from the request's path and query as received (query included). */
  echo: (status: number, body: (rawUrl: string) => string): Behaviour => ({ kind: 'echo', status, body }),
  /** A 200 whose body of `bytes` bytes (Infinity: endless) is written as the client reads it, Content-Length declared or not. */
  stream: (bytes: number, declareLength = true): Behaviour => ({ kind: 'stream', status: 200, bytes, declareLength }),
};

export function jsonAnswer(value: unknown, status = 200): Answer {
  return { status, body: JSON.stringify(value), headers: { 'content-type': 'application/json' } };
}

/** Leo struct text the way snarkOS prints it: one field per line, 2-space indent per depth. */
export function prettyLeo(text: string): string {
  const tokens = text.match(/[{},]|[^{},]+/g) ?? [];
  let out = '';
  let depth = 0;
  const indent = (): string => '  '.repeat(depth);
  for (const raw of tokens) {
    const t = raw.trim();
    if (t === '') continue;
    if (t === '{') {
      depth++;
      out += `{\n${indent()}`;
    } else if (t === '}') {
      depth--;
      out += `\n${indent()}}`;
    } else if (t === ',') {
      out += `,\n${indent()}`;
    } else {
      out += t.replace(/\s*:\s*/, ': ');
    }
  }
  return out;
}

/** Leo struct text on one line: `{ a: 1u128, b: { c: 2u128 } }`. */
export function singleLineLeo(text: string): string {
  const tokens = text.match(/[{},]|[^{},]+/g) ?? [];
  return tokens
    .map((raw) => raw.trim())
    .filter((t) => t !== '')
    .map((t) => (t === '{' ? '{ ' : t === '}' ? ' }' : t === ',' ? ', ' : t.replace(/\s*:\s*/, ': ')))
    .join('');
}

export interface RecordedRequest {
  method: string;
  /** Path and query as received, prefix included. */
  path: string;
  at: number;
}

export interface LedgerNodeOptions {
  /** Path prefix of the API, e.g. `/v1/mainnet` (default) or `/mainnet`. */
  prefix?: string;
  /**
   * The JWT the mapping listing accepts (`Authorization: Bearer <jwt>`); absent: none is accepted,
   * as on a node whose secret nobody was given.
   */
  jwt?: string;
}

export interface LedgerNode {
  /** Base URL including the prefix, e.g. `http://127.0.0.1:41234/v1/mainnet`. */
  url: string;
  /** Stores a mapping value (Leo struct text), served as a JSON string in `style`; null serves JSON null. */
  setMapping(program: string, mapping: string, key: string, value: string | null, style?: LeoStyle): void;
  /** Removes a key from a mapping (a remove: the listing no longer has it). */
  deleteMapping(program: string, mapping: string, key: string): void;
  /** The height the mapping listing reports (`metadata=true`); default 0. */
  setHeight(height: number): void;
  /** Queues behaviours for requests to `path` (below the prefix, no query), consumed one per request. */
  script(path: string, behaviours: Behaviour[]): void;
  /** Adds a route (checked after the built-in ones); `pattern` is matched against the path below the prefix. */
  addRoute(method: string, pattern: RegExp, handler: RouteHandler): void;
  /**
   * Holds every request (recorded, not answered) whose path below the prefix and query match,
   * until the returned release function is called; `close()` drops held requests.
   */
  hold(match: (path: string, query: URLSearchParams) => boolean): () => void;
  /** Drops every queued behaviour and recorded request (stored mapping values stay). */
  reset(): void;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Every body streamed by a `stream` behaviour: bytes handed to the socket, and when it ended. */
  streamed: StreamedBody[];
  /** Calls `listener` on every request as it arrives (before it is answered); returns the unsubscribe. */
  onRequest(listener: (r: RecordedRequest) => void): () => void;
  /** Requests whose path below the prefix (no query) equals `path`. */
  requestsTo(path: string): RecordedRequest[];
  close(): Promise<void>;
}

interface Route {
  method: string;
  pattern: RegExp;
  handler: RouteHandler;
}

export async function startLedgerNode(opts: LedgerNodeOptions = {}): Promise<LedgerNode> {
  const prefix = (opts.prefix ?? '/v1/mainnet').replace(/\/+$/, '');
  const mappings = new Map<string, { value: string | null; style: LeoStyle }>();
  const programs = new Set<string>();
  const scripts = new Map<string, Behaviour[]>();
  const requests: RecordedRequest[] = [];
  const streamed: StreamedBody[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const sockets = new Set<Socket>();
  const routes: Route[] = [];
  const listeners = new Set<(r: RecordedRequest) => void>();
  const holds = new Set<{ match: (path: string, query: URLSearchParams) => boolean; parked: (() => void)[] }>();

  const mappingKey = (program: string, mapping: string, key: string): string => `${program}\u0000${mapping}\u0000${key}`;
  let height = 0;
  // snarkOS's v1 error middleware (the default and /v1 paths, node/rest/src/lib.rs): every error a
  // 500, a RestError as its message, a body that is none (the JWT middleware's bare 401) as
  // "Failed to convert error (HTTP n)"; /v2 keeps the status and the RestError JSON.
  const v2 = /^\/v2\//.test(prefix);
  const error = (status: number, text: string): Answer =>
    v2
      ? { status, body: text === '' ? '' : JSON.stringify({ message: text, chain: [] }), headers: text === '' ? {} : { 'content-type': 'application/json' } }
      : { status: 500, body: text === '' ? `Failed to convert error (HTTP ${status})` : text, headers: { 'content-type': 'text/plain' } };

  routes.push({
    method: 'GET',
    pattern: /^\/program\/([^/]+)\/mapping\/([^/]+)\/([^/]+)$/,
    handler: ({ params: [program = '', mapping = '', key = ''] }) => {
      if (!programs.has(program)) {
        return { status: 500, body: `Invalid URL - Program '${program}' does not exist`, headers: { 'content-type': 'text/plain' } };
      }
      const entry = mappings.get(mappingKey(program, mapping, key));
      if (!entry || entry.value === null) return jsonAnswer(null);
      return jsonAnswer(entry.style === 'pretty' ? prettyLeo(entry.value) : singleLineLeo(entry.value));
    },
  });

  // The listing (get_mapping_values), behind auth_middleware: a 401 with an empty body without a valid Bearer JWT.
  routes.push({
    method: 'GET',
    pattern: /^\/program\/([^/]+)\/mapping\/([^/]+)$/,
    handler: ({ params: [program = '', mapping = ''], query, headers }) => {
      const auth = headers.authorization;
      if (opts.jwt === undefined || auth !== `Bearer ${opts.jwt}`) return error(401, '');
      if (query.get('all') !== 'true') return error(400, "Invalid query parameter. At this time, 'all=true' must be included");
      const prefixKey = `${program}\u0000${mapping}\u0000`;
      const pairs = [...mappings.entries()]
        .filter(([k, v]) => k.startsWith(prefixKey) && v.value !== null)
        .map(([k, v]) => [k.slice(prefixKey.length), prettyLeo(v.value!)]);
      if (!programs.has(program) && pairs.length === 0) {
        return error(500, `Unable to read mapping — Illegal operation: '${program}/${mapping}' is not initialized - cannot get mapping (C).`);
      }
      const body = JSON.stringify(query.get('metadata') === 'true' ? { data: pairs, height } : pairs, null, 2);
      return { status: 200, body, headers: { 'content-type': 'application/json' } };
    },
  });

  const send = (res: ServerResponse, a: Answer): void => {
    if (res.destroyed) return;
    res.writeHead(a.status, { 'content-length': String(Buffer.byteLength(a.body)), ...a.headers });
    res.end(a.body);
  };

  const routeAnswer = (method: string, path: string, query: URLSearchParams, headers: IncomingHttpHeaders): Answer => {
    for (const r of routes) {
      if (r.method !== method) continue;
      const m = r.pattern.exec(path);
      if (!m) continue;
      return r.handler({ params: m.slice(1).map((p) => decodeURIComponent(p ?? '')), query, headers });
    }
    return { status: 404, body: `no route for ${method} ${path}`, headers: { 'content-type': 'text/plain' } };
  };

  const later = (ms: number, fn: () => void): void => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, ms);
    timers.add(t);
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const raw = req.url ?? '/';
    const rec = { method, path: raw, at: Date.now() };
    requests.push(rec);
    for (const l of listeners) l(rec);
    const u = new URL(raw, 'http://ledger.invalid');
    if (!u.pathname.startsWith(`${prefix}/`)) {
      send(res, { status: 404, body: `not under ${prefix}`, headers: { 'content-type': 'text/plain' } });
      return;
    }
    const path = u.pathname.slice(prefix.length);
    const proceed = (): void => {
      const behaviour = scripts.get(path)?.shift() ?? reply.route();
      if (behaviour.kind === 'hangUp') {
        req.socket.destroy();
        return;
      }
      if (behaviour.kind === 'stream') {
        streamed.push(streamBody(res, behaviour.status, behaviour.bytes, behaviour.declareLength));
        return;
      }
      const answer = (): Answer =>
        behaviour.kind === 'answer'
          ? behaviour.answer
          : behaviour.kind === 'echo'
            ? { status: behaviour.status, body: behaviour.body(raw), headers: { 'content-type': 'text/plain; charset=utf-8' } }
            : routeAnswer(method, path, u.searchParams, req.headers);
      if (behaviour.delayMs) later(behaviour.delayMs, () => send(res, answer()));
      else send(res, answer());
    };
    const hold = [...holds].find((h) => h.match(path, u.searchParams));
    if (hold) hold.parked.push(proceed);
    else proceed();
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${prefix}`,
    setMapping(program, mapping, key, value, style = 'pretty') {
      programs.add(program);
      mappings.set(mappingKey(program, mapping, key), { value, style });
    },
    deleteMapping(program, mapping, key) {
      mappings.delete(mappingKey(program, mapping, key));
    },
    setHeight(h) {
      height = h;
    },
    script(path, behaviours) {
      scripts.set(path, [...(scripts.get(path) ?? []), ...behaviours]);
    },
    addRoute(method, pattern, handler) {
      routes.push({ method, pattern, handler });
    },
    hold(match) {
      const h = { match, parked: [] as (() => void)[] };
      holds.add(h);
      return () => {
        holds.delete(h);
        for (const p of h.parked.splice(0)) p();
      };
    },
    reset() {
      scripts.clear();
      requests.length = 0;
    },
    requests,
    streamed,
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    requestsTo(path) {
      return requests.filter((r) => new URL(r.path, 'http://ledger.invalid').pathname === `${prefix}${path}`);
    },
    close() {
      holds.clear();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of sockets) s.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
