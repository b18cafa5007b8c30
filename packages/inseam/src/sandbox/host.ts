/**
 * SandboxHost: the platform's side of the sandbox. It forks one sandbox process (an empty
 * environment: no INSEAM_*, no AWS_*, no credential of any kind), loads connector modules into it,
 * multiplexes calls, answers the modules' `fetch` through each module's own EgressPort (the gate),
 * and plumbs bodies both ways with credit-based flow control.
 *
 * Failure model. A limit breach fails the call with `sandbox_limit`; a module error fails it with
 * the module's passthrough code or `connector_failed`; both are logged. If the sandbox process
 * dies (or a call outlives its deadline by a grace period, and the process is killed for it),
 * every call in flight fails — `connector_failed` with `details.reason` `sandbox_exited`, or
 * `sandbox_limit` for the overdue call — and the next call starts a fresh process and reloads its
 * module (createConnector runs again, so connectors must not rely on state across calls). More
 * than `maxRestarts` deaths within `restartWindowMs` make calls fail with `unavailable` until the
 * window passes.
 *
 * Everything the sandbox process sends is checked as untrusted input.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isEgressError, validateDescription, type ChangeEvent, type Description, type EgressMethod, type EgressPort, type EgressResponse } from '@inseam/connector';
import {
  ConnectorFailedError,
  EgressRefusedError,
  InvalidArgumentError,
  SandboxLimitError,
  UnavailableError,
  isConnectorError,
  type ConnectorError,
} from '@neuralis/package-system/contracts';
import { LOG_LEVELS, MAX_CHUNK_BYTES, STREAM_WINDOW, type CallMethod, type CallSpec, type FetchAsk, type FetchFailure, type FetchHead, type LoadSpec, type LogLevel, type ModuleErrorInfo, type RuntimeReset, type SandboxLimitKind, type WireMessage } from './protocol.js';
import { decodeBinaryJson } from './binary-json.js';
import { callError, moduleText, parseUntrustedJson, readChangeEvent } from './results.js';
import { SandboxedConnector, type ModuleCalls } from './sandboxed-connector.js';
import { InboundStream, OutboundPump } from './wire-streams.js';

export interface SandboxLimits {
  /**
   * The whole WebAssembly memory of one module's runtime, QuickJS's own 16 MiB included; at least
   * 32 MiB. Growth past it fails as "out of memory" (a `sandbox_limit` memory when uncaught).
   */
  readonly memoryBytes: number;
  /** QuickJS stack limit per module (deeper recursion fails with `sandbox_limit` stack). */
  readonly stackBytes: number;
  /** Deadline of one call, awaited promises included; also the idle limit of a body stream. */
  readonly callTimeoutMs: number;
  /** Deadline for evaluating the module and running createConnector. */
  readonly loadTimeoutMs: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = Object.freeze({
  memoryBytes: 128 * 1024 * 1024,
  stackBytes: 256 * 1024,
  callTimeoutMs: 30_000,
  loadTimeoutMs: 10_000,
});

export interface SandboxLogRecord {
  readonly level: LogLevel;
  /** `console`: the module's own console; `sandbox`: the platform about the module (limits, crashes, restarts). */
  readonly origin: 'console' | 'sandbox';
  /** The module's label; empty for process-level records. */
  readonly module: string;
  readonly message: string;
  /** The error code, for records about a failed call. */
  readonly code?: string;
}

export type SandboxLogSink = (record: SandboxLogRecord) => void;

export interface SandboxHostOptions {
  /** Defaults for every module; a module's own limits override them. */
  readonly limits?: Partial<SandboxLimits>;
  readonly log?: SandboxLogSink;
  /** Process deaths tolerated within `restartWindowMs` before calls fail with `unavailable`. Default 5. */
  readonly maxRestarts?: number;
  /** Default 60 000. */
  readonly restartWindowMs?: number;
  /**
   * Read listings one page ahead (default true). Once a caller continues a listing with the cursor
   * its previous page returned, the sandbox process runs list() for the next page's cursor as soon
   * as the current page is sent, so the module works while the platform checks the page; the page
   * is answered from there when the caller asks for exactly that cursor next (same prefix, since
   * and order) within 10 s, and discarded otherwise. It costs at most one list() call the caller
   * never asked for at the end of a listing it stops paging through (for a module that fetches:
   * one request more). False: every list() runs when it is asked for.
   */
  readonly listReadAhead?: boolean;
}

export interface SandboxModuleSpec {
  /** The module's text: one ES module, no imports. */
  readonly source: string;
  /** Names the module in messages and logs (a kind or host slug); never a path. */
  readonly label: string;
  /** Handed to createConnector(config); must be JSON. */
  readonly config?: unknown;
  /** Where the module's fetches go: the gate for this host. */
  readonly egress: EgressPort;
  readonly limits?: Partial<SandboxLimits>;
}

/** A call still overdue this long after its deadline means the sandbox process is stuck: it is killed. */
const BACKSTOP_GRACE_MS = 5_000;
const MAX_FETCHES_PER_MODULE = 32;
const MAX_REFUSALS_KEPT = 16;
const LABEL = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const EGRESS_METHODS: ReadonlySet<string> = new Set([
  'GET', 'HEAD', 'PUT', 'POST', 'DELETE', 'PATCH', 'OPTIONS',
  'PROPFIND', 'PROPPATCH', 'MKCOL', 'COPY', 'MOVE', 'LOCK', 'UNLOCK', 'REPORT', 'SEARCH',
]);
const LIMIT_KINDS: ReadonlySet<string> = new Set(['time', 'memory', 'stack', 'crash']);

interface CallValue {
  readonly value?: unknown;
  readonly stream?: ReadableStream<Uint8Array>;
}

interface PendingCall {
  readonly method: CallMethod;
  readonly startedAt: number;
  readonly generation: number;
  readonly resolve: (value: CallValue) => void;
  readonly reject: (error: ConnectorError) => void;
  readonly backstop: NodeJS.Timeout;
  readonly body?: number;
  overdue: boolean;
}

interface Instance {
  readonly id: number;
  readonly label: string;
  readonly loadText: string;
  readonly limits: SandboxLimits;
  readonly egress: EgressPort;
  loadedIn: number;
  disposed: boolean;
  /** The kind describe() declared, once validated: errors name it (the label is a file name). */
  kind: string | undefined;
  readonly calls: Map<number, PendingCall>;
  readonly fetches: Map<number, AbortController>;
  readonly inbound: Map<number, InboundStream>;
  readonly outbound: Map<number, OutboundPump>;
  readonly watches: Map<number, (event: ChangeEvent) => void>;
  readonly refusals: { readonly origin: string; readonly reason: string; readonly at: number }[];
}

export class SandboxHost {
  readonly #limits: SandboxLimits;
  readonly #log: SandboxLogSink;
  readonly #maxRestarts: number;
  readonly #restartWindowMs: number;
  readonly #listReadAhead: boolean;
  readonly #instances = new Map<number, Instance>();
  #child: ChildProcess | undefined;
  #generation = 0;
  #exits: number[] = [];
  #outbox: WireMessage[] = [];
  #flushScheduled = false;
  #ids = 0;
  #closed = false;

  constructor(options: SandboxHostOptions = {}) {
    this.#limits = resolveLimits(DEFAULT_SANDBOX_LIMITS, options.limits);
    this.#log = options.log ?? (() => undefined);
    this.#maxRestarts = options.maxRestarts ?? 5;
    this.#restartWindowMs = options.restartWindowMs ?? 60_000;
    this.#listReadAhead = options.listReadAhead ?? true;
  }

  /** The sandbox process's pid, while one runs. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /**
   * Loads a module, runs createConnector(config) and describe(), and validates the description.
   * Throws `invalid_argument` (bad spec or config that is not JSON), `description_invalid`,
   * `sandbox_limit`, `connector_failed` (the module failed to load or createConnector threw) or
   * `unavailable` (the sandbox process keeps dying, or the host is closed).
   */
  async load(spec: SandboxModuleSpec): Promise<SandboxedConnector> {
    if (this.#closed) throw new UnavailableError('The sandbox host is closed.');
    const instance = this.#createInstance(spec);
    const calls = this.#callsFor(instance);
    try {
      const raw = (await this.#call(instance, 'describe', [])).value;
      const description: Description = validateDescription(raw);
      instance.kind = description.kind;
      return new SandboxedConnector(instance.label, description, calls);
    } catch (error) {
      this.#dispose(instance);
      throw error;
    }
  }

  /** Unloads every module and stops the sandbox process. Pending calls fail with `unavailable`. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const instance of [...this.#instances.values()]) this.#dispose(instance);
    const child = this.#child;
    this.#child = undefined;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      // Held until it is gone, so whoever awaits close() is not left with an empty event loop.
      child.ref();
      child.kill('SIGKILL');
    });
  }

  #createInstance(spec: SandboxModuleSpec): Instance {
    if (typeof spec !== 'object' || spec === null) throw new InvalidArgumentError('A sandbox module spec must be an object.');
    if (typeof spec.source !== 'string' || spec.source.trim() === '') throw new InvalidArgumentError('The module source must be non-empty text.');
    if (typeof spec.label !== 'string' || !LABEL.test(spec.label)) {
      throw new InvalidArgumentError('The module label must be 1–128 characters of letters, digits, ".", "_", ":", "/" and "-".');
    }
    if (typeof spec.egress?.fetch !== 'function') throw new InvalidArgumentError('The module spec needs an egress port (the gate for its host).');
    let config: unknown;
    try {
      config = JSON.parse(JSON.stringify(spec.config ?? {})) as unknown;
    } catch {
      throw new InvalidArgumentError('The connector config must be JSON data.');
    }
    const limits = resolveLimits(this.#limits, spec.limits);
    const load: LoadSpec = {
      source: spec.source,
      filename: `${spec.label.replace(/[^A-Za-z0-9._-]/g, '_')}.js`,
      config,
      memoryBytes: limits.memoryBytes,
      stackBytes: limits.stackBytes,
      loadTimeoutMs: limits.loadTimeoutMs,
      listReadAhead: this.#listReadAhead,
    };
    const instance: Instance = {
      id: ++this.#ids,
      label: spec.label,
      loadText: JSON.stringify(load),
      limits,
      egress: spec.egress,
      loadedIn: 0,
      disposed: false,
      kind: undefined,
      calls: new Map(),
      fetches: new Map(),
      inbound: new Map(),
      outbound: new Map(),
      watches: new Map(),
      refusals: [],
    };
    this.#instances.set(instance.id, instance);
    return instance;
  }

  #callsFor(instance: Instance): ModuleCalls {
    return {
      call: async (method, args, body) => this.#call(instance, method, args, body),
      watch: async (emit) => {
        const id = this.#nextId();
        instance.watches.set(id, emit);
        try {
          await this.#call(instance, 'watch', [], undefined, id);
        } catch (error) {
          instance.watches.delete(id);
          throw error;
        }
        return async () => {
          if (!instance.watches.delete(id)) return;
          await this.#call(instance, 'unwatch', [id]);
        };
      },
      dispose: () => this.#dispose(instance),
    };
  }

  #nextId(): number {
    return ++this.#ids;
  }

  async #call(instance: Instance, method: CallMethod, args: readonly unknown[], body?: ReadableStream<Uint8Array>, presetId?: number): Promise<CallValue> {
    if (instance.disposed || this.#closed) throw new UnavailableError(`The ${instance.label} connector was unloaded.`);
    const generation = this.#ensureChild();
    if (instance.loadedIn !== generation) {
      this.#send({ i: instance.id, op: 'load', id: 0, j: instance.loadText });
      instance.loadedIn = generation;
    }
    const id = presetId ?? this.#nextId();
    const bodyId = body === undefined ? undefined : this.#nextId();
    const timeoutMs = instance.limits.callTimeoutMs;
    const spec: CallSpec = { method, args, timeoutMs, ...(bodyId === undefined ? {} : { body: bodyId }) };
    let text: string;
    try {
      text = JSON.stringify(spec);
    } catch {
      throw new InvalidArgumentError(`The arguments of ${method}() must be JSON data.`);
    }
    if (body !== undefined && bodyId !== undefined) this.#openOutbound(instance, body, bodyId);
    return new Promise<CallValue>((resolve, reject) => {
      const pending: PendingCall = {
        method,
        startedAt: Date.now(),
        generation,
        resolve,
        reject,
        overdue: false,
        ...(bodyId === undefined ? {} : { body: bodyId }),
        backstop: setTimeout(() => {
          pending.overdue = true;
          this.#record('error', instance.label, `${method}() outlived its deadline in a sandbox process that did not stop it; the process is being restarted.`, 'sandbox_limit');
          this.#child?.kill('SIGKILL');
        }, instance.limits.loadTimeoutMs + timeoutMs + BACKSTOP_GRACE_MS),
      };
      instance.calls.set(id, pending);
      this.#updateRef();
      this.#send({ i: instance.id, op: 'call', id, j: text });
    });
  }

  #ensureChild(): number {
    if (this.#child !== undefined) return this.#generation;
    const now = Date.now();
    this.#exits = this.#exits.filter((at) => now - at < this.#restartWindowMs);
    if (this.#exits.length > this.#maxRestarts) {
      throw new UnavailableError(`The sandbox process stopped ${this.#exits.length} times in the last ${Math.round(this.#restartWindowMs / 1000)} s; it is held down for now. Try again later.`);
    }
    const generation = ++this.#generation;
    const child = spawnSandbox();
    this.#child = child;
    child.on('message', (batch: unknown) => this.#onBatch(generation, batch));
    child.once('exit', (code, signal) => this.#onExit(generation, code, signal));
    child.on('error', () => {
      // A failed spawn or send; the exit handler (or the next call) deals with the process.
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    return generation;
  }

  #send(message: WireMessage): void {
    this.#outbox.push(message);
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    this.#flushScheduled = false;
    const batch = this.#outbox;
    this.#outbox = [];
    const child = this.#child;
    if (batch.length === 0 || child === undefined || !child.connected) return;
    child.send(batch, (error) => {
      if (error !== null && error !== undefined && child.exitCode === null) child.kill('SIGKILL');
    });
  }

  /**
   * Keeps the platform's event loop alive only while it waits on the sandbox: a call, a fetch the
   * gate is answering, a body stream it is reading, or a watch.
   */
  #updateRef(): void {
    const child = this.#child;
    if (child === undefined) return;
    const busy = [...this.#instances.values()].some(
      (instance) => instance.calls.size > 0 || instance.fetches.size > 0 || instance.watches.size > 0 || [...instance.inbound.values()].some((stream) => stream.waiting),
    );
    const channel = child.channel as { ref?: () => void; unref?: () => void } | null | undefined;
    if (busy) {
      child.ref();
      channel?.ref?.();
    } else {
      child.unref();
      channel?.unref?.();
    }
  }

  #onBatch(generation: number, batch: unknown): void {
    if (generation !== this.#generation || !Array.isArray(batch)) return;
    for (const raw of batch) {
      const message = wireMessage(raw);
      if (message === undefined) continue;
      const instance = this.#instances.get(message.i);
      if (instance === undefined || instance.disposed) continue;
      try {
        this.#onMessage(instance, message);
      } catch (error) {
        this.#record('error', instance.label, `A message from the sandbox was refused: ${error instanceof Error ? error.message : 'unreadable'}`);
      }
    }
    this.#updateRef();
  }

  #onMessage(instance: Instance, message: WireMessage): void {
    switch (message.op) {
      case 'result':
        this.#onResult(instance, message.id, message.j ?? '', message.b);
        return;
      case 'fetch':
        this.#onFetch(instance, message.id, message.j ?? '', message.b);
        return;
      case 'fetchAbort':
        instance.fetches.get(message.id)?.abort();
        instance.fetches.delete(message.id);
        return;
      case 'chunk':
        instance.inbound.get(message.id)?.chunk(message.b ?? new Uint8Array(0));
        return;
      case 'end':
        instance.inbound.get(message.id)?.end();
        return;
      case 'error':
        instance.inbound.get(message.id)?.fail(new ConnectorFailedError(`The ${instance.label} connector's stream failed: ${moduleText(stringOf(message.j))}`));
        return;
      case 'credit':
        instance.outbound.get(message.id)?.credit(Number(message.j));
        return;
      case 'cancel':
        instance.outbound.get(message.id)?.cancel();
        return;
      case 'log':
        this.#record(LOG_LEVELS[message.id] ?? 'info', instance.label, moduleText(stringOf(message.j)), undefined, 'console');
        return;
      case 'event':
        this.#onEvent(instance, message.id, message.j ?? '');
        return;
      case 'reset':
        this.#onReset(instance, message.j ?? '');
        return;
      default:
    }
  }

  /** `bytes`: a successful outcome's value in QuickJS's binary form (list and webhook results); otherwise `text` is the outcome. */
  #onResult(instance: Instance, id: number, text: string, bytes: Uint8Array | undefined): void {
    const call = instance.calls.get(id);
    if (call === undefined) return;
    instance.calls.delete(id);
    clearTimeout(call.backstop);
    if (call.body !== undefined) instance.outbound.get(call.body)?.cancel();
    if (bytes !== undefined) {
      // Decoded on the next turn: a page is the heaviest message the sandbox sends, and its batch
      // may carry the request for the page after it (ModuleInstance #pageOut), which is then
      // dispatched first. The call is out of the table already, so a reset later in the batch
      // does not fail it.
      setImmediate(() => {
        const value = decodeBinaryJson(bytes);
        this.#conclude(instance, call, value === undefined ? undefined : { ok: true, value });
      });
      return;
    }
    let outcome: unknown;
    try {
      outcome = parseUntrustedJson(text);
    } catch {
      outcome = undefined;
    }
    this.#conclude(instance, call, outcome);
  }

  /** A call's outcome as read from the sandbox: untrusted until checked here. */
  #conclude(instance: Instance, call: PendingCall, outcome: unknown): void {
    if (typeof outcome !== 'object' || outcome === null || typeof (outcome as { ok?: unknown }).ok !== 'boolean') {
      this.#fail(instance, call, new ConnectorFailedError(`The ${instance.label} connector's ${call.method}() produced no readable result.`));
      return;
    }
    const record = outcome as Record<string, unknown>;
    if (record['ok'] === true) {
      if (call.method !== 'read') {
        call.resolve({ value: record['value'] });
        return;
      }
      const streamId = record['stream'];
      if (typeof streamId !== 'number' || !Number.isSafeInteger(streamId) || instance.inbound.has(streamId)) {
        this.#fail(instance, call, new ConnectorFailedError(`The ${instance.label} connector's read() produced no stream.`));
        return;
      }
      call.resolve({ stream: this.#openInbound(instance, streamId) });
      return;
    }
    const error = errorInfo(record['error']);
    const limit = typeof record['limit'] === 'string' && LIMIT_KINDS.has(record['limit']) ? (record['limit'] as SandboxLimitKind) : undefined;
    if (limit === undefined && error.code === 'egress_refused') {
      const refusal = instance.refusals.find((r) => r.at >= call.startedAt);
      if (refusal !== undefined) {
        this.#fail(instance, call, new EgressRefusedError(refusal.origin, refusal.reason));
        return;
      }
    }
    this.#fail(instance, call, callError(instance.label, call.method, error, limit, instance.kind));
  }

  #fail(instance: Instance, call: PendingCall, error: ConnectorError): void {
    const level: LogLevel = error.code === 'sandbox_limit' || error.code === 'connector_failed' ? 'error' : 'info';
    this.#record(level, instance.label, `${call.method}() failed: ${error.message}`, error.code);
    call.reject(error);
  }

  #openInbound(instance: Instance, id: number): ReadableStream<Uint8Array> {
    const stream = new InboundStream(
      instance.label,
      {
        credit: (count) => {
          this.#send({ i: instance.id, op: 'credit', id, j: String(count) });
          this.#updateRef();
        },
        cancel: () => this.#send({ i: instance.id, op: 'cancel', id }),
      },
      instance.limits.callTimeoutMs,
      () => instance.inbound.delete(id),
    );
    instance.inbound.set(id, stream);
    return stream.stream;
  }

  /** `granted`: chunks the sandbox side counts as granted from the start (see protocol.ts). */
  #openOutbound(instance: Instance, source: ReadableStream<Uint8Array>, id = this.#nextId(), granted = 0): number {
    const pump = new OutboundPump(
      source,
      {
        chunk: (bytes) => this.#send({ i: instance.id, op: 'chunk', id, b: bytes }),
        end: () => this.#send({ i: instance.id, op: 'end', id }),
        error: (message) => this.#send({ i: instance.id, op: 'error', id, j: JSON.stringify(message) }),
      },
      () => instance.outbound.delete(id),
      granted,
    );
    instance.outbound.set(id, pump);
    return id;
  }

  #onFetch(instance: Instance, id: number, text: string, bytes: Uint8Array | undefined): void {
    const refuse = (failure: FetchFailure): void => this.#send({ i: instance.id, op: 'fetchError', id, j: JSON.stringify(failure) });
    if (instance.fetches.has(id)) return;
    if (instance.fetches.size >= MAX_FETCHES_PER_MODULE) {
      refuse({ message: `at most ${MAX_FETCHES_PER_MODULE} requests may be in flight at once.` });
      return;
    }
    let ask: FetchAsk;
    try {
      ask = readFetchAsk(parseUntrustedJson(text));
    } catch (error) {
      refuse({ message: error instanceof Error ? error.message : 'the request is malformed.', failure: 'invalid_request' });
      return;
    }
    const controller = new AbortController();
    instance.fetches.set(id, controller);
    let body: ReadableStream<Uint8Array> | Uint8Array | undefined;
    if (ask.body === 'bytes') body = bytes ?? new Uint8Array(0);
    else if (typeof ask.body === 'number') body = this.#openInbound(instance, ask.body);
    const headers = new Map<string, string>();
    for (const [name, value] of ask.headers) {
      const key = name.toLowerCase();
      const prior = headers.get(key);
      headers.set(key, prior === undefined ? value : `${prior}, ${value}`);
    }
    let answer: Promise<EgressResponse>;
    try {
      answer = instance.egress.fetch({
        method: ask.method as EgressMethod,
        url: ask.url,
        headers: Object.fromEntries(headers),
        ...(body === undefined ? {} : { body }),
        signal: controller.signal,
      });
    } catch (error) {
      answer = Promise.reject(error instanceof Error ? error : new Error('The egress port failed.'));
    }
    answer.then(
      (response) => {
        if (instance.fetches.get(id) !== controller) {
          response.body?.cancel().catch(() => undefined);
          return;
        }
        instance.fetches.delete(id);
        const head: FetchHead = {
          status: response.status,
          headers: Object.entries(response.headers),
          body: response.body === null ? null : this.#openOutbound(instance, response.body, undefined, STREAM_WINDOW),
        };
        this.#send({ i: instance.id, op: 'fetchHead', id, j: JSON.stringify(head) });
      },
      (error: unknown) => {
        if (instance.fetches.get(id) !== controller) return;
        instance.fetches.delete(id);
        if (isEgressError(error)) {
          if (error.failure === 'origin_refused') {
            instance.refusals.push({ origin: error.origin, reason: error.failure, at: Date.now() });
            if (instance.refusals.length > MAX_REFUSALS_KEPT) instance.refusals.shift();
          }
          refuse({ message: error.message, failure: error.failure, origin: error.origin });
          return;
        }
        if (isConnectorError(error) && error.code === 'egress_refused') {
          const origin = typeof error.details['origin'] === 'string' ? error.details['origin'] : '';
          instance.refusals.push({ origin, reason: String(error.details['reason'] ?? 'refused'), at: Date.now() });
          if (instance.refusals.length > MAX_REFUSALS_KEPT) instance.refusals.shift();
          refuse({ message: error.message, failure: 'origin_refused', origin });
          return;
        }
        refuse({ message: 'the request got no answer.', failure: 'unreachable' });
      },
    );
  }

  #onEvent(instance: Instance, watchId: number, text: string): void {
    const emit = instance.watches.get(watchId);
    if (emit === undefined) return;
    try {
      emit(readChangeEvent(parseUntrustedJson(text), 'watch', 'the emitted event'));
    } catch (error) {
      this.#record('warn', instance.label, `A watch event was dropped: ${error instanceof Error ? error.message : 'unreadable'}`);
    }
  }

  #onReset(instance: Instance, text: string): void {
    let reset: Partial<RuntimeReset>;
    try {
      reset = parseUntrustedJson(text) as Partial<RuntimeReset>;
    } catch {
      reset = {};
    }
    const limit = typeof reset.limit === 'string' && LIMIT_KINDS.has(reset.limit) ? reset.limit : 'crash';
    const message = moduleText(typeof reset.message === 'string' ? reset.message : '');
    this.#record('error', instance.label, `The runtime was discarded (${limit}): ${message}`, 'sandbox_limit');
    this.#voidInstance(instance, new SandboxLimitError(`${instance.label}: the runtime was discarded (${limit}).`, { details: { limit, module: instance.label } }));
  }

  /** Fetches, bodies and watches of a runtime that is gone. Watchers get a rescan, then nothing. */
  #voidInstance(instance: Instance, error: ConnectorError): void {
    for (const controller of instance.fetches.values()) controller.abort();
    instance.fetches.clear();
    for (const stream of [...instance.inbound.values()]) stream.fail(error);
    for (const pump of [...instance.outbound.values()]) pump.cancel();
    const watchers = [...instance.watches.values()];
    instance.watches.clear();
    for (const emit of watchers) {
      try {
        emit({ type: 'rescan', path: '' });
      } catch {
        // A watcher's own failure is its business.
      }
    }
  }

  #onExit(generation: number, code: number | null, signal: NodeJS.Signals | null): void {
    if (generation !== this.#generation) return;
    this.#child = undefined;
    if (this.#closed) return;
    this.#exits.push(Date.now());
    this.#record('error', '', `The sandbox process stopped (${signal ?? `exit code ${String(code)}`}); it restarts on the next call.`);
    for (const instance of this.#instances.values()) {
      instance.loadedIn = 0;
      for (const [id, call] of instance.calls) {
        if (call.generation !== generation) continue;
        instance.calls.delete(id);
        clearTimeout(call.backstop);
        this.#fail(
          instance,
          call,
          call.overdue
            ? new SandboxLimitError(`${instance.label}: ${call.method}() ran past its deadline and the sandbox process was restarted.`, { details: { limit: 'time', module: instance.label, method: call.method } })
            : new ConnectorFailedError(`The sandbox process stopped during ${instance.label}'s ${call.method}(); it restarts on the next call.`, {
                details: { reason: 'sandbox_exited', module: instance.label, method: call.method },
              }),
        );
      }
      this.#voidInstance(instance, new ConnectorFailedError(`The sandbox process stopped; ${instance.label}'s stream was cut.`, { details: { reason: 'sandbox_exited' } }));
    }
  }

  #dispose(instance: Instance): void {
    if (instance.disposed) return;
    instance.disposed = true;
    this.#instances.delete(instance.id);
    for (const call of instance.calls.values()) {
      clearTimeout(call.backstop);
      call.reject(new UnavailableError(`The ${instance.label} connector was unloaded during ${call.method}().`));
    }
    instance.calls.clear();
    this.#voidInstance(instance, new UnavailableError(`The ${instance.label} connector was unloaded.`));
    if (instance.loadedIn === this.#generation && this.#child !== undefined) this.#send({ i: instance.id, op: 'dispose', id: 0 });
    this.#updateRef();
  }

  #record(level: LogLevel, module: string, message: string, code?: string, origin: 'console' | 'sandbox' = 'sandbox'): void {
    try {
      this.#log({ level, origin, module, message, ...(code === undefined ? {} : { code }) });
    } catch {
      // A failing log sink must not take the platform down.
    }
  }
}

/**
 * Forks the sandbox process with an environment of TZ=UTC only. From TypeScript sources (tests,
 * development) the child's .ts files are compiled on load by source-hooks.mjs; a built package
 * runs dist/sandbox/child.js directly.
 */
function spawnSandbox(): ChildProcess {
  const here = import.meta.url;
  const fromSource = here.endsWith('.ts');
  const entry = fileURLToPath(new URL(fromSource ? './child.ts' : './child.js', here));
  const hooks = new URL('./source-hooks.mjs', here).href;
  const execArgv = fromSource ? ['--import', `data:text/javascript,import{register}from'node:module';register(${JSON.stringify(hooks)});`] : [];
  return fork(entry, [], {
    // Nothing of the platform's environment; TZ=UTC so a module's local-time Date methods answer
    // in UTC on every deployment instead of telling it the host's time zone.
    env: { TZ: 'UTC' },
    execArgv,
    cwd: dirname(entry),
    serialization: 'advanced',
    stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
  });
}

function resolveLimits(base: SandboxLimits, override: Partial<SandboxLimits> | undefined): SandboxLimits {
  const limits = { ...base, ...(override ?? {}) };
  for (const key of ['memoryBytes', 'stackBytes', 'callTimeoutMs', 'loadTimeoutMs'] as const) {
    const value = limits[key];
    if (!Number.isSafeInteger(value) || value <= 0) throw new InvalidArgumentError(`The sandbox limit ${key} must be a positive integer.`);
  }
  if (limits.memoryBytes < 32 * 1024 * 1024) throw new InvalidArgumentError('The sandbox limit memoryBytes must be at least 32 MiB.');
  return Object.freeze(limits);
}

function stringOf(json: string | undefined): string {
  try {
    const value: unknown = JSON.parse(json ?? '""');
    return typeof value === 'string' ? value : '';
  } catch {
    return '';
  }
}

function wireMessage(raw: unknown): WireMessage | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined;
  const { i, op, id, j, b } = raw as Record<string, unknown>;
  if (typeof i !== 'number' || typeof op !== 'string' || typeof id !== 'number' || !Number.isFinite(id)) return undefined;
  if (j !== undefined && typeof j !== 'string') return undefined;
  if (b !== undefined && !(b instanceof Uint8Array)) return undefined;
  // Stream chunks are bounded; an inline request body and a binary result are as large as they are.
  if (b !== undefined && b.byteLength > MAX_CHUNK_BYTES && op !== 'fetch' && op !== 'result') return undefined;
  return { i, op: op as WireMessage['op'], id, ...(j === undefined ? {} : { j }), ...(b === undefined ? {} : { b }) };
}

function errorInfo(value: unknown): ModuleErrorInfo {
  if (typeof value !== 'object' || value === null) return {};
  const { name, message, code } = value as Record<string, unknown>;
  return {
    ...(typeof name === 'string' ? { name } : {}),
    ...(typeof message === 'string' ? { message } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  };
}

function readFetchAsk(value: unknown): FetchAsk {
  if (typeof value !== 'object' || value === null) throw new TypeError('the request is malformed.');
  const { url, method, headers, body } = value as Record<string, unknown>;
  if (typeof url !== 'string') throw new TypeError('the request has no URL.');
  if (typeof method !== 'string' || !EGRESS_METHODS.has(method)) {
    throw new TypeError(`the method ${typeof method === 'string' ? method.slice(0, 20) : ''} is not one the egress gate sends (GET, HEAD, PUT, POST, DELETE, PATCH, OPTIONS and the WebDAV methods PROPFIND, PROPPATCH, MKCOL, COPY, MOVE, LOCK, UNLOCK, REPORT, SEARCH).`);
  }
  if (!Array.isArray(headers)) throw new TypeError('the request headers are malformed.');
  const pairs: [string, string][] = [];
  for (const pair of headers) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') throw new TypeError('the request headers are malformed.');
    if (!HEADER_NAME.test(pair[0]) || /[\0\r\n]/.test(pair[1])) throw new TypeError('a request header name or value is not allowed.');
    pairs.push([pair[0], pair[1]]);
  }
  if (body !== undefined && body !== 'bytes' && !(typeof body === 'number' && Number.isSafeInteger(body))) throw new TypeError('the request body is malformed.');
  return { url, method, headers: pairs, ...(body === undefined ? {} : { body }) };
}
