/**
 * Observations handed to prom-client in batches (src/observability/observationBatch.ts) read the
 * same as observations made at once: the same exposition text at every read, whatever the label
 * sets, their order, and where the batch limit falls between reads.
 */
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ObservationBatch } from '../../../src/observability/observationBatch.js';
import { createMetrics } from '../../../src/observability/metrics.js';

/** A histogram counted by a counter with the same labels, a counter alone and a label-less histogram, in one registry. */
function metricsOf(collect?: () => void) {
  const registry = new Registry();
  const registers = [registry];
  const buckets = [0.001, 0.01, 0.1, 1];
  return {
    registry,
    latency: new Histogram({ name: 'x_latency_seconds', help: 'h', labelNames: ['route', 'status'] as const, buckets, registers, ...(collect ? { collect } : {}) }),
    requests: new Counter({ name: 'x_requests_total', help: 'c', labelNames: ['route', 'status'] as const, registers, ...(collect ? { collect } : {}) }),
    failures: new Counter({ name: 'x_failures_total', help: 'f', labelNames: ['code'] as const, registers, ...(collect ? { collect } : {}) }),
    stage: new Histogram({ name: 'x_stage_seconds', help: 's', buckets, registers, ...(collect ? { collect } : {}) }),
  };
}

/** A small deterministic generator (xorshift), so that a failure can be replayed. */
function random(seed: number) {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

describe('ObservationBatch', () => {
  for (const limit of [1, 7, 256]) {
    it(`reads exactly as direct observations, reads interleaved at random (limit ${limit})`, async () => {
      const direct = metricsOf();
      const batch = new ObservationBatch(limit);
      const batched = metricsOf(() => batch.flush());
      const series = new Map<string, ReturnType<ObservationBatch['open']>>();
      const seriesOf = (key: string, open: () => ReturnType<ObservationBatch['open']>) => series.get(key) ?? series.set(key, open()).get(key)!;
      const stage = batch.open(batched.stage, undefined, {});
      const rnd = random(limit * 7919 + 1);
      for (let i = 0; i < 3000; i++) {
        const v = rnd() < 0.05 ? 0 : rnd() ** 3 * 2;
        const pick = rnd();
        if (pick < 0.6) {
          const labels = { route: ['/a', '/b', '/c'][Math.floor(rnd() * 3)]!, status: ['200', '400', '503'][Math.floor(rnd() * 3)]! };
          direct.latency.observe(labels, v);
          direct.requests.inc(labels);
          batch.add(seriesOf(`${labels.route} ${labels.status}`, () => batch.open(batched.latency, batched.requests, labels)), v);
        } else if (pick < 0.75) {
          const code = ['E1', 'E2'][Math.floor(rnd() * 2)]!;
          direct.failures.inc({ code });
          batch.add(seriesOf(code, () => batch.open(undefined, batched.failures, { code })), 1);
        } else {
          direct.stage.observe(v);
          batch.add(stage, v);
        }
        if (rnd() < 0.01) expect(await batched.registry.metrics()).toBe(await direct.registry.metrics());
      }
      expect(await batched.registry.metrics()).toBe(await direct.registry.metrics());
      expect(await batched.registry.getSingleMetricAsString('x_failures_total')).toBe(await direct.registry.getSingleMetricAsString('x_failures_total'));
    });
  }

  it("the service's HTTP and verification metrics read every observation made before the read", async () => {
    const m = createMetrics({ defaultMetrics: false });
    for (let i = 0; i < 10; i++) m.observeHttp('/decodeReport', 'POST', 200, 0.002);
    m.observeHttp(undefined, 'BREW', 404, 0.0001);
    m.sink.observeVerification('typeA', false, 'POOL_OVERLOADED', 0.0001);
    m.sink.observePoolStages({ queueWaitSeconds: 0.001, runSeconds: 0.002, collateralWaitSeconds: 0.0005, gcPauses: [0.001, 0.002] });
    const text = await m.registry.metrics();
    expect(text).toMatch(/verifier_http_requests_total\{route="\/decodeReport",method="POST",status_code="200"\} 10\n/);
    expect(text).toMatch(/verifier_http_request_duration_seconds_count\{route="\/decodeReport",method="POST",status_code="200"\} 10\n/);
    expect(text).toMatch(/verifier_http_requests_total\{route="unmatched",method="OTHER",status_code="404"\} 1\n/);
    expect(text).toMatch(/verifier_verifications_total\{kind="typeA",outcome="unverifiable"\} 1\n/);
    expect(text).toMatch(/verifier_verification_failures_total\{kind="typeA",code="POOL_OVERLOADED"\} 1\n/);
    expect(text).toMatch(/verifier_worker_gc_pause_seconds_count 2\n/);
    expect(text).toMatch(/verifier_collateral_wait_seconds_count 1\n/);
  });
});
