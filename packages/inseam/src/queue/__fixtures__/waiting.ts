/** Polling for the queue tests: workers and pg-boss act on their own clocks. */
import { HostQueue } from '../queue.js';
import { QueueDatabase } from '../database.js';

/** Resolves with the first truthy answer of `probe`, polled every 25 ms; throws after `timeoutMs`. */
export async function waitFor<T>(what: string, probe: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A queue on `url` with one quick retry, and the cleanup that stops it and closes its database. */
export async function openTestQueue(url: string): Promise<{ readonly queue: HostQueue; close(): Promise<void> }> {
  const database = new QueueDatabase({ url });
  const queue = await HostQueue.start({ database, retry: { limit: 1, delaySeconds: 1 } });
  return {
    queue,
    close: async () => {
      await queue.stop();
      await database.close();
    },
  };
}
