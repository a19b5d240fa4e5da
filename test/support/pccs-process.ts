/** Runs test/support/pccs-server.ts as its own process, as a deployment runs a PCCS. */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { PccsBundle } from './pccs-server.js';

export interface PccsProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export function startPccsProcess(bundle: PccsBundle): Promise<PccsProcess> {
  const file = join(mkdtempSync(join(tmpdir(), 'pccs-')), 'bundle.json');
  writeFileSync(file, JSON.stringify(bundle));
  const child = spawn(process.execPath, ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href, resolve('test/support/pccs-server.ts'), file], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((res, rej) => {
    let out = '';
    let err = '';
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`PCCS process did not start\n${out}\n${err}`));
    }, 150_000);
    child.stderr!.on('data', (d) => (err += d));
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /PCCS_URL=(\S+)/.exec(out);
      if (m) {
        clearTimeout(t);
        res({
          url: m[1]!,
          child,
          stop: () =>
            new Promise<void>((r) => {
              if (child.exitCode !== null) return r();
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => {
      clearTimeout(t);
      rej(new Error(`PCCS process exited with ${code}\n${out}\n${err}`));
    });
  });
}
