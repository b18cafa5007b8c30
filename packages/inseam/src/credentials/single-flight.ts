/**
 * One renewal at a time per key: callers that arrive while a task for their key is running get
 * that task's promise instead of starting another, so N concurrent requests with an expired
 * token cause exactly one token request. The entry is dropped when the task settles, success
 * or failure, so the next caller after a failure tries again.
 */
export class SingleFlight<T> {
  readonly #running = new Map<string, Promise<T>>();

  run(key: string, task: () => Promise<T>): Promise<T> {
    const running = this.#running.get(key);
    if (running !== undefined) return running;
    const started = (async () => {
      try {
        return await task();
      } finally {
        this.#running.delete(key);
      }
    })();
    this.#running.set(key, started);
    return started;
  }
}
