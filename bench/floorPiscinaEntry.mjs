// Piscina task entry of the floor's `piscina` rung (bench/floorServer.ts): loads the TypeScript
// task through tsx's API, as floorWorkerEntry.mjs does for the raw workers.
import { tsImport } from 'tsx/esm/api';

const task = await tsImport('./floorPiscinaWorker.ts', import.meta.url);
export default task.default;
