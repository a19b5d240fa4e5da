import type { FastifyPluginAsync } from 'fastify';
import type { VerifierService } from '../../verify/types.js';
import { decodeReportBody } from '../../verify/decodeReportBody.js';
import { decodeReportRequest, decodeReportResponse } from '../schemas.js';

export const decodeReportRoute = (svc: VerifierService): FastifyPluginAsync => async (app) => {
  app.post<{ Body: { userData: string; report: string; nonce?: string } }>(
    '/decodeReport',
    {
      schema: {
        summary: 'Decode userData and report, verify the report and its binding to userData',
        body: decodeReportRequest,
        response: { 200: decodeReportResponse },
      },
    },
    async (req) => {
      const { userData, report, nonce } = req.body;
      const out = await svc.decodeReport(userData, report, nonce === undefined ? {} : { nonce });
      return decodeReportBody(out);
    },
  );
};
