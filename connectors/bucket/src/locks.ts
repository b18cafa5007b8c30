/**
 * In-process locks. They make the pad's check-then-rename steps atomic within one process; they do
 * not coordinate two processes (one inseam process owns a pad directory).
 */

/** One lock per key; waiters queue in arrival order. */
export class KeyedLock {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const current = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => current);
    this.tails.set(key, tail);
    await previous;
    try {
      return await task();
    } finally {
      release();
      // Forget the key once nobody queued behind us, so the map does not grow with the keyspace.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}

/** A single lock. */
export class Mutex {
  private readonly lock = new KeyedLock();

  run<T>(task: () => Promise<T>): Promise<T> {
    return this.lock.run('', task);
  }
}
