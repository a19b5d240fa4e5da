/**
 * The watcher's lease (src/ledger/watch/lease.ts): who counts as gone (a process of this host
 * that no longer runs, an earlier process with this pid), the heartbeat, and a lost lease stopping
 * the watcher.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openUpdateStore, type Lease } from '../../../../src/ledger/store/updateStore.js';
import { holderGone, StoreLease } from '../../../../src/ledger/watch/lease.js';
import { until } from '../../../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'store-lease-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const quiet = { info() {}, warn() {} };

describe('store lease', () => {
  it('a holder on this host is gone when its process no longer runs; one on another host never is', () => {
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    const lease = (pid: number, host = hostname()): Lease => ({ holder: `${host}/${pid}/x`, host, pid, heartbeatAt: 0, expiresAt: 1e15 });
    expect(holderGone(lease(Number(dead.stdout)))).toBe(true);
    expect(holderGone(lease(process.ppid))).toBe(false);
    expect(holderGone(lease(Number(dead.stdout), 'another-host'))).toBe(false);
    // This pid: an earlier process (say a container's pid 1), unless it is a live holder of this process.
    expect(holderGone(lease(process.pid))).toBe(true);
  });

  it('a holder that is a zombie (killed, not yet reaped by its parent) is gone: a restart right after a kill -9 starts', async () => {
    // A shell that starts a child and then becomes a process that never waits: the child, once
    // exited, stays a zombie while that process runs.
    const parent = spawn('sh', ['-c', 'sleep 0 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((r) => parent.stdout.once('data', (d: Buffer) => r(d.toString('utf8').trim()))));
      const state = () => readFileSync(`/proc/${zombie}/stat`, 'latin1').split(') ').at(-1)!.split(' ')[0];
      await until('the child to be a zombie', () => state() === 'Z');
      // kill(pid, 0) still succeeds on a zombie; the lease must count it as gone all the same.
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(holderGone({ holder: `${hostname()}/${zombie}/x`, host: hostname(), pid: zombie, heartbeatAt: 0, expiresAt: 1e15 })).toBe(true);
      expect(holderGone({ holder: `${hostname()}/${parent.pid}/x`, host: hostname(), pid: parent.pid!, heartbeatAt: 0, expiresAt: 1e15 })).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });

  it('a second watcher of this process is refused; after release the next one takes it', () => {
    const s = openUpdateStore(join(dir, 'two.db'));
    const first = new StoreLease(s, { ttlMs: 60_000, log: quiet, onLost() {} });
    first.acquire();
    const second = new StoreLease(s, { ttlMs: 60_000, log: quiet, onLost() {} });
    expect(() => second.acquire()).toThrow(expect.objectContaining({ code: 'STORE_LEASE_HELD' }));
    first.release();
    second.acquire();
    expect(s.lease()?.holder).toBe(second.holder);
    second.release();
    s.close();
  });

  it('a watcher that finds the lease held waits for it, saying so once with the expiry, and takes it once it is given up; stopping the wait gives false', async () => {
    const s = openUpdateStore(join(dir, 'wait.db'));
    const first = new StoreLease(s, { ttlMs: 60_000, log: quiet, onLost() {} });
    first.acquire();
    const said: string[] = [];
    const waited: (string | undefined)[] = [];
    let told!: () => void;
    const toldOnce = new Promise<void>((r) => (told = r));
    const second = new StoreLease(s, { ttlMs: 60_000, log: { info() {}, warn: (_o: object, m: string) => (said.push(m), told()) }, onLost() {} });
    const taken = second.acquireWaiting(new AbortController().signal, (h) => waited.push(h?.holder));
    await toldOnce;
    const expiry = new Date(s.lease()!.expiresAt).toISOString();
    expect(said).toEqual([`ledger watcher: the store's lease is held by ${first.holder} until ${expiry}; this watcher waits for it and starts once it is given up, expires, or its process no longer runs (verification is served meanwhile)`]);
    first.release();
    expect(await taken).toBe(true);
    expect(s.lease()?.holder).toBe(second.holder);
    expect(waited).toEqual([first.holder, undefined]);
    expect(said).toHaveLength(1);
    // A third one waits, and stops waiting when told to.
    const third = new StoreLease(s, { ttlMs: 60_000, log: quiet, onLost() {} });
    const stop = new AbortController();
    let held!: () => void;
    const isWaiting = new Promise<void>((r) => (held = r));
    const gaveUp = third.acquireWaiting(stop.signal, (h) => h && held());
    await isWaiting;
    stop.abort();
    expect(await gaveUp).toBe(false);
    expect(s.lease()?.holder).toBe(second.holder);
    second.release();
    s.close();
  });

  it('the heartbeat renews the lease, and reports a lease taken over as lost', async () => {
    const s = openUpdateStore(join(dir, 'beat.db'));
    const lost: string[] = [];
    let onLost!: () => void;
    const gone = new Promise<void>((r) => (onLost = r));
    // The heartbeat's renewal is the event waited for (the store's renewLease, seen through a proxy).
    let renewed!: () => void;
    const beat = new Promise<void>((r) => (renewed = r));
    const seen = new Proxy(s, {
      get(target, p, receiver) {
        if (p !== 'renewLease') return Reflect.get(target, p, receiver) as unknown;
        return (...a: Parameters<typeof s.renewLease>) => {
          const held = s.renewLease(...a);
          renewed();
          return held;
        };
      },
    });
    const l = new StoreLease(seen, {
      ttlMs: 1_000,
      log: quiet,
      onLost: (e) => {
        lost.push(`${e.code} ${e.message}`);
        onLost();
      },
    });
    l.acquire();
    const first = s.lease()!.heartbeatAt;
    l.start();
    // Wait for a heartbeat (the event), then take the lease over as an expired one.
    await beat;
    expect(s.lease()!.heartbeatAt).toBeGreaterThanOrEqual(first);
    s.acquireLease({ holder: 'elsewhere/1/zz', host: 'elsewhere', pid: 1, ttlMs: 60_000, now: s.lease()!.expiresAt + 1 });
    await gone;
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatch(/^STORE_LEASE_LOST store: .*beat\.db: this watcher lost its lease: another watcher took it over \(elsewhere\/1\/zz\)/);
    l.release();
    expect(s.lease()?.holder).toBe('elsewhere/1/zz');
    s.close();
  });

  it('a heartbeat that fails past the lease TTL (a full disk) goes on, and the lease is renewed once the store takes writes again (issue 48, item 4)', async () => {
    const s = openUpdateStore(join(dir, 'lapse.db'));
    let failing = false;
    const failingStore = new Proxy(s, {
      get(target, p, receiver) {
        if (p !== 'renewLease') return Reflect.get(target, p, receiver) as unknown;
        return (...a: Parameters<typeof s.renewLease>) => {
          if (failing) throw Object.assign(new Error('SQLITE_FULL: database or disk is full'), { code: 'STORE_WRITE_FAILED' });
          return target.renewLease(...a);
        };
      },
    });
    const events: string[] = [];
    const waiters: [RegExp, () => void][] = [];
    const seen = (re: RegExp) => new Promise<void>((r) => (events.some((x) => re.test(x)) ? r() : waiters.push([re, r])));
    const log = (level: string) => (_o: object, msg: string) => {
      events.push(`${level} ${msg}`);
      for (const [re, r] of waiters) if (re.test(`${level} ${msg}`)) r();
    };
    const lost: string[] = [];
    const l = new StoreLease(failingStore, { ttlMs: 300, log: { info: log('info'), warn: log('warn') }, onLost: (e) => lost.push(e.message) });
    l.acquire();
    l.start();
    failing = true;
    await seen(/^warn ledger watcher: the store lease lapsed while the store failed/);
    failing = false;
    await seen(/^info ledger watcher: the store takes writes again; the lease is renewed$/);
    expect(lost).toEqual([]);
    expect(s.lease()?.holder).toBe(l.holder);
    expect(s.lease()!.expiresAt).toBeGreaterThan(Date.now());
    // Lapsed again, and meanwhile another watcher takes the expired lease: lost, for good.
    failing = true;
    const lapses = events.filter((x) => x.includes('lapsed')).length;
    await new Promise<void>((r) => {
      const check = () => (events.filter((x) => x.includes('lapsed')).length > lapses ? r() : waiters.push([/lapsed/, check]));
      check();
    });
    s.acquireLease({ holder: 'elsewhere/1/zz', host: 'elsewhere', pid: 1, ttlMs: 60_000, now: Date.now() });
    failing = false;
    await until('the lease to be reported lost', () => lost.length === 1);
    expect(lost[0]).toMatch(/another watcher took it over \(elsewhere\/1\/zz\)/);
    l.release();
    s.close();
  });
});
