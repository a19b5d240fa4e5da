/**
 * A secret in the ledger node's query is hidden in every encoding (issue 32, item 2). The real
 * server process runs with `liveCheck.apiBaseUrl` carrying a key whose value has a space (`+`), a
 * `/` and `=` (`%3D`): the client sends it re-encoded by URLSearchParams (`+`, `%2F`, `%3D`). The
 * node stand-in fails, echoing the request URL as received and the key in other encodings (decoded,
 * encodeURIComponent, lower-case hex, `+` for space), once with the key straddling the 200-character
 * cut of a node's text. Neither the 502 answers, nor /ledger/status's lastError, nor the log holds
 * any 6 characters in a row of the key in any of those forms, while the node did receive the key.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeId, LedgerChain, t } from '../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { mintSgx, type MintedSgx } from '../support/minted-sgx.js';
import { childEnv, startMain, type ServiceProcess } from '../support/process.js';
import { until } from '../support/wait.js';

/** As written in config.json: `+` is a space, `%3D` is `=`. */
const RAW = 'Kq7+Zt/Wm%3D%3Dp9';
const DECODED = 'Kq7 Zt/Wm==p9';
const FORMS = [
  RAW,
  DECODED,
  new URLSearchParams([['k', DECODED]]).toString().slice(2), // Kq7+Zt%2FWm%3D%3Dp9
  encodeURIComponent(DECODED), // Kq7%20Zt%2FWm%3D%3Dp9
  encodeURIComponent(DECODED).toLowerCase().replace(/kq7/, 'Kq7').replace(/zt/, 'Zt').replace(/wm/, 'Wm'),
  DECODED.replace(/ /g, '+'),
];
const START_TIMEOUT_MS = 180_000; // a guard against a hung start, not a synchronisation

let dir: string;
let sgx: MintedSgx;
let node: LedgerNode;
let svc: ServiceProcess | undefined;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'secret-enc-'));
  sgx = mintSgx(dir);
  const chain = new LedgerChain(10, 20);
  chain.add(12, [t.transfer()]);
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  if (svc && svc.child.exitCode === null && svc.child.signalCode === null) svc.child.kill('SIGKILL');
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Every 6-character run of every form of the key found in `text`. */
function leaks(text: string): string[] {
  const out = new Set<string>();
  for (const f of FORMS) for (let i = 0; i + 6 <= f.length; i++) if (text.includes(f.slice(i, i + 6))) out.add(f.slice(i, i + 6));
  return [...out];
}

describe('a secret in the node URL’s query', { timeout: 600_000 }, () => {
  it('is hidden in every encoding in 502 answers, /ledger/status and the log', async () => {
    expect(new Set(FORMS).size).toBe(FORMS.length);
    const cfg = join(dir, 'config.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        port: 0,
        host: '127.0.0.1',
        ...sgx.config,
        liveCheck: { skip: true, apiBaseUrl: `${node.url}?api_key=${RAW}`, contractName: 'official_oracle', timeoutMs: 30_000 },
        watch: { enabled: true, database: join(dir, 'ledger.db'), fromHeight: 10, pollIntervalMs: 200, batchBlocks: 10, rps: 1000, retryIntervalMs: 3_600_000 },
        workers: 1,
        logLevel: 'trace',
      }),
    );
    svc = await startMain(['--config', cfg], { env: childEnv(), timeoutMs: START_TIMEOUT_MS });
    const s = svc;
    await until('the watcher at the tip', async () => ((await (await fetch(`${s.url}/ledger/status`)).json()) as { scannedHeight: number }).scannedHeight === 20, 120_000);

    // One lookup per echo: each form of the key after the URL as received, and one straddling the cut.
    const echoes: ((raw: string) => string)[] = [
      (raw) => `Something went wrong: GET ${raw}`,
      ...FORMS.map((f) => (_raw: string) => `Something went wrong: the key ${f} is not valid`),
      (raw) => `${'x'.repeat(186)}${raw.slice(raw.indexOf('api_key=') + 'api_key='.length)} and more text after the cut`,
      (raw) => `${'y'.repeat(190)}${RAW}${'z'.repeat(30)}`,
    ];
    const answers: string[] = [];
    for (const [i, echo] of echoes.entries()) {
      const id = fakeId('at', `echo${i}`);
      node.script(`/transaction/${id}`, Array.from({ length: 6 }, () => reply.echo(500, echo)));
      const r = await fetch(`${s.url}/ledger/transactions/${id}`);
      const text = await r.text();
      expect(r.status, text).toBe(502);
      expect(JSON.parse(text)).toMatchObject({ errorCode: 'LEDGER_NODE_HTTP_ERROR', errorString: expect.stringContaining('[redacted]') });
      answers.push(text);
    }
    // The node received the key, re-encoded by URLSearchParams.
    expect(node.requestsTo(`/transaction/${fakeId('at', 'echo0')}`)[0]!.path).toContain(`api_key=${FORMS[2]}`);

    // The watcher's node fails, echoing the URL: /ledger/status shows why.
    node.script('/block/height/latest', Array.from({ length: 500 }, () => reply.echo(500, (raw) => `Something went wrong: ${raw}`)));
    const status = await until(
      'the watcher to report the node failing',
      async () => {
        const text = await (await fetch(`${s.url}/ledger/status`)).text();
        return JSON.parse(text).watcher.lastError ? text : undefined;
      },
      180_000,
    );
    expect(JSON.parse(status).watcher.lastError).toMatchObject({ errorCode: 'LEDGER_NODE_HTTP_ERROR', errorString: expect.stringContaining('[redacted]') });
    node.reset();
    expect(await s.stop('SIGTERM')).toBe(0);
    const log = `${s.stdout()}\n${s.stderr()}`;
    expect(log).toMatch(/"level":40.*\[redacted\]/); // the warn-level lines name the failure, redacted

    expect({ answers: answers.flatMap(leaks), status: leaks(status), log: leaks(log) }).toEqual({ answers: [], status: [], log: [] });
  });
});
