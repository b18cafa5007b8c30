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

/**
 * A platform stream (a write() body, a fetch response body) fed to the sandbox as credit arrives.
 * Chunks bigger than MAX_CHUNK_BYTES are split; each piece costs one credit.
 */
export class OutboundPump {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #sink: OutboundSink;
  readonly #onDone: () => void;
  #credit = 0;
  #pending: Uint8Array | undefined;
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
      this.#sink.chunk(piece.slice());
    }
    if (this.#credit <= 0 || this.#reading || this.#done || this.#pending !== undefined) return;
    this.#reading = true;
    this.#reader.read().then(
      ({ value, done }) => {
        this.#reading = false;
        if (this.#done) return;
        if (done) {
          this.#finish();
          this.#sink.end();
          return;
        }
        if (!(value instanceof Uint8Array)) {
          this.#finish();
          this.#sink.error('The platform stream carried a chunk that is not bytes.');
          this.#reader.cancel().catch(() => undefined);
          return;
        }
        if (value.byteLength > 0) this.#pending = value;
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

  #finish(): boolean {
    if (this.#done) return false;
    this.#done = true;
    this.#onDone();
    return true;
  }
}
