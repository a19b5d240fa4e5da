/**
 * A bench peer's CPU from /proc, per process and per thread, and the host's steal: what
 * bench/http-load.ts and bench/http-ab.ts read around each run and turn (measuredTurn). Linux only.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU seconds (user + system) used so far by a process (or, with tid, one of its threads), from /proc. */
export function cpuSeconds(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** One figure of every thread of a process, by thread id (a thread that ends while read is left out). */
function perThread(pid: number, read: (tid: number) => number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), read(Number(tid)));
    } catch {
      /* thread ended */
    }
  }
  return out;
}

/** CPU seconds of every thread of a process, by thread id. */
export const threadSeconds = (pid: number) => perThread(pid, (tid) => cpuSeconds(pid, tid));

/** Voluntary context switches (the thread went to sleep and was woken) of one thread so far. */
const threadSleepsOf = (pid: number, tid: number): number =>
  Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1]);

/** Voluntary context switches of every thread, by thread id. */
export const threadSleeps = (pid: number) => perThread(pid, (tid) => threadSleepsOf(pid, tid));

/**
 * Splits a process's CPU over an interval: the main thread, the `workers` busiest other threads
 * (the worker threads; their ids in `workerTids`), the rest.
 */
export function splitThreads(pid: number, before: Map<number, number>, after: Map<number, number>, workers: number) {
  const used = [...after].map(([tid, s]) => ({ tid, s: s - (before.get(tid) ?? 0) }));
  const main = used.find((t) => t.tid === pid)?.s ?? 0;
  const others = used.filter((t) => t.tid !== pid).sort((x, y) => y.s - x.s);
  const busiest = others.slice(0, workers).reduce((a, t) => a + t.s, 0);
  const rest = others.slice(workers).reduce((a, t) => a + t.s, 0);
  // Node names every thread "node": tell them apart by thread id offset (V8's platform threads
  // are created right after the main thread, libuv's pool on first use).
  const restByThread: Record<string, number> = {};
  for (const t of others.slice(workers)) if (t.s > 0) restByThread[`+${t.tid - pid}`] = t.s;
  return { main, workers: busiest, rest, restByThread, workerTids: others.slice(0, workers).map((t) => t.tid) };
}

/**
 * CPU time the hypervisor gave to other guests while this one wanted it (steal, /proc/stat's
 * eighth figure), both cores together, in seconds: a host stall that no peer caused shows here.
 */
export function stealSeconds(): number {
  const f = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/);
  return Number(f[8] ?? 0) / 100;
}

/** Adds each thread's figure `after` minus `before` (two readings of threadSeconds or threadSleeps) to `sum`. */
export function addDeltas(sum: Map<number, number>, before: Map<number, number>, after: Map<number, number>): void {
  for (const [tid, v] of after) sum.set(tid, (sum.get(tid) ?? 0) + v - (before.get(tid) ?? 0));
}

/**
 * What one turn of a peer cost: its process's CPU, its threads' CPU and sleeps (readings before
 * and after), this process's CPU (the load generator's) and the host's steal over it.
 */
export interface TurnCost<T> {
  result: T;
  server: number;
  threads: [Map<number, number>, Map<number, number>];
  sleeps: [Map<number, number>, Map<number, number>];
  client: number;
  steal: number;
}

/** Runs `work` (one turn of load on the peer `pid`) and reads what it cost (TurnCost). */
export async function measuredTurn<T>(pid: number, work: () => Promise<T>): Promise<TurnCost<T>> {
  const s0 = cpuSeconds(pid);
  const t0 = threadSeconds(pid);
  const z0 = threadSleeps(pid);
  const c0 = process.cpuUsage();
  const h0 = stealSeconds();
  const result = await work();
  const steal = stealSeconds() - h0;
  const c1 = process.cpuUsage(c0);
  return { result, server: cpuSeconds(pid) - s0, threads: [t0, threadSeconds(pid)], sleeps: [z0, threadSleeps(pid)], client: (c1.user + c1.system) / 1e6, steal };
}
