/**
 * The Fastify application: routes as encapsulated plugins, strict JSON parsing (no type coercion),
 * one error mapping for unreadable requests, 405 for known paths with another method (learnt from
 * the routes themselves), decided before any body is read.
 */
import { pageRoutes } from './routes/page.js';
import type https from 'node:https';
import type { FastifyHttpsOptions, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import type { InfoRecord } from './info.js';
import type { VerifierService } from '../verify/types.js';
import type { ErrorCode } from '../errorCodes.js';
import { documentErrorResponses, failureBody, httpErrorHandler, plainFailureSchema } from './errorResponses.js';
import { infoRoute } from './routes/info.js';
import { decodeRoute } from './routes/decode.js';
import { decodeReportRoute } from './routes/decodeReport.js';
import { jwksRoute } from './routes/jwks.js';
import type { EarIssuer } from '../ear/issuer.js';
import { healthRoutes } from './routes/health.js';
import { verifyRoute } from './routes/verify.js';
import { ledgerRoutes } from './routes/ledger.js';
import { statusRoutes } from './routes/status.js';
import type { PccsStatusReport } from '../collateral/pccsStatus.js';
import type { LedgerRoutesOptions } from './ledgerFeature.js';
import type { Metrics } from '../observability/metrics.js';
import { metricsPlugin } from './metricsPlugin.js';
import { answerUnparsed, clientErrorHandler, frameworkErrors, refuseNotPlainJson, refuseWithoutHost, securityHeaders, shown } from './transport.js';
import { AllowedMethods } from './allowedMethods.js';
import { inflightBytes } from './inflight.js';
import { jsonDepthLimit } from './jsonDepth.js';
import { parseJsonBody } from './jsonBody.js';
import { peerAddressOnConnect } from './socketShape.js';
import { ConnectionLimits, type ConnectionLimitOptions } from './connectionLimits.js';

export interface AppOptions {
  service: VerifierService;
  info: InfoRecord;
  bodyLimit?: number;
  /** Most request body bytes held at once, counted as they arrive (config maxInflightBytes); more: wait, then 503. Default 2 MiB. */
  maxInflightBytes?: number;
  /** Most of those bytes one remote address holds (config maxInflightBytesPerClient). Default maxInflightBytes. */
  maxInflightBytesPerClient?: number;
  logger?: FastifyServerOptions['logger'];
  /** A ready pino logger (takes precedence over `logger`). */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  https?: { key: Buffer; cert: Buffer };
  /** An incomplete request line and headers are answered 408 and closed after this long (default 10 s). */
  headersTimeoutMs?: number;
  /** An incomplete request (headers and body) is answered 408 and closed after this long (default 10 s, at least headersTimeoutMs). */
  requestTimeoutMs?: number;
  isReady?: () => boolean;
  /** Prometheus metrics plugin (GET /metrics and request instrumentation). */
  metrics?: Metrics;
  /** The /ledger routes' node lookups, store and watcher (absent parts answer 503). */
  ledger?: LedgerRoutesOptions;
  /** GET /status/pccs (absent: no PCCS known to this app). */
  pccsStatus?: () => Promise<PccsStatusReport>;
  /** Bounds on connections and pipelined answers (connectionLimits.ts); defaults as config.json's. */
  connections?: Partial<ConnectionLimitOptions>;
  /** An idle keep-alive connection is closed after this long (config keepAliveTimeoutMs; default 15 s). */
  keepAliveTimeoutMs?: number;
  /** The EAR issuer (EAR_SIGNING_KEY): POST /decodeReport answers EARs, GET /.well-known/jwks.json its key. */
  ear?: EarIssuer;
}

/** Defaults of the connection bounds (config maxConnections, maxConnectionsPerClient, maxPipelinedRequests). */
export const CONNECTION_LIMIT_DEFAULTS: ConnectionLimitOptions = { maxConnections: 4096, maxConnectionsPerClient: 512, maxPipelined: 16 };


/** Strict schema validation: no coercion, no removal; `verbose` puts the offending value into the error messages. */
export const AJV_OPTIONS = { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false, verbose: true } } as const;

/**
 * Node's header and request time limits, checked every tenth of the shorter one (at most every
 * second, at least every 100 ms; Node's default is 30 s), so that an incomplete request is answered
 * 408 (transport.ts) and closed within its limit plus that tenth.
 */
export function requestTimeouts(headersTimeoutMs = 10_000, requestTimeoutMs = Math.max(headersTimeoutMs, 10_000)): { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number } {
  const checkEvery = Math.min(1000, Math.max(100, Math.floor(Math.min(headersTimeoutMs, requestTimeoutMs) / 10)));
  return { headersTimeout: headersTimeoutMs, requestTimeout: requestTimeoutMs, connectionsCheckingInterval: checkEvery };
}

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const timeouts = requestTimeouts(opts.headersTimeoutMs, opts.requestTimeoutMs);
  const bodyLimit = opts.bodyLimit ?? 262_144;
  const base: FastifyServerOptions & { http: typeof timeouts & { requireHostHeader: boolean } } = {
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger ?? false }),
    bodyLimit,
    requestTimeout: timeouts.requestTimeout,
    // Host is checked by refuseWithoutHost, which answers on the error contract.
    http: { ...timeouts, requireHostHeader: false },
    connectionTimeout: 60_000,
    keepAliveTimeout: opts.keepAliveTimeoutMs ?? 15_000,
    return503OnClosing: true,
    ajv: AJV_OPTIONS,
    frameworkErrors,
    clientErrorHandler,
  };
  const app: FastifyInstance = opts.https
    ? (Fastify({ ...base, https: { key: opts.https.key, cert: opts.https.cert, minVersion: 'TLSv1.2', handshakeTimeout: timeouts.headersTimeout, ...timeouts, requireHostHeader: false } } as FastifyHttpsOptions<https.Server>) as unknown as FastifyInstance)
    : Fastify(base);
  // First of the server's own listeners: a connection or request past a bound goes no further.
  const limits = new ConnectionLimits(app.server, { ...CONNECTION_LIMIT_DEFAULTS, ...opts.connections });
  opts.metrics?.registerConnections(() => limits.stats());
  // The methods of every route, for 405 and Allow (before any route is registered).
  const allowed = new AllowedMethods();
  app.addHook('onRoute', allowed.onRoute);
  /** A request no route takes: 405 with Allow on a known path, else 404 (its body never read). */
  const unrouted = (req: FastifyRequest, reply: FastifyReply) => {
    const path = req.url.split('?')[0] ?? '';
    const allow = allowed.allow(path);
    if (allow) {
      return reply
        .code(405)
        .header('allow', allow)
        .send(failureBody(path, 'HTTP_METHOD_NOT_ALLOWED', `method ${req.method} is not allowed on ${path}; use ${allow}`));
    }
    return reply.code(404).send({ errorString: `no route ${req.method} ${shown(path)}`, errorCode: 'HTTP_NOT_FOUND' satisfies ErrorCode });
  };
  // JSON only: requests with any other content type, charset or content coding are answered 415.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
  // The checks made before the body, as one onRequest hook (one Fastify hook step a request instead
  // of three, issue 35), in this order: routing (a request no route takes is answered 404/405
  // before it is parsed); Host (an HTTP/1.1 request without it: Node's own answer is a bare 400,
  // requireHostHeader is off); a charset or content coding the JSON parser does not read (415).
  app.addHook('onRequest', (req, reply, done) => {
    if (req.is404) return void unrouted(req, reply);
    if (refuseWithoutHost(req, reply) || refuseNotPlainJson(req, reply)) return;
    done();
  });
  // The bound on request bytes held at once, counted as the body arrives (first of the preParsing hooks).
  const maxInflight = opts.maxInflightBytes ?? 2 * 1024 * 1024;
  app.addHook('preParsing', inflightBytes({ maxBytes: maxInflight, maxPerClient: opts.maxInflightBytesPerClient ?? maxInflight, bodyLimit }).preParsing);
  // Then the body's nesting depth, bounded before anything parses or walks it.
  app.addHook('preParsing', jsonDepthLimit());
  app.addHook('onSend', securityHeaders);
  // Expect other than 100-continue, and CONNECT: answered on the error contract, not by Node bare.
  answerUnparsed(app.server);
  // Every connection's socket of one hidden class, whatever its requests read (socketShape.ts).
  peerAddressOnConnect(app.server, Boolean(opts.https));
  // Before swagger: every route's error answers are part of its schema (and so of /docs/json).
  app.addHook('onRoute', documentErrorResponses);
  await app.register(swagger, {
    openapi: {
      info: {
        title: 'Enclave report verifier',
        version: '0.1.0',
        description:
          'Decode and verify typeA (SGX DCAP) and typeB (AWS Nitro) oracle reports. Any path not listed here answers 404 with the ErrorBody schema (errorCode HTTP_NOT_FOUND).',
      },
      components: { schemas: { ErrorBody: { ...plainFailureSchema, required: [...plainFailureSchema.required] } } },
    },
  });

  app.setErrorHandler(httpErrorHandler);

  app.setNotFoundHandler(unrouted);

  if (opts.metrics) await app.register(metricsPlugin(opts.metrics));
  let openApiText: string | undefined;
  app.get(
    '/docs/json',
    { schema: { summary: 'This OpenAPI 3 description', response: { 200: { type: 'object', additionalProperties: true, description: 'OpenAPI 3.0 document' } } } },
    // The document is fixed once the app is ready: serialised once, not for every request, so that
    // clients asking for it again and again cannot make work for the HTTP thread.
    async (_req, reply) => reply.type('application/json; charset=utf-8').send((openApiText ??= JSON.stringify(app.swagger()))),
  );
  await app.register(healthRoutes(opts.isReady ?? (() => true)));
  await app.register(infoRoute(opts.info));
  await app.register(decodeRoute(opts.service));
  await app.register(decodeReportRoute(opts.service, opts.ear));
  await app.register(jwksRoute(opts.ear?.signer));
  // SDK-compatible POST /verify: each entry is checked whole where verification runs (a pool worker).
  const svc = opts.service;
  await app.register(verifyRoute((entry) => svc.checkResponse(entry), { ...(svc.admit ? { admit: (n: number) => svc.admit!(n) } : {}), ...(svc.capacity !== undefined ? { capacity: svc.capacity } : {}) }));
  await app.register(ledgerRoutes(opts.ledger ?? {}));
  await app.register(statusRoutes(opts.pccsStatus));
  await app.register(pageRoutes());
  return app;
}
