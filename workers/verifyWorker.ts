/** Piscina task entry: the verification core for one task. Imports nothing from the server. */
import { workerData } from 'node:worker_threads';
import { move, transferableSymbol, valueSymbol } from 'piscina';
import { answerBuffers, createWorkerCore } from '../src/pool/workerCore.js';
import type { VerifyTask, WorkerSetup } from '../src/pool/task.js';

const run = createWorkerCore(workerData as WorkerSetup);

export default async function verify(task: VerifyTask): Promise<unknown> {
  const stamped = await run(task);
  // The answers' bytes (POST /decodeReport) are transferred with the result, not copied.
  const transfer = answerBuffers(stamped.result);
  return transfer.length === 0 ? stamped : move({ [transferableSymbol]: transfer, [valueSymbol]: stamped } as never);
}
