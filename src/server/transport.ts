/**
 * What every answer carries and how requests that never reach a route are answered, all on the
 * error contract (`{ errorString, errorCode }` with registered codes):
 * - security headers on every answer (nosniff, no framing, no referrer);
 * - a body that is not plain UTF-8 JSON: a charset other than utf-8, or a Content-Encoding other
 *   than identity, is refused with 415 before it is read;
 * - Fastify's framework errors (a URL that does not decode, a path parameter over its length);
 * - the HTTP parser's errors on the socket (headers too large, an incomplete request past its
 *   time limit, a malformed request), written directly since no request object exists;
 * - what Node would answer itself without the contract: an HTTP/1.1 request without Host, an
 *   `Expect` other than 100-continue (417), CONNECT (405).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { traitsOf, type ErrorCode } from '../errorCodes.js';
import { failureBody } from './errorResponses.js';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

const SECURITY_HEADER_LIST = Object.entries(SECURITY_HEADERS);

/** onSend: the security headers on every answer Fastify sends. */
export function securityHeaders(_req: FastifyRequest, reply: FastifyReply, payload: unknown, done: (err: null, p: unknown) => void): void {
  for (const [k, v] of SECURITY_HEADER_LIST) if (!reply.hasHeader(k)) reply.header(k, v);
  done(null, payload);
}

const body = (code: ErrorCode, message: string) => ({ errorString: message, errorCode: code });

/** What part of a request target a message may show (a hostile URL can be kilobytes long). */
export function shown(url: string): string {
  return url.length > 80 ? `${url.slice(0, 77)}...` : url;
}

const pathOf = (req: FastifyRequest): string => (req.url.split('?')[0] ?? '');

/** onRequest check: a body in another charset or content coding than the JSON parser reads is refused 415; true when it answered. */
export function refuseNotPlainJson(req: FastifyRequest, reply: FastifyReply): boolean {
  const type = req.headers['content-type'];
  const charset = typeof type === 'string' ? /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type)?.[1] : undefined;
  if (charset !== undefined && charset.toLowerCase() !== 'utf-8' && charset.toLowerCase() !== 'utf8') {
    void reply.code(415).send(failureBody(pathOf(req), 'HTTP_UNSUPPORTED_MEDIA_TYPE', `charset ${shown(charset)} is not supported: send the JSON body as utf-8`));
    return true;
  }
  const enc = req.headers['content-encoding'];
  if (enc !== undefined && enc.trim().toLowerCase() !== 'identity') {
    void reply.code(415).send(failureBody(pathOf(req), 'HTTP_UNSUPPORTED_ENCODING', `Content-Encoding ${shown(String(enc))} is not supported: send the body uncompressed (identity)`));
    return true;
  }
  return false;
}

/** Fastify's `frameworkErrors`: errors raised before routing. */
export function frameworkErrors(err: FastifyError, req: FastifyRequest, reply: FastifyReply): void {
  const url = shown(req.raw.url ?? '');
  let code: ErrorCode = 'HTTP_BAD_REQUEST';
  let message = `bad request: ${err.message}`;
  if (err.code === 'FST_ERR_BAD_URL') {
    code = 'HTTP_BAD_URL';
    message = `the request target ${url} is not a valid URL (a percent-escape does not decode)`;
  } else if (err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    code = 'HTTP_URI_TOO_LONG';
    message = `a path segment of ${url} is longer than any identifier this service knows`;
  }
  void reply.code(traitsOf(code).status).headers(SECURITY_HEADERS).send(body(code, message));
}

/** onRequest check: an HTTP/1.1 request must name its Host (RFC 9112 §3.2); Node's own check answers a bare 400, so it is off (app.ts) and made here. True when it answered. */
export function refuseWithoutHost(req: FastifyRequest, reply: FastifyReply): boolean {
  if (req.raw.httpVersion === '1.1' && req.headers.host === undefined) {
    void reply.code(400).header('connection', 'close').send(failureBody(pathOf(req), 'HTTP_BAD_REQUEST', 'an HTTP/1.1 request must carry a Host header'));
    return true;
  }
  return false;
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 405: 'Method Not Allowed', 408: 'Request Timeout', 417: 'Expectation Failed', 431: 'Request Header Fields Too Large' };

/** The head and JSON body of an error answer written directly on the socket (no request object, or Node would answer it bare), ending with Connection: close. */
function rawAnswer(code: ErrorCode, message: string, extra: Record<string, string> = {}): string {
  const status = traitsOf(code).status;
  const text = JSON.stringify(body(code, message));
  const headers = [
    `HTTP/1.1 ${status} ${REASONS[status] ?? 'Bad Request'}`,
    'content-type: application/json; charset=utf-8',
    `content-length: ${Buffer.byteLength(text)}`,
    ...Object.entries({ ...SECURITY_HEADERS, ...extra }).map(([k, v]) => `${k}: ${v}`),
    'connection: close',
  ];
  return `${headers.join('\r\n')}\r\n\r\n${text}`;
}

/**
 * Requests Node answers itself, before any route, without the error contract (or not at all):
 * an `Expect` other than 100-continue (Node: a bare 417) and CONNECT (Node: the socket destroyed
 * without a word). Both are answered here on the contract, with the security headers.
 */
export function answerUnparsed(server: Server): void {
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => {
    const text = JSON.stringify(body('HTTP_EXPECTATION_FAILED', `Expect: ${shown(String(req.headers.expect ?? ''))} is not supported; only 100-continue is`));
    res.writeHead(traitsOf('HTTP_EXPECTATION_FAILED').status, { ...SECURITY_HEADERS, 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), connection: 'close' });
    res.end(text);
  });
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    socket.end(rawAnswer('HTTP_METHOD_NOT_ALLOWED', 'CONNECT is not allowed: this server is not a proxy'));
  });
}

/** An error of a TLS handshake: Node's own (ERR_TLS_*) or OpenSSL's (ERR_SSL_*, with its `library`). */
function isTlsHandshakeError(err: NodeJS.ErrnoException): boolean {
  const code = err.code ?? '';
  return code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_') || 'library' in err;
}

/** Fastify's `clientErrorHandler`: the HTTP parser's errors, answered on the socket and closed; a failed TLS handshake, closed. */
export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Socket): void {
  // A TLS handshake that failed or timed out (Node's HTTPS server hands its 'tlsClientError' here):
  // there is no HTTP on the socket to answer, and an answer written would wait for ever for the
  // handshake, keeping the socket open (issue 48).
  if (!socket.writable || isTlsHandshakeError(err)) {
    socket.destroy();
    return;
  }
  let code: ErrorCode = 'HTTP_BAD_REQUEST';
  let message = 'the request is not valid HTTP';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    code = 'HTTP_HEADERS_TOO_LARGE';
    message = 'the request line and headers are larger than the server accepts (16 KiB)';
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    code = 'HTTP_REQUEST_TIMEOUT';
    message = 'the request was not complete within the time limit';
  }
  socket.end(rawAnswer(code, message));
}
