/**
 * A rung between the floor (bench/floorServer.ts) and the service, for bench/http-load.ts: the
 * service without Fastify. It builds the same verification graph from the same config file through
 * the composition root of the build (dist/src/compose.js: the Piscina pool, its deadlines, the typeA
 * collateral prefetch, the metrics each verification counts in) and answers POST /decodeReport
 * from bare node:http: the body is read into one buffer, `JSON.parse`d, handed to the same
 * `service.decodeReport` (struct parse, then the pool), and the outcome is written with
 * `JSON.stringify` of the same answer shape (decodeReportBody). No routing, schema, hooks,
 * logger, reply object or HTTP metrics: what it costs less than the service is Fastify's share.
 * It is a measuring device only: no body limit, no content-type check, no error bodies.
 * Usage (by http-load.ts): node --import tsx bench/frameworklessServer.ts <port> <config.json>
 * (port 0: any free port; the port listened on is sent to the parent over IPC as `{ port }`)
 */
import http from 'node:http';
import { serviceModule } from './modules.js';

const [port, configFile] = process.argv.slice(2);
// The compiled build by default, as the service runs it (so the pool starts dist/workers/verifyWorker.js).
const { configuredTargets, loadConfig } = await serviceModule<typeof import('../src/config/load.js')>('config/load');
const { composeVerifier } = await serviceModule<typeof import('../src/compose.js')>('compose');
const { createMetrics } = await serviceModule<typeof import('../src/observability/metrics.js')>('observability/metrics');
const { decodeReportBody } = await serviceModule<typeof import('../src/verify/decodeReportBody.js')>('verify/decodeReportBody');

const config = loadConfig(configFile!);
const targets = configuredTargets(config);
if (!targets) throw new Error('frameworklessServer: the config must give both targets');
const { service } = composeVerifier(config, { targets, metrics: createMetrics() });

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const answer = (status: number, body: string) => {
        res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      };
      let body: { userData: string; report: string };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { userData: string; report: string };
      } catch {
        return answer(400, '{"errorString":"body is not JSON"}');
      }
      Promise.resolve(service.decodeReport(body.userData, body.report)).then(
        (out) => answer(200, JSON.stringify(decodeReportBody(out))),
        (e: unknown) => answer(500, JSON.stringify({ errorString: String(e) })),
      );
    });
  })
  .listen(Number(port), '127.0.0.1', function (this: http.Server) {
    process.send?.({ port: (this.address() as { port: number }).port });
  });
process.on('SIGTERM', () => process.exit(0));
