/** Worker of the HTTP floor server (bench/floorServer.ts): the core path, one report per message. */
import { parentPort, workerData } from 'node:worker_threads';
import { createCorePath, type CoreInput } from './corePath.js';

const core = await createCorePath(workerData as CoreInput);
parentPort!.on('message', (m: { k: number; body: Uint8Array[] }) => {
  core.runOne(m.k).then(
    () => parentPort!.postMessage({ ok: true }),
    (e: unknown) => parentPort!.postMessage({ ok: false, error: String(e) }),
  );
});
parentPort!.postMessage({ ready: true });
