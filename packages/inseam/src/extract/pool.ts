/**
 * Document text extraction off the main thread: a few worker threads, one document each at a
 * time. Each document has a deadline and each worker a heap limit (`resourceLimits`); a worker
 * that overruns either is terminated — whatever the parser was doing — its document fails alone
 * (`timeout`, or `too_large` with `details.reason: "extract_memory"`), and the next document gets a
 * fresh worker. Idle workers stop after a while, so an unused pool holds no threads.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { DocumentUnreadableError, TimeoutError, TooLargeError, UnavailableError, type ConnectorError } from '@neuralis/package-system/contracts';
import type { DocumentKind } from './kinds.js';
import { DEFAULT_EXTRACT_LIMITS, kindName, type ExtractedText, type ExtractLimits } from './limits.js';
import type { ExtractReply, ExtractRequest } from './protocol.js';

export interface DocumentExtractor {
  /** The document's text; rejects with `document_unreadable`, `too_large` or `timeout`. */
  extract(kind: DocumentKind, bytes: Uint8Array, options?: { readonly signal?: AbortSignal }): Promise<ExtractedText>;
}

export interface ExtractorPoolOptions {
  /** Workers at most. Default half the cores, at least 1. */
  readonly size?: number;
  /** One document, from the moment a worker takes it. Default 30 s. */
  readonly timeoutMs?: number;
  /** A worker's heap (V8 old generation), in MiB. Default 512. */
  readonly memoryMb?: number;
  /** An idle worker stops after this long. Default 15 s. */
  readonly idleMs?: number;
  readonly limits?: Partial<ExtractLimits>;
  /** The worker module. Default the one beside this module. */
  readonly entry?: URL;
}

interface Job {
  readonly id: number;
  readonly kind: DocumentKind;
  readonly bytes: Uint8Array;
  readonly resolve: (text: ExtractedText) => void;
  readonly reject: (error: unknown) => void;
  readonly detach: () => void;
}

interface Slot {
  readonly worker: Worker;
  job: Job | undefined;
  timer: NodeJS.Timeout | undefined;
}

/**
 * The worker module. A built package runs the emitted JavaScript. From TypeScript sources
 * (tests, development) Node cannot start a .ts worker by itself, so a small module registers
 * the sandbox's source hooks (which compile .ts on load, as for the sandbox process) first.
 */
function defaultEntry(): URL {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new URL('./worker.js', here);
  const hooks = new URL('../sandbox/source-hooks.mjs', here).href;
  const worker = new URL('./worker.ts', here).href;
  return new URL(`data:text/javascript,${encodeURIComponent(`import{register}from'node:module';register(${JSON.stringify(hooks)});await import(${JSON.stringify(worker)});`)}`);
}

export class ExtractorPool implements DocumentExtractor {
  readonly #size: number;
  readonly #timeoutMs: number;
  readonly #memoryMb: number;
  readonly #idleMs: number;
  readonly #limits: ExtractLimits;
  readonly #entry: URL;
  readonly #queue: Job[] = [];
  readonly #idle: Slot[] = [];
  readonly #busy = new Set<Slot>();
  readonly #idleTimers = new Map<Slot, NodeJS.Timeout>();
  #nextId = 0;
  #closed = false;

  constructor(options: ExtractorPoolOptions = {}) {
    this.#size = options.size ?? Math.max(1, Math.floor(availableParallelism() / 2));
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#memoryMb = options.memoryMb ?? 512;
    this.#idleMs = options.idleMs ?? 15_000;
    this.#limits = { ...DEFAULT_EXTRACT_LIMITS, ...options.limits };
    this.#entry = options.entry ?? defaultEntry();
  }

  get limits(): ExtractLimits {
    return this.#limits;
  }

  extract(kind: DocumentKind, bytes: Uint8Array, options: { readonly signal?: AbortSignal } = {}): Promise<ExtractedText> {
    if (this.#closed) return Promise.reject(new UnavailableError('Document text extraction has been shut down.'));
    if (bytes.byteLength > this.#limits.maxInputBytes) {
      return Promise.reject(
        new TooLargeError(`The ${kindName(kind)} document is too large to extract its text: it is over ${this.#limits.maxInputBytes} bytes.`, {
          details: { reason: 'document_too_large', kind, limit: this.#limits.maxInputBytes },
        }),
      );
    }
    const { signal } = options;
    if (signal?.aborted === true) return Promise.reject(abortError(signal));
    return new Promise<ExtractedText>((resolve, reject) => {
      const onAbort = (): void => this.#abort(job, abortError(signal!));
      const job: Job = {
        id: this.#nextId++,
        kind,
        bytes,
        resolve,
        reject,
        detach: () => signal?.removeEventListener('abort', onAbort),
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Stops every worker; documents waiting or running fail `unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    const stopping = new UnavailableError('Document text extraction has been shut down.');
    for (const job of this.#queue.splice(0)) settle(job, stopping);
    const slots = [...this.#busy, ...this.#idle];
    this.#busy.clear();
    this.#idle.length = 0;
    for (const timer of this.#idleTimers.values()) clearTimeout(timer);
    this.#idleTimers.clear();
    await Promise.all(
      slots.map((slot) => {
        clearTimeout(slot.timer);
        if (slot.job !== undefined) settle(slot.job, stopping);
        slot.job = undefined;
        return slot.worker.terminate();
      }),
    );
  }

  #pump(): void {
    while (this.#queue.length > 0 && !this.#closed) {
      let slot = this.#idle.pop();
      if (slot !== undefined) {
        clearTimeout(this.#idleTimers.get(slot));
        this.#idleTimers.delete(slot);
      } else if (this.#busy.size < this.#size) slot = this.#spawn();
      else return;
      this.#run(slot, this.#queue.shift()!);
    }
  }

  #spawn(): Slot {
    const worker = new Worker(this.#entry, {
      resourceLimits: { maxOldGenerationSizeMb: this.#memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, Math.floor(this.#memoryMb / 8))), stackSizeMb: 4 },
      // Not piped to this process's output: a parser's chatter must not corrupt a command's JSON.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, job: undefined, timer: undefined };
    worker.on('message', (reply: ExtractReply) => this.#answered(slot, reply));
    worker.on('error', (error: Error & { code?: string }) => {
      const job = slot.job;
      if (job === undefined) return;
      this.#retire(slot);
      settle(job, error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? memoryError(job.kind, this.#memoryMb) : crashed(job.kind));
    });
    worker.on('exit', () => {
      const job = slot.job;
      this.#retire(slot);
      if (job !== undefined) settle(job, crashed(job.kind));
    });
    return slot;
  }

  #run(slot: Slot, job: Job): void {
    slot.job = job;
    this.#busy.add(slot);
    slot.worker.ref();
    slot.timer = setTimeout(() => {
      this.#retire(slot);
      settle(job, new TimeoutError(`The ${kindName(job.kind)} document's text was not extracted within ${this.#timeoutMs} ms; its extraction was stopped.`, { details: { reason: 'extract_timeout', kind: job.kind, limitMs: this.#timeoutMs } }));
    }, this.#timeoutMs);
    // The worker gets its own copy: the caller's bytes stay usable, and the transfer is free.
    const bytes = job.bytes.slice();
    const request: ExtractRequest = { id: job.id, kind: job.kind, bytes, limits: this.#limits };
    slot.worker.postMessage(request, [bytes.buffer]);
  }

  #answered(slot: Slot, reply: ExtractReply): void {
    const job = slot.job;
    if (job === undefined || job.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    this.#busy.delete(slot);
    if ('result' in reply) settle(job, null, reply.result);
    else settle(job, reply.failure.code === 'too_large' ? new TooLargeError(reply.failure.message, { details: reply.failure.details }) : new DocumentUnreadableError(reply.failure.message, { details: reply.failure.details }));
    if (this.#closed) return;
    slot.worker.unref();
    this.#idle.push(slot);
    const timer = setTimeout(() => this.#retire(slot), this.#idleMs);
    timer.unref();
    this.#idleTimers.set(slot, timer);
    this.#pump();
  }

  #abort(job: Job, error: Error): void {
    const queued = this.#queue.indexOf(job);
    if (queued !== -1) {
      this.#queue.splice(queued, 1);
      settle(job, error);
      return;
    }
    const slot = [...this.#busy].find((candidate) => candidate.job === job);
    if (slot === undefined) return;
    this.#retire(slot);
    settle(job, error);
  }

  /** Takes a worker out of service and stops it; its job, if any, is the caller's to settle. */
  #retire(slot: Slot): void {
    clearTimeout(slot.timer);
    clearTimeout(this.#idleTimers.get(slot));
    this.#idleTimers.delete(slot);
    slot.job = undefined;
    const wasKnown = this.#busy.delete(slot) || removeFrom(this.#idle, slot);
    if (wasKnown) void slot.worker.terminate();
    this.#pump();
  }
}

function settle(job: Job, error: unknown, result?: ExtractedText): void {
  job.detach();
  if (error === null) job.resolve(result!);
  else job.reject(error);
}

function removeFrom(slots: Slot[], slot: Slot): boolean {
  const index = slots.indexOf(slot);
  if (index === -1) return false;
  slots.splice(index, 1);
  return true;
}

function crashed(kind: DocumentKind): ConnectorError {
  return new DocumentUnreadableError(`The ${kindName(kind)} document could not be read as text: its extraction stopped unexpectedly.`, { details: { reason: 'crashed', kind } });
}

function memoryError(kind: DocumentKind, memoryMb: number): ConnectorError {
  return new TooLargeError(`The ${kindName(kind)} document needs more than ${memoryMb} MiB to extract its text; its extraction was stopped.`, {
    details: { reason: 'extract_memory', kind, limit: memoryMb },
  });
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new TimeoutError('The document text extraction was cancelled.');
}

let shared: ExtractorPool | undefined;

/** The process's pool, made on first use; its workers stop when idle, so it needs no closing. */
export function sharedExtractor(): ExtractorPool {
  shared ??= new ExtractorPool();
  return shared;
}
