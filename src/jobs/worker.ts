import type { Config } from '../app/config.js';
export async function runWorker(_config: Config): Promise<void> {}
