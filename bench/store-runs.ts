// What the benches that run once per store (bench/booking-pages.ts, bench/routing-forms.ts) share.
import type { startServer } from '../test/support/child-server.js';

type Server = Awaited<ReturnType<typeof startServer>>;

/** A store's result, or why it failed (the other store still runs). */
export async function orFailure<T>(log: (message: string) => void, store: string, work: () => Promise<T>): Promise<T | { store: string; failed: string; ok: false }> {
  try {
    return await work();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    log(`${store}: FAILED: ${message}`);
    return { store, failed: message.slice(0, 2000), ok: false };
  }
}

/** Stops the store's server, saying so when it did not exit cleanly. */
export async function stopServer(log: (message: string) => void, store: string, server: Server): Promise<void> {
  const stopped = await server.stop();
  if (stopped.code !== 0) log(`${store}: server exited with code ${stopped.code} signal ${stopped.signal} after SIGTERM`);
}
