/**
 * GET /status/pccs: whether the PCCS that serves typeA collateral is reachable (README
 * "Endpoints"), for the ledger page's status strip and for operators. The answer comes from the
 * latest PCCS request, or from a probe when that is older than `pccsProbeMaxAgeMs`, and shows the
 * PCCS circuit breaker's state (src/collateral/pccsCircuit.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { pccsStatusReport, type PccsStatusReport } from '../../collateral/pccsStatus.js';

const pccsStatusSchema = {
  type: 'object',
  required: ['configured', 'collateralDir', 'reachable'],
  properties: {
    configured: { type: 'boolean', description: 'A PCCS URL is configured (config pccsUrl not null)' },
    collateralDir: { type: 'boolean', description: 'typeA collateral comes from a collateral directory first (config collateralDir)' },
    url: { type: 'string', description: 'The PCCS base URL, without credentials and query' },
    reachable: { type: 'boolean', nullable: true, description: 'The PCCS answered (HTTP status below 500); null when no PCCS is configured' },
    checkedAt: { type: 'string', format: 'date-time', description: 'When that answer (or its absence) was observed' },
    latencyMs: { type: 'integer', minimum: 0, description: 'Time of that exchange' },
    error: { type: 'string', description: 'Why the PCCS is not reachable: no answer within the time limit, the connection failure, or the 5xx status' },
    errorCode: { type: 'string', enum: ['PCCS_UNAVAILABLE', 'PCCS_HTTP_ERROR'], description: 'PCCS_UNAVAILABLE: no answer; PCCS_HTTP_ERROR: an HTTP 5xx answer' },
    circuit: {
      type: 'object',
      description:
        'The PCCS circuit breaker (present when a PCCS is configured). After a request without answer it opens: until `until` no request is sent and cold typeA verifications fail at once (PCCS_UNAVAILABLE, unverifiable); then it is half-open: the next request probes the PCCS, an answer closes it, no answer opens it again for twice the cool-down (up to pccsCircuitMaxCooldownMs)',
      required: ['state', 'opens'],
      properties: {
        state: { type: 'string', enum: ['closed', 'open', 'half-open'] },
        until: { type: 'string', format: 'date-time', description: 'While open: when the next request may probe the PCCS' },
        cooldownMs: { type: 'integer', minimum: 0, description: 'The cool-down in force (open or half-open)' },
        reason: { type: 'string', description: 'The failure that opened it (open or half-open)' },
        opens: { type: 'integer', minimum: 0, description: 'Times it opened since start (verifier_pccs_circuit_opens_total)' },
      },
    },
  },
} as const;

/** `report` answers the route; absent: this app knows of no PCCS. */
export const statusRoutes = (report?: () => Promise<PccsStatusReport>): FastifyPluginAsync => async (app) => {
  app.get(
    '/status/pccs',
    {
      schema: {
        summary: 'Whether the PCCS serving typeA collateral is reachable',
        description:
          'From the latest PCCS request, or a probe (GET rootcacrl, no retries, pccsProbeTimeoutMs) when that is older than pccsProbeMaxAgeMs; concurrent calls share one probe. No probe is sent while the circuit breaker holds requests back (open, or its probe under way).',
        response: { 200: pccsStatusSchema },
      },
    },
    async () => (report ? report() : pccsStatusReport(undefined, false)),
  );
};
