/**
 * `npm run bench`: every micro benchmark (tinybench, peers in the same run) one after the other,
 * then the HTTP load run. Each runs in its own process so that one does not warm up the next.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { cpus, totalmem } from 'node:os';
import { pathToFileURL } from 'node:url';

const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const files = ['struct.bench.ts', 'hash.bench.ts', 'hash-peers.bench.ts', 'bhp.bench.ts', 'inclusion.bench.ts', 'typeb.bench.ts', 'typea.bench.ts', 'core.bench.ts', 'cli.bench.ts', 'frontend.bench.ts', 'http-load.ts', 'healthz-under-verify.ts', 'memory.ts'];

console.log(`node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`);
let failed = 0;
for (const f of files) {
  console.log(`\n=== bench/${f}`);
  const r = spawnSync(process.execPath, ['--import', tsx, `bench/${f}`], { stdio: 'inherit' });
  if (r.status !== 0) {
    failed++;
    console.log(`bench/${f} exited with ${r.status}`);
  }
}
process.exit(failed ? 1 : 0);
