/**
 * The Fastify application: routes as encapsulated plugins, strict JSON parsing (no type coercion),
 * one error mapping for unreadable requests, 405 for known paths with another method.
 */
import { pageRoutes, PAGE_PATHS } from './routes/page.js';
import type https from 'node:https';
import type { FastifyHttpsOptions, FastifyInstance, FastifyServerOptions } from 'fastify';
import Fastify from 'fastify';
import swagger from '@fastify/swagger';
import type { InfoRecord } from './info.js';
import type { VerifierService } from '../verify/types.js';
import type { ErrorCode } from '../errorCodes.js';
import { documentErrorResponses, failureBody, httpErrorHandler, plainFailureSchema } from './errorResponses.js';
import { infoRoute } from './routes/info.js';
import { decodeRoute } from './routes/decode.js';
import { decodeReportRoute } from './routes/decodeReport.js';
import { healthRoutes } from './routes/health.js';
import { verifyRoute } from './routes/verify.js';
import { ledgerRoutes } from './routes/ledger.js';
import { statusRoutes } from './routes/status.js';
import type { PccsStatusReport } from '../collateral/pccsStatus.js';
import type { LedgerRoutesOptions } from './ledgerFeature.js';
import type { Metrics } from '../observability/metrics.js';
import { metricsPlugin } from './metricsPlugin.js';
import { clientErrorHandler, frameworkErrors, plainJsonOnly, securityHeaders } from './transport.js';
import { inflightBytes } from './inflight.js';
import { jsonDepthLimit } from './jsonDepth.js';

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
}

const ALLOWED: Record<string, string> = {
  '/info': 'GET, HEAD',
  '/decode': 'POST',
  '/decodeReport': 'POST',
  '/verify': 'POST',
  '/healthz': 'GET, HEAD',
  '/readyz': 'GET, HEAD',
  '/docs/json': 'GET, HEAD',
  '/metrics': 'GET, HEAD',
  '/ledger/status': 'GET, HEAD',
  '/ledger/updates': 'GET, HEAD',
  '/status/pccs': 'GET, HEAD',
  ...Object.fromEntries(PAGE_PATHS.map((p) => [p, 'GET, HEAD'])),
};

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
  const base: FastifyServerOptions & { http: typeof timeouts } = {
    ...(opts.loggerInstance ? { loggerInstance: opts.loggerInstance } : { logger: opts.logger ?? false }),
    bodyLimit,
    requestTimeout: timeouts.requestTimeout,
    http: timeouts,
    connectionTimeout: 60_000,
    return503OnClosing: true,
    ajv: AJV_OPTIONS,
    frameworkErrors,
    clientErrorHandler,
  };
  const app: FastifyInstance = opts.https
    ? (Fastify({ ...base, https: { key: opts.https.key, cert: opts.https.cert, minVersion: 'TLSv1.2', handshakeTimeout: timeouts.headersTimeout, ...timeouts } } as FastifyHttpsOptions<https.Server>) as unknown as FastifyInstance)
    : Fastify(base);
  // JSON only: requests with any other content type, charset or content coding are answered 415.
  app.removeContentTypeParser('text/plain');
  app.addHook('onRequest', plainJsonOnly);
  // The bound on request bytes held at once, counted as the body arrives (first of the preParsing hooks).
  const maxInflight = opts.maxInflightBytes ?? 2 * 1024 * 1024;
  app.addHook('preParsing', inflightBytes({ maxBytes: maxInflight, maxPerClient: opts.maxInflightBytesPerClient ?? maxInflight }).preParsing);
  // Then the body's nesting depth, bounded before anything parses or walks it.
  app.addHook('preParsing', jsonDepthLimit());
  app.addHook('onSend', securityHeaders);
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

  app.setNotFoundHandler((req, reply) => {
    const path = req.url.split('?')[0] ?? '';
    const allow = ALLOWED[path];
    if (allow) {
      return reply
        .code(405)
        .header('allow', allow)
        .send(failureBody(path, 'HTTP_METHOD_NOT_ALLOWED', `method ${req.method} is not allowed on ${path}; use ${allow}`));
    }
    return reply.code(404).send({ errorString: `no route ${req.method} ${path}`, errorCode: 'HTTP_NOT_FOUND' satisfies ErrorCode });
  });

  if (opts.metrics) await app.register(metricsPlugin(opts.metrics));
  app.get(
    '/docs/json',
    { schema: { summary: 'This OpenAPI 3 description', response: { 200: { type: 'object', additionalProperties: true, description: 'OpenAPI 3.0 document' } } } },
    async () => app.swagger(),
  );
  await app.register(healthRoutes(opts.isReady ?? (() => true)));
  await app.register(infoRoute(opts.info));
  await app.register(decodeRoute(opts.service));
  await app.register(decodeReportRoute(opts.service));
  // SDK-compatible POST /verify: each entry is checked whole where verification runs (a pool worker).
  const svc = opts.service;
  await app.register(verifyRoute((entry) => svc.checkResponse(entry), { ...(svc.admit ? { admit: (n: number) => svc.admit!(n) } : {}), ...(svc.capacity !== undefined ? { capacity: svc.capacity } : {}) }));
  await app.register(ledgerRoutes(opts.ledger ?? {}));
  await app.register(statusRoutes(opts.pccsStatus));
  await app.register(pageRoutes());
  return app;
}
