import type { FastifyPluginAsync } from 'fastify';

export const healthRoutes = (isReady: () => boolean): FastifyPluginAsync => async (app) => {
  app.get('/healthz', { schema: { summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { schema: { summary: 'Readiness: startup checks done' } }, async (_req, reply) => {
    if (isReady()) return { status: 'ready' };
    return reply.code(503).send({ status: 'starting' });
  });
};
