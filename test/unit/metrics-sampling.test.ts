/**
 * The event-loop delay histogram of the default metrics samples every 100 ms, not prom-client's
 * 10 ms: its timer runs on the HTTP thread and would wake an idle verifier 100 times a second.
 */
import perfHooks from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetrics, EVENT_LOOP_SAMPLE_MS } from '../../src/observability/metrics.js';

describe('default metrics', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  it('sample the event-loop delay every 100 ms and still report its percentiles', async () => {
    const spy = vi.spyOn(perfHooks, 'monitorEventLoopDelay');
    const m = createMetrics();
    expect(EVENT_LOOP_SAMPLE_MS).toBe(100);
    expect(spy).toHaveBeenCalledWith({ resolution: 100 });
    const text = await m.registry.metrics();
    expect(text).toMatch(/^verifier_nodejs_eventloop_lag_p99_seconds \S+$/m);
  });
});
