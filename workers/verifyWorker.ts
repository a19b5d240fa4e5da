/** Piscina task entry: the verification core for one task. Imports nothing from the server. */
import { workerData } from 'node:worker_threads';
import { createWorkerCore } from '../src/pool/workerCore.js';
import type { VerifyTask, WorkerSetup } from '../src/pool/task.js';

const run = createWorkerCore(workerData as WorkerSetup);

export default function verify(task: VerifyTask) {
  return run(task);
}
