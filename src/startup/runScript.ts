import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';

/** How a script run ended. */
export type ScriptOutcome =
  | { kind: 'exited'; code: number | null; signal: NodeJS.Signals | null; stdout: string; stderrTail: string }
  | { kind: 'timeout'; stderrTail: string }
  | { kind: 'stdoutTooLarge'; stderrTail: string }
  | { kind: 'spawnError'; error: Error };

export interface RunScriptOptions {
  /** Absolute path of the script, run as `/bin/sh <script>`. */
  script: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Standard output beyond this many bytes kills the run. */
  maxStdoutBytes: number;
  /** Only the last this-many bytes of standard error are kept. */
  stderrTailBytes: number;
  /** Time between SIGTERM and SIGKILL to the process group when the run is stopped. */
  killGraceMs: number;
}

/** Sends `signal` to the whole process group led by `pid`; a group that is gone already is fine. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

/**
 * Runs `/bin/sh <script>` in its own process group, collecting standard output (bounded) and the
 * tail of standard error. A timeout or runaway output stops the whole group: SIGTERM (so the
 * script's traps can clean up), then SIGKILL after `killGraceMs`.
 */
export function runScript(opts: RunScriptOptions): Promise<ScriptOutcome> {
  return new Promise((resolve) => {
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn('/bin/sh', [opts.script], {
        cwd: opts.cwd,
        env: opts.env,
        detached: true, // new session and process group, so the group can be signalled as a whole
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (e) {
      resolve({ kind: 'spawnError', error: e as Error });
      return;
    }
    const stdoutChunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrTail = Buffer.alloc(0);
    let stopReason: 'timeout' | 'stdoutTooLarge' | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;
    const pid = child.pid;

    const onParentExit = (): void => {
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
    };
    process.once('exit', onParentExit);

    const finish = (outcome: ScriptOutcome): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      process.removeListener('exit', onParentExit);
      resolve(outcome);
    };

    const stopped = (): void => {
      if (!stopReason) return;
      child.stdout.destroy();
      child.stderr.destroy();
      if (pid !== undefined) signalGroup(pid, 'SIGKILL'); // leftover group members
      finish({ kind: stopReason, stderrTail: stderrTail.toString('utf8') });
    };

    const stop = (reason: 'timeout' | 'stdoutTooLarge'): void => {
      if (stopReason || pid === undefined) return;
      stopReason = reason;
      signalGroup(pid, 'SIGTERM');
      if (child.exitCode !== null || child.signalCode !== null) {
        // The script itself has ended but something still holds its output open.
        stopped();
        return;
      }
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), opts.killGraceMs);
      killTimer.unref();
    };

    const timer = setTimeout(() => stop('timeout'), opts.timeoutMs);

    child.stdout.on('data', (chunk: Buffer) => {
      if (stopReason) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > opts.maxStdoutBytes) {
        stdoutChunks.length = 0;
        stop('stdoutTooLarge');
        return;
      }
      stdoutChunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderrTail = Buffer.concat([stderrTail, chunk]);
      if (stderrTail.length > opts.stderrTailBytes) {
        stderrTail = stderrTail.subarray(stderrTail.length - opts.stderrTailBytes);
      }
    });

    child.on('error', (error) => finish({ kind: 'spawnError', error }));

    // 'exit' rather than 'close': a stopped run must not wait for pipes that an escaped descendant
    // might still hold open. On a normal exit, wait for the pipes to drain ('close').
    child.on('exit', stopped);
    child.on('close', (code, signal) => {
      if (stopReason) {
        stopped();
        return;
      }
      finish({
        kind: 'exited',
        code,
        signal,
        stdout: Buffer.concat(stdoutChunks).toString('utf8'),
        stderrTail: stderrTail.toString('utf8'),
      });
    });
  });
}
