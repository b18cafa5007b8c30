/**
 * A per-path lock for writes and deletes, shared by every connector instance in the process (two
 * sources over one folder, or an instance recreated after a config change), keyed by the target's
 * real path. It makes an etag check and the rename that follows one step: of two writes carrying
 * the same ifMatch, the second waits, then sees the first one's etag and fails.
 * Other processes writing the same folder are not covered; README.md says so.
 */

const tails = new Map<string, Promise<void>>();

/** Runs `task` once every earlier task holding `key` has finished. */
export async function withPathLock<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((resolve) => {
    release = resolve;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  try {
    await previous;
    return await task();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}
