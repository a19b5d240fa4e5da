import type { FastifyPluginAsync } from 'fastify';
import type { InfoRecord } from '../info.js';
import { infoResponse } from '../schemas.js';

export const infoRoute = (info: InfoRecord): FastifyPluginAsync => async (app) => {
  app.get('/info', { schema: { summary: 'Target measurements and live-check program of this verifier', response: { 200: infoResponse } } }, async () => info);
};
