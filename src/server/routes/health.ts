import type { FastifyPluginAsync } from 'fastify';
import { closingSchema } from '../errorResponses.js';

const status = (values: string[]) => ({ type: 'object', required: ['status'], properties: { status: { type: 'string', enum: values } } });

export const healthRoutes = (isReady: () => boolean): FastifyPluginAsync => async (app) => {
  app.get('/healthz', { schema: { summary: 'Liveness', response: { 200: status(['ok']) } } }, async () => ({ status: 'ok' }));
  const readyz = {
    summary: 'Readiness: startup checks done',
    response: { 200: status(['ready']), 503: { description: 'Startup checks still running, or the server is shutting down', anyOf: [status(['starting']), closingSchema] } },
  };
  app.get('/readyz', { schema: readyz }, async (_req, reply) => {
    if (isReady()) return { status: 'ready' };
    return reply.code(503).send({ status: 'starting' });
  });
};
