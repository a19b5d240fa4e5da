import type { FastifyPluginAsync } from 'fastify';
import type { VerifierService } from '../../verify/types.js';
import { decodeRequest, decodeResponse } from '../schemas.js';

export const decodeRoute = (svc: VerifierService): FastifyPluginAsync => async (app) => {
  app.post<{ Body: { userData: string } }>(
    '/decode',
    { schema: { summary: 'Decode the attested request and data from a userData struct', body: decodeRequest, response: { 200: decodeResponse } } },
    async (req) => {
      const out = await svc.decode(req.body.userData);
      if (out.error) return { success: false, errorString: out.error.message, errorCode: out.error.code };
      return { success: true, decodedData: out.decodedData, decodedRequests: out.decodedRequests };
    },
  );
};
