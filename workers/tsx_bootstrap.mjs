// Worker threads do not inherit tsx's loader on Node 20: each worker registers it, then imports its TypeScript entry.
// Usage: new Worker(bootstrapUrl, { workerData: { entry: new URL("./x.ts", import.meta.url).href, ... } })
import { register } from "tsx/esm/api";
import { workerData } from "node:worker_threads";

register();
const module = await import(workerData.entry);
export default module.default;
