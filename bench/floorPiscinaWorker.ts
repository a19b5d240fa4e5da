/** Piscina task entry of the floor's `piscina` rung (bench/floorServer.ts): the core path, one report per task. */
import { workerData } from 'node:worker_threads';
import { createCorePath, type CoreInput } from './corePath.js';

const core = await createCorePath(workerData as CoreInput);

export default async function run(task: { k: number; body: Uint8Array[] }): Promise<boolean> {
  await core.runOne(task.k);
  return true;
}
