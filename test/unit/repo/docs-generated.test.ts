/**
 * The generated references under docs/ (configuration, error codes, HTTP API, CLI, metrics) are
 * what scripts/gen-docs.ts makes of their sources now: the config schema, src/errorCodes.ts, the
 * OpenAPI document of the app built in-process, the CLI's usage text and the metrics registry. A
 * source changed without regenerating fails here, naming the command that regenerates.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BEGIN, END, generatedDocs, REGENERATE, ROOT } from '../../../scripts/gen-docs.js';
import { configSchema } from '../../../src/config/schema.js';
import { ERROR_CODES, traitsOf } from '../../../src/errorCodes.js';
import { createMetrics } from '../../../src/observability/metrics.js';

describe('docs/: generated references', async () => {
  const docs = await generatedDocs();

  it('generates the five references and the layers of docs/architecture.md', () => {
    expect(Object.keys(docs).sort()).toEqual(['docs/architecture.md', 'docs/cli.md', 'docs/configuration.md', 'docs/error-codes.md', 'docs/http-api.md', 'docs/metrics.md']);
  });

  for (const file of ['docs/configuration.md', 'docs/error-codes.md', 'docs/http-api.md', 'docs/cli.md', 'docs/metrics.md', 'docs/architecture.md']) {
    it(`${file} is current (else run: ${REGENERATE})`, () => {
      const committed = readFileSync(resolve(ROOT, file), 'utf8');
      expect(committed.includes(BEGIN) && committed.includes(END), `${file} has no GENERATED block: run ${REGENERATE}`).toBe(true);
      // Not toBe: the message must carry the command, the diff follows.
      if (committed !== docs[file]) expect(committed, `${file} differs from its source: run ${REGENERATE}`).toBe(docs[file]);
    });
  }

  it('every config key, every error code with its what-to-do, every route and every CLI command is in its reference', () => {
    for (const key of Object.keys(configSchema.properties).filter((k) => k !== '$schema')) expect(docs['docs/configuration.md']).toContain(`| \`${key}\` |`);
    for (const code of ERROR_CODES) {
      expect(traitsOf(code).todo.length, code).toBeGreaterThan(10);
      expect(docs['docs/error-codes.md']).toContain(`| \`${code}\` | ${traitsOf(code).status} |`);
    }
    for (const route of ['POST /decodeReport', 'POST /verify', 'POST /decode', 'GET /info', 'GET /ledger/transactions/{id}', 'GET /ledger/updates', 'GET /status/pccs', 'GET /metrics'])
      expect(docs['docs/http-api.md']).toContain(`## ${route}\n`);
    for (const cmd of ['verify', 'reverify', 'collateral fetch', 'merge', 'completeness']) expect(docs['docs/cli.md']).toContain(`## oracle-verifier ${cmd}\n`);
  });

  it('every metric a running service serves is in docs/metrics.md, the watcher\'s and the PCCS probe\'s too', async () => {
    const m = createMetrics();
    m.sink.registerLedgerHeights(() => ({ scannedHeight: 1, tipHeight: 2 }));
    m.sink.registerPccsUp(() => true);
    const names = new Set([...(await m.registry.metrics()).matchAll(/^# TYPE (\S+) /gm)].map((x) => x[1]!));
    // the pool's stage histograms (issue 35), the watcher's heights, the PCCS probe among them
    for (const n of ['verifier_pool_queue_wait_seconds', 'verifier_worker_gc_pause_seconds', 'verifier_ledger_tip_height', 'verifier_pccs_up']) expect(names).toContain(n);
    for (const n of names) expect(docs['docs/metrics.md'], n).toContain(`\`${n}\``);
  });
});
