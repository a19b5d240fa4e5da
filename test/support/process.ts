/** Runs the real service entry point (src/main.ts) as a child process. */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';

export const MAIN = resolve(process.cwd(), 'src/main.ts');
/** tsx's loader by absolute URL, so that children started in other directories find it. */
export const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;

/**
 * The environment of a child server: this one without PORT, which would override the port of
 * every test config (src/main.ts).
 */
export function childEnv(): NodeJS.ProcessEnv {
  const { PORT: _port, ...rest } = process.env;
  return rest;
}

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The JSON log records a service process has written to stdout so far (other lines left out). */
export function logRecords(s: Pick<ServiceProcess, 'stdout'>): any[] {
  return s
    .stdout()
    .split('\n')
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return [];
      }
    });
}

/** Runs to completion (for startup failures); returns exit code and output. `entry`: another script than src/main.ts. */
export function runMain(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; entry?: string } = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', TSX, opts.entry ?? MAIN, ...args], { cwd: opts.cwd ?? process.cwd(), env: opts.env ?? childEnv() });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`main did not exit within ${opts.timeoutMs ?? 150_000} ms\n${stdout}\n${stderr}`));
    }, opts.timeoutMs ?? 150_000);
    child.on('exit', (code) => {
      clearTimeout(t);
      res({ code, stdout, stderr });
    });
  });
}

/** Starts the service and resolves once it logs its listening address. */
export function startMain(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<ServiceProcess> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', TSX, MAIN, ...args], { cwd: opts.cwd ?? process.cwd(), env: opts.env ?? childEnv() });
    let out = '';
    let err = '';
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`service did not start within ${opts.timeoutMs ?? 150_000} ms\n${out}\n${err}`));
    }, opts.timeoutMs ?? 150_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      for (const line of out.split('\n')) {
        if (!line.startsWith('{')) continue;
        let rec: { msg?: string; address?: string };
        try {
          rec = JSON.parse(line);
        } catch {
          continue;
        }
        if (rec.msg === 'verifier listening' && rec.address) {
          clearTimeout(t);
          res({
            child,
            url: rec.address.replace('0.0.0.0', '127.0.0.1').replace('[::]', '127.0.0.1'),
            stdout: () => out,
            stderr: () => err,
            stop: (signal = 'SIGTERM') =>
              new Promise((r) => {
                if (child.exitCode !== null) return r(child.exitCode);
                child.once('exit', (code) => r(code));
                child.kill(signal);
              }),
          });
          return;
        }
      }
    });
    child.on('exit', (code) => {
      clearTimeout(t);
      rej(new Error(`service exited with ${code} before listening\n${out}\n${err}`));
    });
  });
}
