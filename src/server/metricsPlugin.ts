/**
 * The Fastify side of the metrics (src/observability/metrics.ts): an onResponse hook that times every
 * request by route template, and GET /metrics. Register it on the root instance.
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Metrics } from '../observability/metrics.js';

export function metricsPlugin(m: Metrics): FastifyPluginAsync {
  const plugin: FastifyPluginAsync = async (app) => {
    // A callback hook, not an async one: no promise per request.
    app.addHook('onResponse', (req: FastifyRequest, reply: FastifyReply, done: () => void) => {
      m.observeHttp(req.routeOptions.url, req.method, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
    const metricsSchema = {
      summary: 'Prometheus metrics (text exposition format 0.0.4)',
      response: { 200: { description: 'Metrics in the Prometheus text format', content: { 'text/plain': { schema: { type: 'string' } } } } },
    };
    app.get('/metrics', { schema: metricsSchema }, async (_req, reply) => {
      const text = await m.registry.metrics();
      return reply.header('content-type', m.registry.contentType).send(text);
    });
  };
  // Same effect as fastify-plugin: the hook applies to every route of the parent instance.
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for('skip-override')] = true;
  (plugin as unknown as Record<symbol, unknown>)[Symbol.for('fastify.display-name')] = 'verifier-metrics';
  return plugin;
}
