/**
 * One connector module inside the sandbox process: its own QuickJS WebAssembly module (a heap of
 * its own), runtime and context, the prelude, and the module. Runs in the sandbox process only.
 *
 * Limits. The runtime's WebAssembly memory has a fixed maximum (the memory limit) and QuickJS a
 * stack limit; an interrupt handler stops synchronous
 * code at the earliest deadline of the calls in flight (or one slice when none is); a wall-clock
 * timer per call fails a call still pending at its deadline, awaited promises included, because
 * this class drives the job loop (`executePendingJobs`) itself. Any breach, an uncatchable error in
 * the job loop, or a host exception out of the WebAssembly code (a V8 stack overflow in deep
 * recursion) discards the whole runtime: every call in flight fails with the limit's kind, the
 * platform is told (`reset`), and the next call builds a fresh runtime from the same spec.
 *
 * Only strings and byte copies cross into and out of QuickJS; no handle is ever given to the
 * module, and host functions answer bad input with errors made here (no host stack or path).
 */
import { newQuickJSWASMModule, newVariant, RELEASE_SYNC, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime } from 'quickjs-emscripten';
import { encodeBinaryJson, planBinaryJson, type BinaryPlan } from './binary-json.js';
import { jsonTextToBinary } from './json-text.js';
import { dateTimeFormatAnswer, supportedTimeZones } from './intl.js';
import { PRELUDE_SOURCE } from './prelude.js';
import { cursorInOutcome, listCallOf, nextPageSpec, ReadAheads, type ListCall } from './read-ahead.js';
import {
  LOG_LEVELS,
  MAX_CHUNK_BYTES,
  MAX_LOG_LINE,
  STREAM_WINDOW,
  type CallOutcome,
  type LoadSpec,
  type ModuleErrorInfo,
  type RuntimeReset,
  type SandboxLimitKind,
  type WireMessage,
  type WireOp,
} from './protocol.js';

/** Ids the prelude allocates are offset by generation × this, so a successor's ids never collide. */
const GENERATION_ID_SPAN = 2 ** 32;
/** The init call (createConnector); platform call ids start at 1. */
const INIT_CALL = 0;
const MAX_TIMERS = 1000;
const WASM_PAGE = 64 * 1024;
/** The QuickJS build's own minimum linear memory (16 MiB). */
const INITIAL_PAGES = 256;
const LOG_LINES_PER_SECOND = 200;

/** The ops the prelude may post; anything else is refused. */
const MODULE_OPS: ReadonlySet<string> = new Set([
  'result', 'resultEncoded', 'chunk', 'end', 'error', 'credit', 'cancel', 'fetch', 'fetchAbort', 'event', 'log', 'timer', 'clearTimer',
]);

interface Vm {
  readonly context: QuickJSContext;
  readonly runtime: QuickJSRuntime;
  readonly receive: QuickJSHandle;
  readonly init: QuickJSHandle;
  readonly generation: number;
  interruptAt: number;
  interrupted: boolean;
  dead: boolean;
  /** The binary form of the result `encodeResult` encoded last, and its page's cursor, until the prelude settles or drops it. */
  encoded: { readonly bytes: Uint8Array; readonly cursor: string | undefined } | undefined;
}

interface PendingCall {
  readonly deadline: number;
  readonly timer: NodeJS.Timeout;
  readonly timeoutMs: number;
  /** The job-loop run it started in (see #runs): a call that settles in a later one waited on something. */
  readonly run: number;
}

type Send = (message: WireMessage) => void;

/** A call's outcome: its JSON text, or the value of a successful one in QuickJS's binary form. */
type Outcome = string | Uint8Array;

function succeeded(outcome: Outcome): boolean {
  return typeof outcome !== 'string' || outcome.startsWith('{"ok":true');
}

export class ModuleInstance {
  readonly #id: number;
  readonly #spec: LoadSpec;
  readonly #send: Send;
  #vm: Vm | undefined;
  #starting = false;
  #generation = 0;
  /** Calls that arrived while the runtime was being built. */
  #waiting: WireMessage[] = [];
  readonly #calls = new Map<number, PendingCall>();
  readonly #timers = new Map<number, NodeJS.Timeout>();
  #logWindowStart = 0;
  #logLines = 0;
  #logDropped = 0;
  #disposed = false;
  readonly #readAhead = new ReadAheads();
  /** The platform's list() calls in flight, for the read-ahead decision when each ends. */
  readonly #listCalls = new Map<number, ListCall>();
  /** The last id given to a read-ahead call (they count down from −1; platform ids are positive). */
  #aheadIds = 0;
  /** Job-loop runs finished: a call that settles in the run it started in never waited on I/O. */
  #runs = 0;

  constructor(id: number, spec: LoadSpec, send: Send) {
    this.#id = id;
    this.#spec = spec;
    this.#send = send;
  }

  /** Takes one message from the platform. Call `pump()` after a batch. */
  handle(message: WireMessage): void {
    if (this.#disposed) return;
    if (message.op === 'call') {
      if (this.#vm === undefined || this.#starting) {
        this.#waiting.push(message);
        void this.#start();
        return;
      }
      this.#beginCall(this.#vm, message);
      return;
    }
    const vm = this.#vm;
    // Stream and fetch traffic for a discarded runtime has nowhere to go; ids never repeat.
    if (vm === undefined || vm.dead) return;
    this.#deliver(vm, message.op, message.id, message.j, message.b);
  }

  /** Runs the job loop until nothing is pending, under the current deadline. */
  pump(): void {
    const vm = this.#vm;
    if (vm === undefined || vm.dead) return;
    vm.interruptAt = this.#interruptDeadline();
    vm.interrupted = false;
    try {
      const result = vm.runtime.executePendingJobs(-1);
      if (result.error !== undefined) {
        const info = readError(vm.context, result.error);
        result.error.dispose();
        if (!vm.dead) this.#breach(vm, limitOf(info) ?? 'crash', `The job loop failed: ${info.name ?? 'Error'}: ${info.message ?? ''}`);
        return;
      }
    } catch (error) {
      if (!vm.dead) this.#breach(vm, hostFailure(error), 'The runtime failed inside QuickJS.');
      return;
    } finally {
      this.#runs++;
    }
    if (vm.interrupted && !vm.dead) this.#breach(vm, 'time', this.#timeMessage());
  }

  dispose(): void {
    this.#disposed = true;
    const vm = this.#vm;
    this.#vm = undefined;
    if (vm !== undefined) vm.dead = true;
    for (const call of this.#calls.values()) clearTimeout(call.timer);
    this.#calls.clear();
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    this.#waiting = [];
    this.#readAhead.clear();
    this.#listCalls.clear();
  }

  async #start(): Promise<void> {
    if (this.#starting) return;
    this.#starting = true;
    const generation = ++this.#generation;
    let vm: Vm;
    try {
      vm = await this.#build(generation);
    } catch (error) {
      this.#starting = false;
      this.#failWaiting({ name: 'Error', message: `The sandbox could not start the connector: ${String(error instanceof Error ? error.message : error)}` }, 'crash');
      return;
    }
    if (this.#disposed) return;
    this.#vm = vm;
    const deadline = Date.now() + this.#spec.loadTimeoutMs;
    this.#calls.set(INIT_CALL, {
      deadline,
      timeoutMs: this.#spec.loadTimeoutMs,
      timer: setTimeout(() => this.#expire(vm, INIT_CALL), this.#spec.loadTimeoutMs),
      run: this.#runs,
    });
    vm.interruptAt = deadline;
    const loaded = this.#evaluateModule(vm);
    if (loaded === undefined) return;
    this.#invoke(vm, vm.init, (context) => [context.newNumber(INIT_CALL), loaded, context.newString(JSON.stringify(this.#spec.config ?? null))]);
    this.pump();
  }

  async #build(generation: number): Promise<Vm> {
    // The memory limit is the WebAssembly memory's maximum: growth past it fails inside malloc,
    // so QuickJS raises "out of memory" whatever the allocation (its own malloc accounting in this
    // build does not see the size of large buffers, so JS_SetMemoryLimit alone would not hold).
    const memory = new WasmMemory({ initial: INITIAL_PAGES, maximum: Math.max(INITIAL_PAGES, Math.ceil(this.#spec.memoryBytes / WASM_PAGE)) });
    const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory as VariantMemory }));
    const runtime = module.newRuntime();
    runtime.setMaxStackSize(this.#spec.stackBytes);
    runtime.setModuleLoader((name) => ({
      error: new Error(`The sandbox has no module loader: "${name}" cannot be imported. Bundle the connector into one module.`),
    }));
    const context = runtime.newContext();
    const vm = { context, runtime, generation, interruptAt: Date.now() + this.#spec.loadTimeoutMs, interrupted: false, dead: false, encoded: undefined } as Omit<Vm, 'receive' | 'init'> & {
      receive?: QuickJSHandle;
      init?: QuickJSHandle;
    };
    runtime.setInterruptHandler(() => {
      if (vm.dead || Date.now() > vm.interruptAt) {
        vm.interrupted = true;
        return true;
      }
      return false;
    });
    const host = this.#hostObject(vm as Vm);
    const preludeFn = context.unwrapResult(context.evalCode(PRELUDE_SOURCE, 'inseam-prelude.js', { type: 'global', strict: true }));
    const api = context.unwrapResult(
      context.callFunction(
        preludeFn,
        context.undefined,
        host,
        context.newNumber(MAX_CHUNK_BYTES),
        context.newNumber(STREAM_WINDOW),
        context.newNumber(generation * GENERATION_ID_SPAN),
      ),
    );
    preludeFn.dispose();
    host.dispose();
    vm.receive = context.getProp(api, 'receive');
    vm.init = context.getProp(api, 'init');
    api.dispose();
    return vm as Vm;
  }

  /** Evaluates the module; returns its namespace (or a promise of it), or undefined after a failure. */
  #evaluateModule(vm: Vm): QuickJSHandle | undefined {
    const { context } = vm;
    try {
      const result = context.evalCode(this.#spec.source, this.#spec.filename, { type: 'module', strict: true });
      if (result.error !== undefined) {
        const info = readError(context, result.error);
        result.error.dispose();
        const limit = limitOf(info) ?? (vm.interrupted ? 'time' : undefined);
        if (limit !== undefined) {
          this.#breach(vm, limit, limit === 'time' ? this.#timeMessage() : `The module hit the ${limit} limit while loading.`);
        } else {
          this.#settle(vm, INIT_CALL, JSON.stringify({ ok: false, error: { ...info, message: `The module failed to load: ${info.message ?? ''}` } }), undefined);
        }
        return undefined;
      }
      return result.value;
    } catch (error) {
      this.#breach(vm, hostFailure(error), 'The runtime failed inside QuickJS while loading the module.');
      return undefined;
    }
  }

  #beginCall(vm: Vm, message: WireMessage): void {
    let timeoutMs = this.#spec.loadTimeoutMs;
    let spec: unknown;
    try {
      spec = JSON.parse(message.j ?? '{}') as unknown;
      const given = (spec as { timeoutMs?: unknown } | null)?.timeoutMs;
      if (typeof given === 'number' && given > 0) timeoutMs = given;
    } catch {
      // The prelude reports the malformed call itself.
    }
    const list = this.#spec.listReadAhead ? listCallOf(spec, timeoutMs) : undefined;
    if (list !== undefined) {
      this.#listCalls.set(message.id, list);
      const ahead = this.#readAhead.take(list, Date.now());
      if (ahead?.outcome !== undefined) {
        this.#listCalls.delete(message.id);
        this.#pageOut(vm, message.id, list, ahead.outcome, ahead.next, ahead.waited);
        return;
      }
      if (ahead !== undefined) {
        // Still running: its outcome answers this call when it ends (see #aheadSettled).
        ahead.claimedBy = message.id;
        this.#track(vm, message.id, timeoutMs);
        return;
      }
    }
    this.#track(vm, message.id, timeoutMs);
    this.#deliver(vm, 'call', message.id, message.j, undefined);
  }

  #track(vm: Vm, id: number, timeoutMs: number): void {
    this.#calls.set(id, {
      deadline: Date.now() + timeoutMs,
      timeoutMs,
      timer: setTimeout(() => this.#expire(vm, id), timeoutMs),
      run: this.#runs,
    });
  }

  /**
   * Sends a list() call's successful outcome and, when the call continued its listing and the page
   * has a next cursor, starts reading the next page. When is what `waited` decides: whether this
   * page's list() waited on something (a fetch, a timer) rather than ending in the job-loop run it
   * started in.
   * - It did not: the module is CPU-bound, and the next page starts once this one has been flushed
   *   (immediates run in order), so the module's work never delays the page the platform waits for.
   * - It did: the module most likely reaches its request again at once. The next page starts right
   *   after this one is queued (a microtask, outside any QuickJS call), so its request leaves in the
   *   same batch, and the platform dispatches it before it decodes this page (SandboxHost defers
   *   that), instead of a page's round trip later.
   */
  #pageOut(vm: Vm, id: number, list: ListCall, outcome: Outcome, cursor: string | null | undefined, waited: boolean): void {
    this.#sendResult(id, outcome);
    const next = cursor === undefined && typeof outcome === 'string' ? cursorInOutcome(outcome) : (cursor ?? undefined);
    if (!this.#readAhead.pageSent(list, next) || next === undefined) return;
    const aheadId = --this.#aheadIds;
    const ahead = this.#readAhead.start(aheadId, list, next);
    const begin = (): void => {
      if (this.#vm !== vm || vm.dead || !this.#readAhead.holds(ahead)) {
        this.#readAhead.drop(ahead);
        return;
      }
      this.#track(vm, aheadId, list.timeoutMs);
      this.#deliver(vm, 'call', aheadId, nextPageSpec(list, next), undefined);
      this.pump();
    };
    if (waited) queueMicrotask(begin);
    else setImmediate(begin);
  }

  /** A read-ahead call ended: its outcome waits for the platform's call, or answers the one waiting. */
  #aheadSettled(vm: Vm, id: number, outcome: Outcome, cursor: string | null | undefined, waited: boolean): void {
    const ahead = this.#readAhead.byId(id);
    if (ahead === undefined) return;
    const ok = succeeded(outcome);
    const claimer = ahead.claimedBy;
    if (claimer === undefined) {
      if (!ok) {
        // Not kept: the platform's own call, if it comes, runs afresh rather than get an old failure.
        this.#readAhead.drop(ahead);
        return;
      }
      ahead.outcome = outcome;
      ahead.next = cursor;
      ahead.waited = waited;
      ahead.settledAt = Date.now();
      return;
    }
    this.#readAhead.drop(ahead);
    const call = this.#calls.get(claimer);
    const list = this.#listCalls.get(claimer);
    this.#listCalls.delete(claimer);
    if (call === undefined || list === undefined) return;
    clearTimeout(call.timer);
    this.#calls.delete(claimer);
    if (ok) this.#pageOut(vm, claimer, list, outcome, cursor, waited);
    else this.#sendResult(claimer, outcome);
  }

  #deliver(vm: Vm, op: WireOp, id: number, json: string | undefined, bytes: Uint8Array | undefined): void {
    this.#invoke(vm, vm.receive, (context) => [
      context.newString(op),
      context.newNumber(id),
      json === undefined ? context.undefined : context.newString(json),
      bytes === undefined ? context.undefined : context.newArrayBuffer(exactBuffer(bytes)),
    ]);
  }

  /** Calls `receive` or `init` with argument handles it then owns, classifying any failure. */
  #invoke(vm: Vm, fn: QuickJSHandle, makeArgs: (context: QuickJSContext) => QuickJSHandle[]): void {
    const { context } = vm;
    vm.interruptAt = this.#interruptDeadline();
    vm.interrupted = false;
    let args: QuickJSHandle[] = [];
    try {
      args = makeArgs(context);
      const result = context.callFunction(fn, context.undefined, args);
      if (result.error !== undefined) {
        const info = readError(context, result.error);
        result.error.dispose();
        if (!vm.dead) this.#breach(vm, limitOf(info) ?? (vm.interrupted ? 'time' : 'crash'), `The prelude failed: ${info.name ?? 'Error'}: ${info.message ?? ''}`);
      } else {
        result.value.dispose();
      }
    } catch (error) {
      if (!vm.dead) this.#breach(vm, hostFailure(error), 'The runtime failed inside QuickJS.');
    } finally {
      if (!vm.dead) for (const arg of args) if (arg.alive && arg !== context.undefined) arg.dispose();
    }
    if (vm.interrupted && !vm.dead) this.#breach(vm, 'time', this.#timeMessage());
  }

  #hostObject(vm: Vm): QuickJSHandle {
    const { context } = vm;
    const host = context.newObject();
    const define = (name: string, impl: (...args: QuickJSHandle[]) => QuickJSHandle | undefined): void => {
      const fn = context.newFunction(name, (...args) => {
        if (vm.dead) return { error: context.newError({ name: 'InternalError', message: 'The runtime was discarded.' }) };
        try {
          return impl(...args);
        } catch (error) {
          const message = error instanceof HostInputError ? error.message : `The sandbox could not complete ${name}().`;
          return { error: context.newError({ name: 'TypeError', message }) };
        }
      });
      context.setProp(host, name, fn);
      fn.dispose();
    };
    define('post', (opH, idH, jsonH, bufferH, offsetH, lengthH) => {
      const op = stringArg(context, opH, 'op');
      const id = numberArg(context, idH, 'id');
      const json = jsonH === undefined || context.typeof(jsonH) === 'undefined' ? undefined : stringArg(context, jsonH, 'json');
      const bytes = bufferH === undefined || context.typeof(bufferH) === 'undefined' ? undefined : copyRegion(context, bufferH, offsetH, lengthH);
      this.#fromModule(vm, op, id, json, bytes);
      return undefined;
    });
    define('encodeResult', (valueH) => (valueH === undefined ? context.null : this.#encodeResult(vm, valueH)));
    define('utf8Encode', (textH) => context.newArrayBuffer(utf8.encode(stringArg(context, textH, 'text')).buffer));
    define('utf8Decode', (bufferH, offsetH, lengthH, fatalH) => {
      const bytes = copyRegion(context, bufferH, offsetH, lengthH);
      const fatal = fatalH !== undefined && context.dump(fatalH) === true;
      let text: string;
      try {
        text = new TextDecoder('utf-8', { fatal, ignoreBOM: true }).decode(bytes);
      } catch {
        throw new HostInputError('The encoded data was not valid UTF-8.');
      }
      return (text.length >= BINARY_TEXT_MIN ? intoQuickJS(context, text) : undefined) ?? context.newString(text);
    });
    // Response/Request json(): the body decoded as the prelude's TextDecoder would (a BOM dropped,
    // bad sequences replaced) and parsed as V8 would: read straight into binary form when
    // json-text.ts can, else parsed by V8 and encoded. Undefined sends the prelude to its own
    // decode and JSON.parse (a syntax error then comes from QuickJS, as it always did).
    define('parseJson', (bufferH, offsetH, lengthH) => {
      const bytes = copyRegion(context, bufferH, offsetH, lengthH);
      if (bytes.length > MAX_HOST_PARSED_JSON_BYTES) return context.undefined;
      const direct = jsonTextToBinary(bytes);
      if (direct !== undefined) return readBinary(context, direct) ?? context.undefined;
      let value: unknown;
      try {
        value = JSON.parse(new TextDecoder('utf-8').decode(bytes)) as unknown;
      } catch {
        return context.undefined;
      }
      return intoQuickJS(context, value) ?? context.undefined;
    });
    define('urlParse', (inputH, baseH) => {
      const input = stringArg(context, inputH, 'url');
      const base = baseH === undefined || context.typeof(baseH) === 'undefined' ? undefined : stringArg(context, baseH, 'base');
      let url: URL;
      try {
        url = new URL(input, base);
      } catch {
        return context.null;
      }
      return context.newString(urlRecord(url));
    });
    define('urlSet', (hrefH, keyH, valueH) => {
      const url = new URL(stringArg(context, hrefH, 'href'));
      const key = stringArg(context, keyH, 'key');
      if (!URL_SETTERS.has(key)) throw new HostInputError(`URL has no settable part "${key}".`);
      (url as unknown as Record<string, string>)[key] = stringArg(context, valueH, 'value');
      return context.newString(urlRecord(url));
    });
    define('formParse', (textH) => context.newString(JSON.stringify([...new URLSearchParams(stringArg(context, textH, 'text'))])));
    define('dateTimeFormat', (optionsH, epochH) =>
      context.newString(dateTimeFormatAnswer(stringArg(context, optionsH, 'options'), epochH === undefined || context.typeof(epochH) === 'undefined' ? undefined : numberArg(context, epochH, 'epoch'))),
    );
    define('timeZones', () => context.newString(supportedTimeZones()));
    define('formSerialize', (pairsH) => {
      const pairs: unknown = JSON.parse(stringArg(context, pairsH, 'pairs'));
      if (!Array.isArray(pairs) || !pairs.every((p) => Array.isArray(p) && p.length === 2 && typeof p[0] === 'string' && typeof p[1] === 'string')) {
        throw new HostInputError('Form pairs must be [name, value] strings.');
      }
      return context.newString(new URLSearchParams(pairs as [string, string][]).toString());
    });
    return host;
  }

  /**
   * A call's result through QuickJS's binary serialisation (see binary-json.ts): keeps its JSON
   * text in `vm.encoded` and answers `[plan, names]` for the prelude to check, or null when the
   * prelude must use JSON.stringify (QuickJS refused the value, or it is not plain JSON data).
   */
  #encodeResult(vm: Vm, valueH: QuickJSHandle): QuickJSHandle {
    const { context } = vm;
    vm.encoded = undefined;
    let encoded: QuickJSHandle;
    try {
      encoded = context.encodeBinaryJSON(valueH);
    } catch (error) {
      // The native stack ran out inside the WebAssembly code (a value nested thousands deep), as
      // JSON.stringify's would: the runtime is not trusted to go on.
      this.#breach(vm, hostFailure(error), 'The runtime failed inside QuickJS while serialising a result.');
      throw new HostInputError('The runtime was discarded.');
    }
    let bytes: Uint8Array;
    let planned: BinaryPlan | undefined;
    try {
      // An exception (not an ArrayBuffer) means QuickJS refused the value: an accessor, a function, an exotic object.
      if (context.typeof(encoded) !== 'object') return context.null;
      const view = context.getArrayBuffer(encoded);
      try {
        // Copied out of the runtime's memory: this copy is what the platform receives.
        bytes = view.value.slice();
      } finally {
        view.dispose();
      }
      planned = planBinaryJson(bytes);
    } catch {
      return context.null;
    } finally {
      encoded.dispose();
    }
    if (planned === undefined) return context.null;
    vm.encoded = { bytes, cursor: planned.cursor };
    const answer = context.newArray();
    const plan = context.newArrayBuffer(planned.plan.buffer);
    const names = context.newArray();
    planned.names.forEach((name, index) => {
      const nameH = context.newString(name);
      context.setProp(names, index, nameH);
      nameH.dispose();
    });
    context.setProp(answer, 0, plan);
    context.setProp(answer, 1, names);
    plan.dispose();
    names.dispose();
    return answer;
  }

  /** A message posted by the prelude. Untrusted: the module shares the prelude's realm. */
  #fromModule(vm: Vm, op: string, id: number, json: string | undefined, bytes: Uint8Array | undefined): void {
    if (!MODULE_OPS.has(op)) throw new HostInputError(`Unknown operation "${op}".`);
    switch (op) {
      case 'result':
        vm.encoded = undefined;
        if (json === undefined) throw new HostInputError('A result needs a body.');
        this.#settle(vm, id, json, undefined);
        return;
      case 'resultEncoded': {
        const encoded = vm.encoded;
        vm.encoded = undefined;
        if (encoded === undefined) throw new HostInputError('No encoded result is waiting.');
        this.#settle(vm, id, encoded.bytes, encoded.cursor ?? null);
        return;
      }
      case 'timer':
        this.#setTimer(vm, id, Number(json ?? 0));
        return;
      case 'clearTimer': {
        const timer = this.#timers.get(id);
        if (timer !== undefined) clearTimeout(timer);
        this.#timers.delete(id);
        return;
      }
      case 'log':
        this.#log(id, json);
        return;
      default:
        this.#send({ i: this.#id, op: op as WireOp, id, ...(json === undefined ? {} : { j: json }), ...(bytes === undefined ? {} : { b: bytes }) });
    }
  }

  /**
   * `outcome`: the outcome text, or a successful outcome's value in binary form. `cursor`: the
   * page's next cursor when known (null: none); undefined: read it from the text if needed.
   */
  #settle(vm: Vm, id: number, outcome: Outcome, cursor: string | null | undefined): void {
    const call = this.#calls.get(id);
    if (call === undefined) return;
    const waited = call.run !== this.#runs;
    let failure: ModuleErrorInfo | undefined;
    // Successful outcomes (possibly large listings) are relayed without parsing.
    if (!succeeded(outcome)) {
      try {
        const parsed = JSON.parse(outcome as string) as CallOutcome;
        failure = parsed.ok === false && typeof parsed.error === 'object' && parsed.error !== null ? parsed.error : { message: 'The call produced no valid outcome.' };
      } catch {
        failure = { message: 'The call produced no valid outcome.' };
      }
      const limit = limitOf(failure) ?? (vm.interrupted ? 'time' : undefined);
      if (limit !== undefined) {
        // An uncaught out-of-memory, stack overflow or interrupt: the runtime is not trusted to go on.
        this.#breach(vm, limit, limit === 'time' ? this.#timeMessage(id) : `The connector hit its ${limit} limit.`, id);
        return;
      }
    }
    clearTimeout(call.timer);
    this.#calls.delete(id);
    if (id === INIT_CALL) {
      if (failure === undefined) {
        const waiting = this.#waiting;
        this.#waiting = [];
        this.#starting = false;
        for (const message of waiting) this.#beginCall(vm, message);
      } else {
        this.#starting = false;
        this.#vm = undefined;
        vm.dead = true;
        this.#failWaiting({ ...failure, message: `createConnector failed: ${failure.message ?? ''}` });
      }
      return;
    }
    if (id < 0) {
      this.#aheadSettled(vm, id, outcome, cursor, waited);
      return;
    }
    const list = this.#listCalls.get(id);
    this.#listCalls.delete(id);
    if (list !== undefined && failure === undefined) this.#pageOut(vm, id, list, outcome, cursor, waited);
    else this.#sendResult(id, outcome);
  }

  #sendResult(id: number, outcome: Outcome): void {
    this.#send({ i: this.#id, op: 'result', id, ...(typeof outcome === 'string' ? { j: outcome } : { b: outcome }) });
  }

  #setTimer(vm: Vm, id: number, delay: number): void {
    if (!this.#timers.has(id) && this.#timers.size >= MAX_TIMERS) throw new HostInputError(`A connector may hold at most ${MAX_TIMERS} timers.`);
    const existing = this.#timers.get(id);
    if (existing !== undefined) clearTimeout(existing);
    const ms = Number.isFinite(delay) && delay > 0 ? Math.min(delay, 2 ** 31 - 1) : 0;
    this.#timers.set(
      id,
      setTimeout(() => {
        this.#timers.delete(id);
        if (vm.dead || this.#vm !== vm) return;
        this.#deliver(vm, 'timer', id, undefined, undefined);
        this.pump();
      }, ms),
    );
  }

  #log(level: number, json: string | undefined): void {
    const now = Date.now();
    if (now - this.#logWindowStart >= 1000) {
      if (this.#logDropped > 0) this.#emitLog(2, `[${this.#logDropped} console lines dropped: over ${LOG_LINES_PER_SECOND} a second]`);
      this.#logWindowStart = now;
      this.#logLines = 0;
      this.#logDropped = 0;
    }
    if (this.#logLines >= LOG_LINES_PER_SECOND) {
      this.#logDropped++;
      return;
    }
    this.#logLines++;
    let line: string;
    try {
      const parsed: unknown = JSON.parse(json ?? '""');
      line = typeof parsed === 'string' ? parsed : '';
    } catch {
      line = '[unreadable console line]';
    }
    this.#emitLog(Number.isInteger(level) && level >= 0 && level < LOG_LEVELS.length ? level : 1, line);
  }

  #emitLog(level: number, line: string): void {
    const cut = line.length > MAX_LOG_LINE ? `${line.slice(0, MAX_LOG_LINE)}… [cut]` : line;
    this.#send({ i: this.#id, op: 'log', id: level, j: JSON.stringify(cut) });
  }

  #expire(vm: Vm, id: number): void {
    if (vm.dead || !this.#calls.has(id)) return;
    this.#breach(vm, 'time', this.#timeMessage(id), id);
  }

  #interruptDeadline(): number {
    let deadline = Infinity;
    for (const call of this.#calls.values()) deadline = Math.min(deadline, call.deadline);
    // With no call in flight (a stream still flowing, a watch), one slice bounds synchronous code.
    return deadline === Infinity ? Date.now() + this.#spec.loadTimeoutMs : deadline;
  }

  #timeMessage(culprit?: number): string {
    const now = Date.now();
    const late = [...this.#calls.entries()].find(([id, call]) => id === culprit || call.deadline <= now);
    const ms = late?.[1].timeoutMs ?? this.#spec.loadTimeoutMs;
    return `The connector ran past its time limit of ${ms} ms.`;
  }

  /**
   * Discards the runtime after a limit breach or crash. Every call in flight (and every call
   * waiting for the runtime) fails with the limit; the platform voids the instance's fetches and
   * streams. Nothing of the runtime is freed piecemeal: its WebAssembly module is dropped whole.
   */
  #breach(vm: Vm, limit: SandboxLimitKind, message: string, culprit?: number): void {
    vm.dead = true;
    vm.interruptAt = 0;
    if (this.#vm === vm) this.#vm = undefined;
    this.#starting = false;
    for (const timer of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    const reset: RuntimeReset = { limit, message };
    // A read-ahead's breach is the breach of the platform call waiting for it, if one is.
    const blamed = culprit !== undefined && culprit < 0 ? this.#readAhead.byId(culprit)?.claimedBy : culprit;
    this.#readAhead.clear();
    this.#listCalls.clear();
    for (const [id, call] of this.#calls) {
      clearTimeout(call.timer);
      if (id === INIT_CALL || id < 0) continue;
      const own = culprit === undefined || blamed === id;
      const text = own ? message : `The sandbox runtime was reset because another call broke its ${limit} limit: ${message}`;
      this.#send({ i: this.#id, op: 'result', id, j: JSON.stringify({ ok: false, error: { name: 'SandboxLimit', message: text }, limit }) });
    }
    this.#calls.clear();
    this.#failWaiting({ name: 'SandboxLimit', message }, limit);
    this.#send({ i: this.#id, op: 'reset', id: 0, j: JSON.stringify(reset) });
  }

  #failWaiting(error: ModuleErrorInfo, limit?: SandboxLimitKind): void {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const message of waiting) {
      const outcome: CallOutcome = { ok: false, error, ...(limit === undefined ? {} : { limit }) };
      this.#send({ i: this.#id, op: 'result', id: message.id, j: JSON.stringify(outcome) });
    }
  }
}

// The WebAssembly global, typed for the one use here (the platform's lib set has no DOM types).
type VariantMemory = NonNullable<Parameters<typeof newVariant>[1]['wasmMemory']>;
const WasmMemory = (globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => object } }).WebAssembly.Memory;

/** Bad input from inside the sandbox; its message is ours and safe to show the module. */
class HostInputError extends Error {}

/** Texts at least this long enter QuickJS in binary form: emscripten's string copy is a JavaScript loop. */
const BINARY_TEXT_MIN = 1024;
/**
 * Bodies over this are parsed by QuickJS itself: host work cannot be interrupted at the call's
 * deadline, QuickJS's parser can.
 */
const MAX_HOST_PARSED_JSON_BYTES = 16 * 1024 * 1024;

/**
 * JSON data or a string rebuilt inside the runtime from its binary form (see binary-json.ts), or
 * undefined when it cannot be (too deep, or QuickJS refused it, e.g. at its memory limit).
 */
function intoQuickJS(context: QuickJSContext, value: unknown): QuickJSHandle | undefined {
  const bytes = encodeBinaryJson(value);
  return bytes === undefined ? undefined : readBinary(context, bytes);
}

/** A value's binary form read inside the runtime; undefined when QuickJS refused it. */
function readBinary(context: QuickJSContext, bytes: Uint8Array): QuickJSHandle | undefined {
  const buffer = context.newArrayBuffer(exactBuffer(bytes));
  try {
    const handle = context.decodeBinaryJSON(buffer);
    if (context.typeof(handle) === 'unknown') {
      handle.dispose();
      return undefined;
    }
    return handle;
  } finally {
    buffer.dispose();
  }
}

const utf8 = new TextEncoder();
const URL_SETTERS: ReadonlySet<string> = new Set(['protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);

function urlRecord(url: URL): string {
  return JSON.stringify({
    href: url.href,
    origin: url.origin,
    protocol: url.protocol,
    username: url.username,
    password: url.password,
    host: url.host,
    hostname: url.hostname,
    port: url.port,
    pathname: url.pathname,
    search: url.search,
    hash: url.hash,
  });
}

/** The bytes as an ArrayBuffer of exactly their length (a view may sit inside a bigger buffer). */
function exactBuffer(bytes: Uint8Array): ArrayBufferLike {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer;
}

function stringArg(context: QuickJSContext, handle: QuickJSHandle | undefined, name: string): string {
  if (handle === undefined || context.typeof(handle) !== 'string') throw new HostInputError(`${name} must be a string.`);
  return context.getString(handle);
}

function numberArg(context: QuickJSContext, handle: QuickJSHandle | undefined, name: string): number {
  if (handle === undefined || context.typeof(handle) !== 'number') throw new HostInputError(`${name} must be a number.`);
  return context.getNumber(handle);
}

/**
 * Copies `length` bytes at `offset` out of a QuickJS ArrayBuffer. The bounds are checked against
 * the buffer's size now, so a view of a buffer resized (or detached) after the view was made can
 * only yield an error, never bytes from outside the buffer.
 */
function copyRegion(context: QuickJSContext, bufferH: QuickJSHandle | undefined, offsetH: QuickJSHandle | undefined, lengthH: QuickJSHandle | undefined): Uint8Array {
  if (bufferH === undefined || context.typeof(bufferH) !== 'object') throw new HostInputError('Expected an ArrayBuffer.');
  let whole;
  try {
    whole = context.getArrayBuffer(bufferH);
  } catch {
    throw new HostInputError('Expected an ArrayBuffer.');
  }
  try {
    const size = whole.value.length;
    const offset = offsetH === undefined || context.typeof(offsetH) === 'undefined' ? 0 : numberArg(context, offsetH, 'offset');
    const length = lengthH === undefined || context.typeof(lengthH) === 'undefined' ? size - offset : numberArg(context, lengthH, 'length');
    if (!Number.isInteger(offset) || !Number.isInteger(length) || offset < 0 || length < 0 || offset + length > size) {
      throw new HostInputError('The byte range lies outside its ArrayBuffer (was the buffer resized?).');
    }
    return whole.value.slice(offset, offset + length);
  } finally {
    whole.dispose();
  }
}

function readError(context: QuickJSContext, handle: QuickJSHandle): ModuleErrorInfo {
  try {
    if (context.typeof(handle) !== 'object') return { message: String(context.dump(handle)) };
    const name = context.getProp(handle, 'name');
    const message = context.getProp(handle, 'message');
    const info: ModuleErrorInfo = {
      ...(context.typeof(name) === 'string' ? { name: context.getString(name) } : {}),
      ...(context.typeof(message) === 'string' ? { message: context.getString(message) } : {}),
    };
    name.dispose();
    message.dispose();
    return info;
  } catch {
    return { message: 'An error that could not be read.' };
  }
}

/** The limit an error from QuickJS stands for, if it stands for one. */
function limitOf(info: ModuleErrorInfo): SandboxLimitKind | undefined {
  const message = info.message ?? '';
  if (info.name !== 'InternalError' && info.name !== 'RangeError') return undefined;
  if (message === 'out of memory') return 'memory';
  if (message === 'interrupted') return 'time';
  if (message === 'stack overflow' || message === 'Maximum call stack size exceeded') return 'stack';
  return undefined;
}

/** What a host exception out of the WebAssembly code means. */
function hostFailure(error: unknown): SandboxLimitKind {
  if (error instanceof RangeError && /call stack/i.test(error.message)) return 'stack';
  if (error instanceof Error && /out of memory|allocate/i.test(error.message)) return 'memory';
  return 'crash';
}
