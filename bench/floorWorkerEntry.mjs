// Worker entry of the floor server (bench/floorServer.ts): loads the TypeScript worker through
// tsx's API, since a worker's own entry is not compiled by an `--import tsx` given to the worker.
import { tsImport } from 'tsx/esm/api';

await tsImport('./floorWorker.ts', import.meta.url);
