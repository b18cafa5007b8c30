/**
 * The wire between the platform and the sandbox process, and between the sandbox process and the
 * prelude inside each QuickJS runtime. Both hops use the same small vocabulary so the child relays
 * most messages without parsing them.
 *
 * A message is `{ i, op, id, j?, b? }`: `i` the instance (one loaded connector module), `op` what
 * happened, `id` the call, fetch, stream or timer it concerns, `j` a JSON text our code made, `b`
 * bytes our code copied. Messages travel in arrays (one IPC send per batch).
 *
 * Streams (read results, write bodies, fetch bodies) are credit-based: the consumer grants `credit`
 * in chunks, the producer sends at most that many `chunk`s (each at most MAX_CHUNK_BYTES), then
 * `end` or `error`; the consumer may `cancel`. A fetch response body starts with STREAM_WINDOW
 * chunks of credit already granted (the prelude would grant them as soon as it saw the head), so
 * its first chunks follow the head without a round trip. Stream ids are allocated by the producing
 * side; the op tells which side's table an id belongs to, so the two numberings never collide.
 *
 * Everything the child sends is untrusted input to the platform: a process that QuickJS was
 * escaped in could send anything, so the platform checks every field.
 */

export interface WireMessage {
  /** Instance id; 0 for process-level messages. */
  readonly i: number;
  readonly op: WireOp;
  /** Call, fetch, stream or timer id. */
  readonly id: number;
  /** A JSON text. */
  readonly j?: string;
  /** Bytes (a copy). */
  readonly b?: Uint8Array;
}

/** Platform → child. */
export type PlatformOp =
  | 'load' // j: LoadSpec
  | 'call' // id: call id; j: CallSpec
  | 'dispose'
  | 'fetchHead' // id: fetch id; j: FetchHead
  | 'fetchError'; // id: fetch id; j: FetchFailure

/** Child → platform. */
export type ChildOp =
  | 'result' // id: call id; j: CallOutcome, or b: a successful outcome's value in QuickJS's binary form (binary-json.ts)
  | 'fetch' // id: fetch id; j: FetchAsk; b: inline body
  | 'fetchAbort' // id: fetch id
  | 'log' // id: LOG_LEVELS index; j: the line (a JSON string)
  | 'event' // id: watch call id; j: the emitted event
  | 'reset'; // j: RuntimeReset — the runtime was discarded (limit, crash); fetches and streams of the instance are void

/** Either way. */
export type StreamOp = 'chunk' | 'end' | 'error' | 'credit' | 'cancel';

/**
 * Between the sandbox process and the prelude only. `resultEncoded`: the call's result is the
 * value the prelude last handed to `host.encodeResult` (the sandbox process sends it on as `result`).
 */
export type PreludeOp = 'timer' | 'clearTimer' | 'resultEncoded';

export type WireOp = PlatformOp | ChildOp | StreamOp | PreludeOp;

/** What a limit breach names. `crash`: the runtime failed in a way that is not a limit (a QuickJS abort). */
export type SandboxLimitKind = 'time' | 'memory' | 'stack' | 'crash';

export interface LoadSpec {
  readonly source: string;
  /** Shown in QuickJS stack traces; never a host path. */
  readonly filename: string;
  readonly config: unknown;
  readonly memoryBytes: number;
  readonly stackBytes: number;
  readonly loadTimeoutMs: number;
  /**
   * Whether a listing being paged through is read one page ahead (see READ_AHEAD in runtime.ts):
   * once a list() call continues the listing from the cursor the previous page returned, the
   * sandbox process runs list() for the next cursor as soon as that page is done.
   */
  readonly listReadAhead: boolean;
}

/** The host Connector methods a call may name, plus `init` (createConnector) and `unwatch`. */
export type CallMethod = 'init' | 'describe' | 'list' | 'stat' | 'read' | 'write' | 'delete' | 'watch' | 'unwatch' | 'webhook';

export interface CallSpec {
  readonly method: CallMethod;
  readonly args: readonly unknown[];
  /** For write: the id of the inbound stream carrying the body. */
  readonly body?: number;
  readonly timeoutMs: number;
}

/** What a module's failure carries across; every field is untrusted text. */
export interface ModuleErrorInfo {
  readonly name?: string;
  readonly message?: string;
  readonly code?: string;
}

export type CallOutcome =
  | { readonly ok: true; readonly value?: unknown; readonly stream?: number }
  | { readonly ok: false; readonly error: ModuleErrorInfo; readonly limit?: SandboxLimitKind };

export interface FetchAsk {
  readonly url: string;
  readonly method: string;
  readonly headers: readonly (readonly [string, string])[];
  /** `bytes`: the body is in `b`; a number: the id of the outbound stream carrying it. */
  readonly body?: 'bytes' | number;
}

export interface FetchHead {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  /** The inbound stream id of the response body, or null for none. */
  readonly body: number | null;
}

export interface FetchFailure {
  readonly message: string;
  /** An EgressFailure name when the gate said why. */
  readonly failure?: string;
  readonly origin?: string;
}

export interface RuntimeReset {
  readonly limit: SandboxLimitKind;
  readonly message: string;
}

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Largest chunk either side sends; bigger chunks are split. */
export const MAX_CHUNK_BYTES = 256 * 1024;

/** Chunks a consumer keeps granted ahead of what it has taken (so at most 2 MiB in flight per stream). */
export const STREAM_WINDOW = 8;

/** Longest console line relayed; longer lines are cut. */
export const MAX_LOG_LINE = 4096;
