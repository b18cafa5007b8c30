/**
 * A watch subscription: events are queued as the connector emits them and applied in order, one
 * batch at a time. The queue is bounded: past the limit it is dropped and `overflow` is called,
 * because a rescan finds everything the dropped events said (as inotify's overflow works).
 */
import { EventEmitter } from 'node:events';
import type { ChangeEvent } from '@inseam/connector';
import type { EventOutcome } from './outcome.js';

export interface WatcherEvents {
  /** A batch was applied. */
  applied: [EventOutcome];
  /** Applying a batch failed (the store, most likely); later events are still applied. */
  failed: [unknown];
  /** The queue overflowed and a rescan was started. */
  overflow: [];
}

export interface Watcher extends EventEmitter<WatcherEvents> {
  /** Unsubscribes from the connector and resolves once every queued event is applied. */
  stop(): Promise<void>;
}

export interface WatchParts {
  readonly subscribe: (emit: (event: ChangeEvent) => void) => Promise<() => void>;
  readonly apply: (events: ChangeEvent[]) => Promise<EventOutcome>;
  readonly overflow: () => void;
  readonly limit: number;
  readonly batch: number;
}

class QueueWatcher extends EventEmitter<WatcherEvents> implements Watcher {
  readonly #parts: WatchParts;
  #queue: ChangeEvent[] = [];
  #draining: Promise<void> | null = null;
  #stopped = false;
  #unsubscribe: (() => void) | undefined;

  constructor(parts: WatchParts) {
    super();
    this.#parts = parts;
  }

  async start(): Promise<void> {
    this.#unsubscribe = await this.#parts.subscribe((event) => this.#push(event));
  }

  #push(event: ChangeEvent): void {
    if (this.#stopped) return;
    if (this.#queue.length >= this.#parts.limit) {
      this.#queue = [];
      this.#parts.overflow();
      this.emit('overflow');
      return;
    }
    this.#queue.push(event);
    this.#draining ??= this.#drain().finally(() => {
      this.#draining = null;
    });
  }

  async #drain(): Promise<void> {
    // Let a burst of events arrive before the first batch is cut.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#parts.batch);
      try {
        this.emit('applied', await this.#parts.apply(batch));
      } catch (error) {
        this.emit('failed', error);
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    await this.#draining;
  }
}

export async function startWatch(parts: WatchParts): Promise<Watcher> {
  const watcher = new QueueWatcher(parts);
  await watcher.start();
  return watcher;
}
