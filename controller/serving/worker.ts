/** The serving thread's entry (thread.ts starts it): endpoints.ts on the worker's port. */
import { parentPort, workerData } from 'node:worker_threads';
import { serveEndpoints } from './endpoints';
import type { ServingData } from './messages';

if (parentPort) void serveEndpoints(workerData as ServingData, parentPort);
