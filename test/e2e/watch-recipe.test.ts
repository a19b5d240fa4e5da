/**
 * README's local watcher recipe (Ledger, "A local watcher") runs as written: its command, with
 * examples/watch/config.json, starts a server whose watcher scans the ledger node into the store
 * next to the config file. Run from a copy of the repository's layout whose config names the
 * ledger simulator (test/support/ledger-node.ts) as the node and a local port as the PCCS (no
 * traffic leaves the machine); everything else is the file as committed.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { childEnv, logRecords, startMain, type ServiceProcess } from '../support/process.js';

const root = process.cwd();
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'verifier-watch-recipe-'));
let node: LedgerNode | undefined;
let svc: ServiceProcess | undefined;
afterAll(async () => {
  await svc?.stop();
  await node?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The recipe's command: the one line of the sh block between the watcher-recipe markers. */
function recipeCommand(): string {
  const block = /<!-- watcher-recipe:begin -->\n```sh\n([^\n]+)\n```\n<!-- watcher-recipe:end -->/.exec(readme);
  expect(block, 'README: the watcher-recipe block').not.toBeNull();
  return block![1]!;
}

describe("README's local watcher recipe", () => {
  it('the config loads as written: the store next to it, the rest as deploy/config-watch.json but host, port and PCCS', () => {
    const cmd = recipeCommand();
    expect(cmd).toBe('npm start -- --config examples/watch/config.json');
    const file = resolve(root, 'examples/watch/config.json');
    const cfg = loadConfig(file);
    expect(cfg.watch?.database).toBe(resolve(root, 'examples/watch/ledger.db'));
    expect(cfg.host).toBe('127.0.0.1');
    expect(cfg.port).toBe(8090);
    const local = JSON.parse(readFileSync(file, 'utf8'));
    const deploy = JSON.parse(readFileSync(resolve(root, 'deploy/config-watch.json'), 'utf8'));
    const strip = (c: any) => ({ ...c, host: undefined, port: undefined, pccsUrl: undefined, watch: { ...c.watch, database: undefined } });
    expect(strip(local)).toEqual(strip(deploy));
    // The store the recipe writes is not committed.
    expect(readFileSync(resolve(root, 'examples/watch/.gitignore'), 'utf8')).toMatch(/^ledger\.db$/m);
  });

  it('its command starts a watcher that stores the node\'s blocks in examples/watch/ledger.db', async () => {
    const chain = new LedgerChain(0, 20);
    chain.add(11, [t.transfer()]);
    node = await startLedgerNode();
    chain.install(node);
    const args = recipeCommand().replace(/^npm start -- /, '').split(' ');
    const cfgPath = join(dir, args[args.indexOf('--config') + 1]!);
    mkdirSync(dirname(cfgPath), { recursive: true });
    const raw = JSON.parse(readFileSync(resolve(root, 'examples/watch/config.json'), 'utf8'));
    raw.liveCheck.apiBaseUrl = node.url;
    raw.pccsUrl = 'http://127.0.0.1:9/sgx/certification/v4/';
    raw.watch.pollIntervalMs = 100;
    writeFileSync(cfgPath, JSON.stringify(raw));
    // `npm start` builds dist/ and runs dist/src/main.js with the arguments; the test runs its source.
    svc = await startMain(args, { cwd: dir, env: { ...childEnv(), PORT: '0' } });
    const s = svc;
    await new Promise<void>((done) => {
      const check = () => {
        if (logRecords(s).some((r) => r.msg === 'ledger range stored' && r.scannedHeight === chain.latest)) {
          s.child.stdout!.off('data', check);
          done();
        }
      };
      s.child.stdout!.on('data', check);
      check();
    });
    const status = (await (await fetch(`${s.url}/ledger/status`)).json()) as { scannedHeight: number; watcher: { running: boolean } };
    expect(status.scannedHeight).toBe(chain.latest);
    expect(status.watcher.running).toBe(true);
    expect(existsSync(join(dir, 'examples/watch/ledger.db'))).toBe(true);
    expect(await s.stop()).toBe(0);
    svc = undefined;
  });
});
