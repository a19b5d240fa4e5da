import net, { type Socket } from 'node:net';
import tls from 'node:tls';
import { CappedBuffer, openCappedBody, type BufferPool, type ByteBudget, type CappedBody } from './body.js';
import { BodyDecoder, framingOf, headEnd, Http1Error, listOf, NEED_MORE, parseHead, STOPPED, TOO_LARGE, type Framing, type Head } from './http1Framing.js';

/**
 * A minimal HTTP/1.1 GET client on `net`/`tls`, the ledger node's raw-bytes transport (`/blocks`
 * ranges of ≈ 17.5 MB): each body byte is copied once, from the socket's read straight into the
 * body's (pooled) buffer, where node:http's parser first copies every piece of the body into a new
 * Buffer of its own (garbage for the GC, most of a scan's peak RSS). A plain (http:) connection
 * reads into one buffer of the agent's (net's `onread`), so that no read allocates a chunk either:
 * per-read chunks were the GC's main work in a `/blocks` scan (external memory that starts a
 * mark-compact every few answers); and once a declared length's body is being read, its reads go
 * straight into the body's buffer (not copied at all). TLS connections read chunks as node gives
 * them, copied once. The body is read under the same
 * rules as every upstream body (src/upstream/body.ts `openCappedBody`/`CappedBuffer`): capped while
 * it streams, a declared length above the cap not read, held against the body budget.
 *
 * Requests: `GET path?query HTTP/1.1`, `host`, the caller's headers, `connection: keep-alive`.
 * https: verifies the node's certificate against the default CA store and the host name (never
 * disabled). Answers (http1Framing.ts): interim 1xx answers are skipped; the body's end is the
 * chunked coding's last chunk (extensions and trailers skipped), else Content-Length, else the
 * connection's end; anything ambiguous fails. A connection is kept for the next request (a few idle
 * ones per origin, unref'd, dropped when they close, error or speak out of turn) only when its
 * answer was read to its exact end, the node did not say `connection: close` and nothing followed.
 */
export interface Http1AgentOptions {
  /** Idle connections kept per origin. Default 8. */
  maxIdlePerOrigin?: number;
  /** Largest head (status line and fields, interim answers included) and trailer section. Default 64 KiB. */
  maxHeadBytes?: number;
  /**
   * How long an idle connection is kept (ms). Default 4 s; shorter when the node's answer says how
   * long it keeps the connection (`Keep-Alive: timeout=N`, one second under that), so that a request
   * is not sent on a connection the node is closing.
   */
  idleMs?: number;
  /**
   * Certificates trusted for https instead of the default CA store. Tests only (a loopback node
   * with a certificate of their own); an auditor's node behind a private CA is reached with
   * NODE_EXTRA_CA_CERTS, which fetch (the JSON path) honours too.
   */
  ca?: string | Buffer;
}

export interface Http1Answer {
  status: number;
  /** A field's values, joined with ", " when it came more than once; null when absent. Case-insensitive. */
  header(name: string): string | null;
  /**
   * Reads the body (once) into a CappedBuffer: at most `limit` bytes, held against `budget`, into a
   * buffer of `pool` when its length is declared; `waitForRoom` waits for room in the budget for a
   * declared length that fits (`openCappedBody`); `onBytes` is told of the bytes as they land
   * (CappedBuffer.onBytes). The connection closing before the body's end rejects; the signal
   * aborting rejects with its reason.
   */
  read(limit: number, budget?: ByteBudget, pool?: BufferPool, waitForRoom?: boolean, onBytes?: CappedBuffer['onBytes']): Promise<CappedBody>;
}

const DEFAULT_MAX_IDLE = 8;
const DEFAULT_IDLE_MS = 4000;

/** How long the node keeps a connection, from its `Keep-Alive: timeout=N` (ms), or undefined. */
export function keepAliveMs(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /(?:^|[\s,])timeout\s*=\s*(\d{1,6})(?:$|[\s,;])/i.exec(value);
  return m ? Number(m[1]) * 1000 : undefined;
}
const DEFAULT_MAX_HEAD_BYTES = 64 * 1024;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
const EMPTY = Buffer.alloc(0);

/** Bytes one read of a plain (http:) connection may bring: the size of the agent's one read buffer. */
const READ_BUFFER_BYTES = 64 * 1024;
/** Where a plain connection's reads go (set while an exchange or the idle list holds it; null between). */
const READER = Symbol('reader');
type ByteReader = (chunk: Buffer) => void;
/**
 * Where a plain connection's next read may go straight into the body's own buffer (the rest of a
 * declared length): set while an exchange reads such a body. `room` gives the view to read into
 * (undefined: the agent's buffer), `filled` is told how many bytes landed there.
 */
const IN_PLACE = Symbol('inPlace');
interface InPlace {
  room(): Buffer | undefined;
  filled(n: number): void;
}
type Plain = Socket & { [READER]: ByteReader | null; [IN_PLACE]: InPlace | null };

/**
 * Gives a connection's bytes to `fn`: a plain connection's reads (into the agent's one buffer,
 * `onread`) through its READER, a TLS connection's 'data' chunks as they come. The chunk given to
 * `fn` is valid only during the call (a plain connection's next read overwrites it): whatever is
 * kept of it is copied.
 */
function onBytes(socket: Socket, fn: ByteReader): void {
  if (READER in socket) (socket as Plain)[READER] = fn;
  else socket.on('data', fn);
}

function offBytes(socket: Socket, fn: ByteReader): void {
  if (READER in socket) {
    const plain = socket as Plain;
    if (plain[READER] === fn) plain[READER] = null;
  } else socket.off('data', fn);
}

/** A reused connection that ended or failed before any byte of the answer: the request may go again on a fresh one. */
class StaleConnection extends Error {}

/** The request's bytes (latin1): header names must be tokens, values free of CR, LF and NUL. */
function requestHead(u: URL, headers: Record<string, string>): string {
  let host = u.host;
  let fields = '';
  for (const [name, value] of Object.entries(headers)) {
    // the value is never shown: it may be a credential
    if (!TOKEN.test(name)) throw new TypeError(`invalid header name ${JSON.stringify(name)}`);
    if (!FIELD_VALUE.test(value)) throw new TypeError(`invalid characters in the value of the header ${JSON.stringify(name)}`);
    const lower = name.toLowerCase();
    if (lower === 'host') host = value;
    else if (lower !== 'connection') fields += `${name}: ${value}\r\n`;
  }
  return `GET ${u.pathname}${u.search} HTTP/1.1\r\nhost: ${host}\r\n${fields}connection: keep-alive\r\n\r\n`;
}

interface Idle {
  socket: Socket;
  drop: () => void;
  timer: NodeJS.Timeout;
}

export class Http1Agent {
  private readonly idle = new Map<string, Idle[]>();
  private readonly maxIdle: number;
  readonly maxHeadBytes: number;
  /**
   * The one buffer every plain connection of this agent reads into (net's `onread`): a read's bytes
   * are consumed (parsed, or copied into the body's buffer) before the next read anywhere, so no
   * read allocates a chunk of its own (64 KiB of external memory a read, ≈ 270 for one `/blocks`
   * answer: the GC's main work in a scan).
   */
  private readonly readBuffer = Buffer.allocUnsafe(READ_BUFFER_BYTES);

  constructor(private readonly opts: Http1AgentOptions = {}) {
    this.maxIdle = Math.max(0, opts.maxIdlePerOrigin ?? DEFAULT_MAX_IDLE);
    this.maxHeadBytes = opts.maxHeadBytes ?? DEFAULT_MAX_HEAD_BYTES;
  }

  /**
   * Sends `GET url` and resolves with the answer's head once it is read; the body is read by the
   * answer's `read`. `signal` aborting (until the body is read) destroys the connection and rejects
   * with its reason. A kept connection that fails before any byte of the answer (the node closed it
   * while idle) is replaced by a fresh one once, as node's own agent does.
   */
  async get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<Http1Answer> {
    if (signal.aborted) throw signal.reason;
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new TypeError(`unsupported protocol ${u.protocol}`);
    const request = requestHead(u, headers);
    const origin = `${u.protocol}//${u.host}`;
    const kept = this.takeIdle(origin);
    if (kept) {
      try {
        return await new Exchange(this, origin, kept, true, signal).send(request);
      } catch (e) {
        if (!(e instanceof StaleConnection) || signal.aborted) throw signal.aborted ? signal.reason : e;
      }
    }
    return new Exchange(this, origin, this.connect(u), false, signal).send(request);
  }

  /** Idle connections kept now (all origins). */
  get idleCount(): number {
    let n = 0;
    for (const list of this.idle.values()) n += list.length;
    return n;
  }

  /** Closes every idle connection. */
  close(): void {
    for (const list of [...this.idle.values()]) for (const i of [...list]) i.drop();
  }

  private connect(u: URL): Socket {
    const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
    const socket =
      u.protocol === 'http:'
        ? this.connectPlain(host, Number(u.port || 80))
        : tls.connect({
            host,
            port: Number(u.port || 443),
            // SNI and the certificate's name check: the host name (an IP address is checked as such, without SNI)
            ...(net.isIP(host) ? {} : { servername: host }),
            ALPNProtocols: ['http/1.1'],
            ...(this.opts.ca !== undefined ? { ca: this.opts.ca } : {}),
          });
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 1000);
    return socket;
  }

  /**
   * A plain connection reading into the agent's buffer, each read given to its READER (none: bytes
   * nobody asked for, the connection dropped); or, while an exchange reads the rest of a declared
   * length, straight into the body's buffer (IN_PLACE). net asks for the buffer of the next read
   * after each read, so the body's view is never the target once its exchange let go (settled,
   * kept or destroyed).
   */
  private connectPlain(host: string, port: number): Socket {
    const shared = this.readBuffer;
    // set once net.connect returns: the first buffer is asked for before (the agent's)
    let plain: Plain | undefined;
    const socket = net.connect({
      host,
      port,
      onread: {
        buffer: (): Uint8Array => plain?.[IN_PLACE]?.room() ?? shared,
        callback: (n: number, into: Uint8Array): boolean => {
          const s = plain!;
          if (into !== shared) {
            // (a body's view is asked for only while its exchange reads it: never null here)
            const inPlace = s[IN_PLACE];
            if (inPlace) inPlace.filled(n);
            else s.destroy();
            return true;
          }
          const reader = s[READER];
          if (reader) reader(Buffer.from(into.buffer, into.byteOffset, n));
          else s.destroy();
          return true;
        },
      },
    }) as Plain;
    socket[READER] = null;
    socket[IN_PLACE] = null;
    plain = socket;
    return socket;
  }

  private takeIdle(origin: string): Socket | undefined {
    const list = this.idle.get(origin);
    const kept = list?.pop();
    if (!kept) return undefined;
    if (list!.length === 0) this.idle.delete(origin);
    const { socket } = kept;
    clearTimeout(kept.timer);
    offBytes(socket, kept.drop);
    socket.off('end', kept.drop).off('close', kept.drop).off('error', kept.drop);
    socket.ref();
    return socket;
  }

  /**
   * Keeps a connection whose answer was read to its exact end, for the next request to `origin`,
   * for the agent's idle time, or less when the node keeps it for less (`nodeKeepsMs`).
   */
  keep(origin: string, socket: Socket, nodeKeepsMs?: number): void {
    const list = this.idle.get(origin) ?? [];
    const idleMs = Math.min(this.opts.idleMs ?? DEFAULT_IDLE_MS, nodeKeepsMs === undefined ? Infinity : nodeKeepsMs - 1000);
    if (list.length >= this.maxIdle || socket.destroyed || idleMs <= 0) {
      socket.destroy();
      return;
    }
    const entry: Idle = {
      socket,
      timer: setTimeout(() => entry.drop(), idleMs).unref(),
      // closed, failed, or bytes no request asked for: not reusable
      drop: () => {
        const l = this.idle.get(origin);
        const at = l?.indexOf(entry) ?? -1;
        if (at >= 0) {
          l!.splice(at, 1);
          if (l!.length === 0) this.idle.delete(origin);
        }
        clearTimeout(entry.timer);
        offBytes(socket, entry.drop);
        socket.off('end', entry.drop).off('close', entry.drop).off('error', entry.drop);
        socket.on('error', () => undefined);
        socket.destroy();
      },
    };
    onBytes(socket, entry.drop);
    socket.once('end', entry.drop).once('close', entry.drop).once('error', entry.drop);
    // idle connections never hold the process open; read, so that a close (or bytes no request
    // asked for) is seen while idle
    socket.unref();
    socket.resume();
    list.push(entry);
    this.idle.set(origin, list);
  }
}

const enum Phase {
  Head,
  /** Head read, the body not asked for yet: the socket paused, the bytes after the head kept. */
  Waiting,
  Body,
  Settled,
}

/** One request and its answer on one connection. */
class Exchange {
  private phase = Phase.Head;
  /** Head bytes received so far when a head spans chunks (a copy of those bytes only). */
  private headBuf: Buffer | undefined;
  /** Head bytes of this answer's heads so far (interim ones included), against maxHeadBytes. */
  private headBytes = 0;
  private gotAny = false;
  private head: Head | undefined;
  private framing: Framing | undefined;
  /** Bytes after the head received before `read` (copies: a plain connection's next read overwrites its chunk). */
  private pending: Buffer[] = [];
  /** The connection ended (FIN, or an error) before `read`. */
  private endedEarly: { error?: unknown } | undefined;
  private reading = false;
  private onHead: ((a: Http1Answer) => void) | undefined;
  private onHeadFail: ((e: unknown) => void) | undefined;
  private decoder: BodyDecoder | undefined;
  private sink: CappedBuffer | undefined;
  private onBody: ((b: CappedBody) => void) | undefined;
  private onBodyFail: ((e: unknown) => void) | undefined;

  constructor(
    private readonly agent: Http1Agent,
    private readonly origin: string,
    private readonly socket: Socket,
    private readonly reused: boolean,
    private readonly signal: AbortSignal,
  ) {}

  send(request: string): Promise<Http1Answer> {
    return new Promise<Http1Answer>((resolve, reject) => {
      this.onHead = resolve;
      this.onHeadFail = reject;
      const { socket, signal } = this;
      onBytes(socket, this.onData);
      socket.on('end', this.onEnd);
      socket.on('error', this.onError);
      socket.on('close', this.onClose);
      signal.addEventListener('abort', this.onAbort, { once: true });
      socket.write(request, 'latin1');
    });
  }

  private readonly onData = (chunk: Buffer): void => {
    this.gotAny = true;
    try {
      if (this.phase === Phase.Head) this.readHead(chunk, 0);
      else if (this.phase === Phase.Body) this.readBody(chunk, 0);
      else if (this.phase === Phase.Waiting) this.pending.push(Buffer.from(chunk));
    } catch (e) {
      this.fail(e);
    }
  };

  /** Heads in `chunk` from `from`: interim answers skipped, the final one's head resolved. */
  private readHead(chunk: Buffer, from: number): void {
    const max = this.agent.maxHeadBytes;
    for (;;) {
      let bytes = chunk;
      let start = from;
      let end: number;
      let consumed: number;
      if (this.headBuf) {
        const before = this.headBuf.length;
        bytes = this.headBuf = Buffer.concat([this.headBuf, chunk.subarray(from, from + max + 4)]);
        start = 0;
        end = headEnd(bytes, 0, before - 3);
        consumed = end < 0 ? chunk.length - from : end - before;
      } else {
        end = headEnd(chunk, from);
        consumed = end < 0 ? chunk.length - from : end - from;
      }
      if (this.headBytes + (end < 0 ? bytes.length - start : end - start) > max) {
        throw new Http1Error('head-too-large', `the answer's head is larger than ${max} bytes`);
      }
      if (end < 0) {
        if (!this.headBuf && from < chunk.length) this.headBuf = Buffer.from(chunk.subarray(from));
        return;
      }
      this.headBytes += end - start;
      this.headBuf = undefined;
      const head = parseHead(bytes, start, end);
      from += consumed;
      if (head.status >= 100 && head.status < 200 && head.status !== 101) {
        if (from < chunk.length) continue; // an interim answer (100, 103): the final one follows
        return;
      }
      this.head = head;
      this.framing = framingOf(head);
      this.phase = Phase.Waiting;
      this.socket.pause();
      if (from < chunk.length) this.pending.push(Buffer.from(chunk.subarray(from)));
      this.onHead!(this.answer(head));
      return;
    }
  }

  private answer(head: Head): Http1Answer {
    return {
      status: head.status,
      header: (name) => head.fields.get(name.toLowerCase())?.join(', ') ?? null,
      read: (limit, budget, pool, waitForRoom = false, onBytes) => this.read(limit, budget, pool, waitForRoom, onBytes),
    };
  }

  private async read(limit: number, budget: ByteBudget | undefined, pool: BufferPool | undefined, waitForRoom: boolean, onBytes: CappedBuffer['onBytes']): Promise<CappedBody> {
    if (this.reading) throw new Error('the body was already read');
    this.reading = true;
    const { signal, framing } = this;
    if (signal.aborted) {
      this.destroy();
      throw signal.reason;
    }
    let into: CappedBody | CappedBuffer;
    try {
      into = await openCappedBody(framing!.kind === 'length' ? framing!.length : undefined, limit, budget, signal, waitForRoom, pool);
    } catch (e) {
      this.destroy();
      throw e;
    }
    if (!(into instanceof CappedBuffer)) {
      this.destroy();
      return into;
    }
    if (signal.aborted) {
      into.giveBack();
      this.destroy();
      throw signal.reason;
    }
    const sink = into;
    sink.onBytes = onBytes;
    return new Promise<CappedBody>((resolve, reject) => {
      this.sink = sink;
      this.onBody = resolve;
      this.onBodyFail = reject;
      this.decoder = new BodyDecoder(framing!, limit, this.agent.maxHeadBytes);
      this.phase = Phase.Body;
      // the rest of a declared length goes straight into the body's buffer (a plain connection)
      if (IN_PLACE in this.socket) (this.socket as Plain)[IN_PLACE] = this.inPlace;
      try {
        // what came after the head (one chunk's rest, as a rule; more only if the node sent more
        // before the socket paused), then the socket's chunks as they come
        const { pending } = this;
        this.pending = [];
        if (this.readBody(pending.length <= 1 ? (pending[0] ?? EMPTY) : Buffer.concat(pending), 0)) return;
      } catch (e) {
        this.fail(e);
        return;
      }
      if (this.endedEarly) {
        if (this.endedEarly.error !== undefined) this.fail(this.endedEarly.error);
        else this.onEnd();
        return;
      }
      this.socket.resume();
    });
  }

  /** Why the sink refused a push (over the cap, no room in the budget). */
  private pushFailed: CappedBody | undefined;
  /** The decoder's body ranges, copied into the sink (the one copy of the body's bytes). */
  private readonly pushBody = (chunk: Buffer, start: number, end: number): boolean => (this.pushFailed = this.sink!.push(chunk, start, end)) === undefined;

  /** Body bytes of `chunk` from `from`; true when the exchange settled. */
  private readBody(chunk: Buffer, from: number): boolean {
    const sink = this.sink!;
    const r = this.decoder!.feed(chunk, from, this.pushBody);
    if (r === NEED_MORE) return false;
    if (r === STOPPED || r === TOO_LARGE) {
      const body = r === TOO_LARGE ? sink.tooLarge() : this.pushFailed!;
      this.settle();
      this.destroy();
      this.onBody!(body);
      return true;
    }
    this.complete(r === chunk.length);
    return true;
  }

  /** The body's exact end: the connection is kept only when nothing followed it (`nothingAfter`) and the node keeps it. */
  private complete(nothingAfter: boolean): void {
    const sink = this.sink!;
    const head = this.head!;
    const keep = nothingAfter && head.minor === 1 && this.framing!.kind !== 'close' && !listOf(head.fields.get('connection')).some((t) => t.toLowerCase() === 'close');
    this.settle();
    if (keep) this.agent.keep(this.origin, this.socket, keepAliveMs(head.fields.get('keep-alive')?.join(', ')));
    else this.destroy();
    this.onBody!(sink.done());
  }

  /**
   * Reads in place (a plain connection, a declared length): the view of the body's buffer where the
   * next read goes (at most the body's rest, so nothing after the body lands there), and the bytes
   * that landed, counted as the decoder and the sink would have counted them pushed.
   */
  private readonly inPlace: InPlace = {
    room: () => {
      if (this.phase !== Phase.Body) return undefined;
      const n = this.decoder!.rest;
      return n > 0 ? this.sink!.room(n) : undefined;
    },
    filled: (n) => {
      this.gotAny = true;
      this.sink!.filled(n);
      if (this.decoder!.took(n)) this.complete(true);
    },
  };

  private readonly onEnd = (): void => {
    if (this.phase === Phase.Waiting) {
      this.endedEarly ??= {};
      return;
    }
    if (this.phase === Phase.Body && this.decoder!.end()) {
      const sink = this.sink!;
      this.settle();
      this.destroy();
      this.onBody!(sink.done());
      return;
    }
    this.fail(this.closedError());
  };

  private readonly onError = (e: Error): void => {
    if (this.phase === Phase.Waiting) {
      this.endedEarly = { error: e };
      return;
    }
    this.fail(this.phase === Phase.Head && this.reused && !this.gotAny ? new StaleConnection(e.message) : e);
  };

  private readonly onClose = (): void => {
    if (this.phase === Phase.Waiting) {
      this.endedEarly ??= {};
      return;
    }
    this.fail(this.closedError());
  };

  private readonly onAbort = (): void => {
    if (this.phase === Phase.Waiting) {
      // `read` (or its wait for room in the budget) rejects with the reason
      this.destroy();
      this.endedEarly = { error: this.signal.reason };
      return;
    }
    this.fail(this.signal.reason);
  };

  private closedError(): Error {
    if (this.phase !== Phase.Head) return new Error('the connection closed before the end of the body');
    if (this.reused && !this.gotAny) return new StaleConnection('the kept connection closed before the answer');
    return new Http1Error('closed-in-head', "the connection closed before the end of the answer's head");
  }

  private fail(e: unknown): void {
    if (this.phase === Phase.Settled) return;
    const phase = this.phase;
    this.settle();
    this.destroy();
    const reason = this.signal.aborted ? this.signal.reason : e;
    if (phase === Phase.Head) this.onHeadFail!(reason);
    else if (phase === Phase.Body) {
      this.sink!.giveBack();
      this.onBodyFail!(reason);
    }
  }

  /** Detaches this exchange from the connection (which is then kept or destroyed). */
  private settle(): void {
    this.phase = Phase.Settled;
    const { socket } = this;
    offBytes(socket, this.onData);
    if (IN_PLACE in socket && (socket as Plain)[IN_PLACE] === this.inPlace) (socket as Plain)[IN_PLACE] = null;
    socket.off('end', this.onEnd).off('error', this.onError).off('close', this.onClose);
    this.signal.removeEventListener('abort', this.onAbort);
  }

  private destroy(): void {
    const { socket } = this;
    if (this.phase !== Phase.Settled) this.settle();
    // an error after this (a write failing as it is torn down) is nobody's: not unhandled
    socket.on('error', () => undefined);
    socket.destroy();
  }
}
