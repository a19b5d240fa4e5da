/**
 * A body nested too deep is refused before anything recurses over it (issue 32 item 4), on the
 * real service (one pool worker) over a real socket: a /verify entry with an unknown field nested
 * 6,000 levels deep answered 500 POOL_WORKER_FAILED (a worker's stack overflowed); now 400
 * HTTP_JSON_TOO_DEEP naming the entry, in the route's failure shape. Brackets inside strings do
 * not count, and a body nested a few levels is read as before.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { JsonDepthScan, MAX_JSON_DEPTH } from '../../src/server/jsonDepth.js';

let s: RunningServer;
beforeAll(async () => {
  s = await startServer({ ...JSON.parse(readFileSync('config.json', 'utf8')), workers: 1 });
});
afterAll(async () => s?.close());

/** `{"x":{"x":…{}…}}` nested `depth` levels, as text (JSON.stringify itself would recurse). */
const nested = (depth: number) => `${'{"x":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)}`;

describe('deep JSON', () => {
  it('a /verify entry with a field nested 6,000 levels is a 400 naming the entry, not a dead worker', async () => {
    const body = `{"reports":[{"reportType":"sgx"},{"reportType":"nitro","unknownField":${nested(6000)}}]}`;
    const r = await postJson(`${s.url}/verify`, body);
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      success: false,
      validReports: [],
      errorCode: 'HTTP_JSON_TOO_DEEP',
      errorMessage: `request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels at "reports/1/unknownField/x/…": refused before parsing`,
    });
    // The server still answers /verify (the worker lives).
    const ok = await postJson(`${s.url}/verify`, { reports: [{ reportType: 'nitro', unknownField: JSON.parse(nested(10)) }] });
    expect(ok.status).toBe(200);
    expect(ok.body.success).toBe(false);
  });

  it('/decodeReport answers in its own shape; brackets in strings do not count', async () => {
    const deep = await postJson(`${s.url}/decodeReport`, `{"userData":"a","report":"b","more":[${'['.repeat(100)}`);
    expect([deep.status, deep.body.errorCode, deep.body.reportValid, deep.body.outcome]).toEqual([400, 'HTTP_JSON_TOO_DEEP', false, 'invalid']);
    expect(deep.body.errorString).toContain('at "more/0/0/0/…"');
    const strings = await postJson(`${s.url}/decodeReport`, { userData: `\\"${'{['.repeat(5000)}`, report: '"]}'.repeat(100) });
    expect(strings.status).toBe(200);
    expect(strings.body.errorCode).toBe('STRUCT_SYNTAX');
  });

  it('the scan follows keys and indices across chunks', () => {
    const scan = new JsonDepthScan(3);
    const text = Buffer.from('{"a":[1,{"k\\"ey":{"deep":[');
    let found: string | undefined;
    for (const b of text) found ??= scan.feed(Uint8Array.of(b));
    expect(found).toBe('a/1/k\\"ey');
  });
});
