/**
 * The platform's ends of the byte streams that cross to the sandbox, with credit-based flow
 * control (see protocol.ts). Neither end buffers a whole body: an inbound stream grants credit only
 * as its reader takes chunks, and an outbound pump reads its source only as credit arrives.
 */
import { ConnectorFailedError, SandboxLimitError, type ConnectorError } from '@neuralis/package-system/contracts';
import { MAX_CHUNK_BYTES, STREAM_WINDOW } from './protocol.js';

export interface StreamSignals {
  credit(count: number): void;
  cancel(): void;
}

/**
 * A stream the sandbox produces (a read() body, a fetch upload), consumed on the platform. When
 * credit is out and nothing arrives for `idleMs`, the stream fails with `sandbox_limit` (time).
 */
export class InboundStream {
  readonly stream: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #outstanding = 0;
  #done = false;
  #idle: NodeJS.Timeout | undefined;
  readonly #signals: StreamSignals;
  readonly #idleMs: number;
  readonly #label: string;
  readonly #onDone: () => void;

  constructor(label: string, signals: StreamSignals, idleMs: number, onDone: () => void) {
    this.#label = label;
    this.#signals = signals;
    this.#idleMs = idleMs;
    this.#onDone = onDone;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.#controller = controller;
        },
        pull: (controller) => {
          const want = (controller.desiredSize ?? 0) - this.#outstanding;
          if (want <= 0 || this.#done) return;
          this.#outstanding += want;
          this.#signals.credit(want);
          this.#armIdle();
        },
        cancel: () => {
          if (this.#finish()) this.#signals.cancel();
        },
      },
      { highWaterMark: STREAM_WINDOW },
    );
  }

  /** True while credit is out and the stream is open: the platform is waiting on the sandbox. */
  get waiting(): boolean {
    return this.#outstanding > 0 && !this.#done;
  }

  /** A chunk from the sandbox. More chunks than credit, or an oversized one, is a protocol breach. */
  chunk(bytes: Uint8Array): void {
    if (this.#done) return;
    if (this.#outstanding <= 0 || bytes.byteLength > MAX_CHUNK_BYTES) {
      this.fail(new ConnectorFailedError(`The ${this.#label} sandbox broke the stream protocol (a chunk without credit or over ${MAX_CHUNK_BYTES} bytes).`));
      this.#signals.cancel();
      return;
    }
    this.#outstanding--;
    this.#controller.enqueue(bytes);
    this.#armIdle();
  }

  end(): void {
    if (!this.#finish()) return;
    this.#controller.close();
  }

  fail(error: ConnectorError): void {
    if (!this.#finish()) return;
    this.#controller.error(error);
  }

  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    clearTimeout(this.#idle);
    this.#onDone();
    return true;
  }

  #armIdle(): void {
    clearTimeout(this.#idle);
    this.#idle = undefined;
    if (this.#outstanding <= 0 || this.#done) return;
    this.#idle = setTimeout(() => {
      this.fail(new SandboxLimitError(`${this.#label}: the connector's stream produced nothing for ${this.#idleMs} ms.`, { details: { limit: 'time', module: this.#label } }));
      this.#signals.cancel();
    }, this.#idleMs);
    this.#idle.unref();
  }
}

export interface OutboundSink {
  chunk(bytes: Uint8Array): void;
  end(): void;
  error(message: string): void;
}

/** Most credit a consumer may hold; a sandbox asking for more is capped, never trusted. */
const MAX_CREDIT = STREAM_WINDOW * 4;
/** Source chunks gathered into one message at most: a source of tiny chunks always ready must not hold the event loop. */
const MAX_GATHERED_CHUNKS = 64;

/**
 * A platform stream (a write() body, a fetch response body) fed to the sandbox as credit arrives.
 * Chunks the source has ready at once (a socket read that came in pieces) are sent together, up to
 * MAX_CHUNK_BYTES: each message to the sandbox costs a hop, and a page of JSON arrives in many
 * small reads. Nothing waits for data that is not there yet: what was gathered is sent as soon as
 * the source has nothing more ready (the next turn of the event loop). Bigger chunks are split;
 * each piece costs one credit.
 */
export class OutboundPump {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #sink: OutboundSink;
  readonly #onDone: () => void;
  #credit = 0;
  #pending: Uint8Array | undefined;
  /** Chunks read and not yet moved to #pending, and their size. */
  #gathered: Uint8Array[] = [];
  #gatheredBytes = 0;
  #flushScheduled = false;
  /** The source said done; `end` follows the last byte. */
  #ended = false;
  #reading = false;
  #done = false;

  /** `granted`: credit the consumer holds from the start (a fetch response body: STREAM_WINDOW). */
  constructor(source: ReadableStream<Uint8Array>, sink: OutboundSink, onDone: () => void, granted = 0) {
    this.#reader = source.getReader();
    this.#sink = sink;
    this.#onDone = onDone;
    this.#credit = Math.min(MAX_CREDIT, granted);
    if (this.#credit > 0) this.#pump();
  }

  credit(count: number): void {
    if (this.#done || !Number.isInteger(count) || count <= 0) return;
    this.#credit = Math.min(MAX_CREDIT, this.#credit + count);
    this.#pump();
  }

  /** The consumer stopped (or the runtime went away): release the source. */
  cancel(): void {
    if (!this.#finish()) return;
    this.#reader.cancel().catch(() => undefined);
  }

  #pump(): void {
    while (this.#credit > 0 && this.#pending !== undefined && !this.#done) {
      const piece = this.#pending.subarray(0, MAX_CHUNK_BYTES);
      this.#pending = this.#pending.byteLength > MAX_CHUNK_BYTES ? this.#pending.subarray(MAX_CHUNK_BYTES) : undefined;
      this.#credit--;
      // A copy of its own: Buffer.prototype.slice would be a view, possibly into a shared pool.
      this.#sink.chunk(Uint8Array.prototype.slice.call(piece));
    }
    if (this.#done) return;
    if (this.#ended) {
      if (this.#pending === undefined && this.#gatheredBytes === 0 && this.#finish()) this.#sink.end();
      return;
    }
    if (this.#credit <= 0 || this.#reading || this.#pending !== undefined || this.#gatheredBytes >= MAX_CHUNK_BYTES || this.#gathered.length >= MAX_GATHERED_CHUNKS) return;
    this.#reading = true;
    this.#reader.read().then(
      ({ value, done }) => {
        this.#reading = false;
        if (this.#done) return;
        if (done) {
          this.#ended = true;
          this.#flush();
          return;
        }
        if (!(value instanceof Uint8Array)) {
          this.#finish();
          this.#sink.error('The platform stream carried a chunk that is not bytes.');
          this.#reader.cancel().catch(() => undefined);
          return;
        }
        if (value.byteLength > 0) {
          this.#gathered.push(value);
          this.#gatheredBytes += value.byteLength;
        }
        if (this.#gatheredBytes >= MAX_CHUNK_BYTES || this.#gathered.length >= MAX_GATHERED_CHUNKS) {
          this.#flush();
          return;
        }
        // A read the source can answer at once resolves before this, and joins the gathered bytes.
        if (!this.#flushScheduled) {
          this.#flushScheduled = true;
          setImmediate(() => {
            this.#flushScheduled = false;
            this.#flush();
          });
        }
        this.#pump();
      },
      (error: unknown) => {
        this.#reading = false;
        if (!this.#finish()) return;
        // The cause may name addresses or paths; the sandbox gets no more than the fact.
        this.#sink.error(error instanceof Error && error.name === 'AbortError' ? 'The body was aborted.' : 'The body failed.');
      },
    );
  }

  /** Moves the gathered bytes behind the pending ones and sends what the credit allows. */
  #flush(): void {
    if (this.#done) return;
    if (this.#gatheredBytes > 0) {
      const gathered = this.#gathered.length === 1 ? this.#gathered[0]! : joined(this.#gathered, this.#gatheredBytes);
      this.#pending = this.#pending === undefined ? gathered : joined([this.#pending, gathered], this.#pending.byteLength + gathered.byteLength);
      this.#gathered = [];
      this.#gatheredBytes = 0;
    }
    this.#pump();
  }

  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.#onDone();
    return true;
  }
}

/** The chunks in one Uint8Array of its own (never a view of Buffer's shared pool). */
function joined(chunks: readonly Uint8Array[], size: number): Uint8Array {
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
