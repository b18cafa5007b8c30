// @ts-check
/**
 * The prelude: our own polyfills, evaluated in each QuickJS runtime before the connector module.
 * It gives the module exactly what a connector needs — a gated `fetch`, web streams, `Headers`,
 * `Request`, `Response`, `URL`, `URLSearchParams`, `TextEncoder`/`TextDecoder` (UTF-8), `atob`/`btoa`,
 * `AbortController`, timers and `console` — and turns calls from the sandbox process into calls on
 * the connector.
 *
 * It talks to the sandbox process only through the `host` object it is called with (never a
 * global): `post(op, id, json?, buffer?, offset?, length?)` and a few pure helpers (UTF-8, the
 * WHATWG URL and form parsers of the sandbox process). Only strings and byte copies cross.
 *
 * The prelude shares its realm with the module, so it is not a security boundary: a module can
 * break its own polyfills. The boundary is the sandbox process and the platform, which treat
 * everything the prelude sends as untrusted input.
 *
 * Evaluates to `(host, MAX_CHUNK, WINDOW, BASE) => { receive, init }`; `BASE` offsets the ids the
 * prelude allocates so ids of a discarded runtime never collide with its successor's.
 *
 * This file is a script, not a module: QuickJS evaluates its text as one expression
 * (src/sandbox/prelude.ts reads it), so it may use nothing but the language's own globals and
 * `host`. It lives outside src/ like the web page, so the build neither emits nor needs it; it is
 * type-checked (`tsc -p packages/inseam/quickjs`, JSDoc types) and linted in `npm test`.
 */
(
/**
 * @param {PreludeHost} host the sandbox process's side (see prelude-host.d.ts)
 * @param {number} MAX_CHUNK the largest byte chunk one message carries
 * @param {number} WINDOW stream chunks in flight before the sender waits
 * @param {number} BASE added to every id this prelude allocates
 * @returns {PreludeApi}
 */
function prelude(host, MAX_CHUNK, WINDOW, BASE) {
  'use strict';
  const G = globalThis;
  const post = host.post;
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const U8 = Uint8Array;
  const AB = ArrayBuffer;
  const apply = Reflect.apply;
  const S = Symbol('inseam.internal');
  const getter = (proto, key) => Object.getOwnPropertyDescriptor(proto, key).get;
  const TA = Object.getPrototypeOf(U8.prototype);
  const taBuffer = getter(TA, 'buffer');
  const taOffset = getter(TA, 'byteOffset');
  const taLength = getter(TA, 'byteLength');
  const dvBuffer = getter(DataView.prototype, 'buffer');
  const dvOffset = getter(DataView.prototype, 'byteOffset');
  const dvLength = getter(DataView.prototype, 'byteLength');
  const abLength = getter(AB.prototype, 'byteLength');
  const isView = AB.isView;
  const promiseThen = Promise.prototype.then;
  const noop = () => {};
  const handled = (promise) => { apply(promiseThen, promise, [undefined, noop]); return promise; };

  // The ArrayBuffer, offset and length behind a BufferSource, read with the intrinsic getters.
  function region(value) {
    if (value instanceof AB) return [value, 0, apply(abLength, value, [])];
    if (isView(value)) {
      if (value instanceof DataView) return [apply(dvBuffer, value, []), apply(dvOffset, value, []), apply(dvLength, value, [])];
      return [apply(taBuffer, value, []), apply(taOffset, value, []), apply(taLength, value, [])];
    }
    throw new TypeError('Expected an ArrayBuffer or an ArrayBuffer view.');
  }
  function copyBytes(value) {
    const r = region(value);
    return new U8(r[0].slice(r[1], r[1] + r[2]));
  }
  function postBytes(op, id, json, value) {
    const r = region(value);
    post(op, id, json, r[0], r[1], r[2]);
  }
  /** @returns {{ promise: Promise<any>, resolve: (value: any) => void, reject: (reason: any) => void }} */
  function deferred() {
    /** @type {any} */
    let resolve;
    /** @type {any} */
    let reject;
    const promise = new Promise((res, rej) => { resolve = res; reject = rej; });
    return { promise, resolve, reject };
  }
  function reportError(error) {
    try { post('log', 3, stringify('Uncaught ' + describeError(error))); } catch (e) { /* the log line itself failed */ }
  }
  function describeError(error) {
    try {
      if (error instanceof Error) return String(error.name) + ': ' + String(error.message) + (error.stack ? '\n' + String(error.stack) : '');
      return String(error);
    } catch (e) {
      return '[unprintable error]';
    }
  }

  // ---- Results as plain data -------------------------------------------------------------------
  // host.encodeResult serialises a result with QuickJS's binary writer, which records own data
  // properties but not prototypes, so it cannot honour a toJSON. plainData looks toJSON up on every
  // object and array of the value, along the encoder's plan (each one in preorder, found through
  // the data properties the encoder saw), exactly as JSON.stringify would before serialising it:
  // own or inherited, through getters and proxies in the prototype chain, which run as they would
  // have run there. Only when none is a function does the platform read the encoded bytes, which
  // then stand for what JSON.stringify's text would have said; any other answer, or a throw,
  // sends the result through JSON.stringify instead. Its stacks are null-prototype objects, beyond
  // a module's setters.
  const encodeResult = host.encodeResult;
  const I32 = Int32Array;
  function plainData(value, planBuffer, names) {
    if (value === null || typeof value !== 'object') return true;
    const plan = new I32(planBuffer);
    const length = plan.length;
    if (length === 0 || typeof value.toJSON === 'function') return false;
    const nodes = { __proto__: null, 0: value };
    const left = new I32(length);
    left[0] = plan[0];
    let depth = 1;
    let at = 1;
    while (depth > 0) {
      const top = depth - 1;
      const parent = nodes[top];
      let remaining = left[top];
      if (remaining < 0) {
        // An array whose elements are all objects or arrays with none of their own: a listing's
        // entries, checked in a loop of their own.
        for (let i = 0, n = -remaining; i < n; i++) {
          const child = parent[i];
          if (child === null || typeof child !== 'object' || typeof child.toJSON === 'function') return false;
        }
        depth = top;
        continue;
      }
      let descended = false;
      // One node's children in a tight loop; a child with children of its own is entered, and
      // this node resumes after it.
      while (remaining > 0) {
        remaining--;
        if (at + 1 >= length) return false;
        const selector = plan[at];
        const count = plan[at + 1];
        at += 2;
        const child = selector < 0 ? parent[names[-selector - 1]] : parent[selector];
        if (child === null || typeof child !== 'object' || typeof child.toJSON === 'function') return false;
        if (count !== 0) {
          left[top] = remaining;
          nodes[depth] = child;
          left[depth] = count;
          depth++;
          descended = true;
          break;
        }
      }
      if (!descended) depth = top;
    }
    return at === length;
  }

  // ---- DOMException, Event, EventTarget -------------------------------------------------------
  class DOMException extends Error {
    constructor(message = '', name = 'Error') {
      super(String(message));
      Object.defineProperty(this, 'name', { value: String(name), writable: true, configurable: true });
    }
    get code() {
      const codes = { IndexSizeError: 1, NotFoundError: 8, NotSupportedError: 9, InvalidStateError: 11, SyntaxError: 12, InvalidCharacterError: 5, NetworkError: 19, AbortError: 20, TimeoutError: 23, DataCloneError: 25 };
      return codes[this.name] || 0;
    }
  }
  class Event {
    constructor(type, init = {}) {
      this[S] = { type: String(type), target: null, defaultPrevented: false, cancelable: !!init.cancelable };
    }
    get type() { return this[S].type; }
    get target() { return this[S].target; }
    get currentTarget() { return this[S].target; }
    get defaultPrevented() { return this[S].defaultPrevented; }
    get cancelable() { return this[S].cancelable; }
    preventDefault() { if (this[S].cancelable) this[S].defaultPrevented = true; }
    stopPropagation() {}
    stopImmediatePropagation() { this[S].stopped = true; }
  }
  class EventTarget {
    constructor() { this[S] = { listeners: new Map() }; }
    addEventListener(type, listener, options) {
      if (listener === null || listener === undefined) return;
      const once = typeof options === 'object' && options !== null && !!options.once;
      const list = this[S].listeners.get(type) || [];
      if (list.some((l) => l.listener === listener)) return;
      list.push({ listener, once });
      this[S].listeners.set(type, list);
      const signal = typeof options === 'object' && options !== null ? options.signal : undefined;
      if (signal instanceof AbortSignal) signal.addEventListener('abort', () => this.removeEventListener(type, listener), { once: true });
    }
    removeEventListener(type, listener) {
      const list = this[S].listeners.get(type);
      if (list) this[S].listeners.set(type, list.filter((l) => l.listener !== listener));
    }
    dispatchEvent(event) {
      event[S].target = this;
      const list = (this[S].listeners.get(event.type) || []).slice();
      for (const l of list) {
        if (l.once) this.removeEventListener(event.type, l.listener);
        try {
          if (typeof l.listener === 'function') apply(l.listener, this, [event]);
          else if (l.listener && typeof l.listener.handleEvent === 'function') l.listener.handleEvent(event);
        } catch (error) {
          reportError(error);
        }
        if (event[S].stopped) break;
      }
      return !event.defaultPrevented;
    }
  }

  // ---- Timers (the platform bounds them by the call's deadline) ---------------------------------
  let nextTimer = BASE + 1;
  const timers = new Map();
  function arm(id, timer) { post('timer', id, String(timer.delay)); }
  function addTimer(callback, delay, args, repeat) {
    if (typeof callback !== 'function') throw new TypeError('Timer callbacks must be functions; strings are never evaluated.');
    const ms = Number(delay);
    const id = nextTimer++;
    const timer = { callback, args, repeat, delay: ms > 0 && ms < 2147483648 ? Math.floor(ms) : 0 };
    timers.set(id, timer);
    arm(id, timer);
    return id;
  }
  function clearTimer(id) {
    if (timers.delete(id)) post('clearTimer', id);
  }
  function fireTimer(id) {
    const timer = timers.get(id);
    if (timer === undefined) return;
    if (timer.repeat) arm(id, timer);
    else timers.delete(id);
    try { apply(timer.callback, undefined, timer.args); } catch (error) { reportError(error); }
  }
  const setTimeout = (callback, delay, ...args) => addTimer(callback, delay, args, false);
  const setInterval = (callback, delay, ...args) => addTimer(callback, delay, args, true);
  const clearTimeout = (id) => clearTimer(id);
  const clearInterval = (id) => clearTimer(id);
  const queueMicrotask = (callback) => {
    if (typeof callback !== 'function') throw new TypeError('queueMicrotask needs a function.');
    Promise.resolve().then(() => { try { callback(); } catch (error) { reportError(error); } });
  };

  // ---- console ----------------------------------------------------------------------------------
  function inspect(value) {
    if (typeof value === 'string') return value;
    if (value instanceof Error) return describeError(value);
    if (typeof value === 'function') return '[function ' + (value.name || 'anonymous') + ']';
    if (typeof value === 'symbol' || typeof value === 'bigint') return String(value);
    try {
      const text = stringify(value);
      if (text !== undefined) return text;
    } catch (e) { /* cyclic or exotic: fall through */ }
    try { return String(value); } catch (e) { return '[object]'; }
  }
  function logAt(level) {
    return (...args) => post('log', level, stringify(args.map(inspect).join(' ')));
  }
  const console = {
    debug: logAt(0), trace: logAt(0), log: logAt(1), info: logAt(1), warn: logAt(2), error: logAt(3),
    dir: (value) => post('log', 1, stringify(inspect(value))),
    assert: (condition, ...args) => { if (!condition) post('log', 3, stringify('Assertion failed' + (args.length ? ': ' + args.map(inspect).join(' ') : ''))); },
  };

  // ---- TextEncoder / TextDecoder (UTF-8 only) ---------------------------------------------------
  function utf8Length(codePoint) { return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4; }
  class TextEncoder {
    get encoding() { return 'utf-8'; }
    encode(input = '') { return new U8(host.utf8Encode(String(input))); }
    encodeInto(source, destination) {
      if (!(destination instanceof U8)) throw new TypeError('encodeInto needs a Uint8Array destination.');
      const text = String(source);
      let read = 0;
      let written = 0;
      for (const ch of text) {
        let cp = ch.codePointAt(0);
        if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd;
        const size = utf8Length(cp);
        if (written + size > destination.length) break;
        const bytes = new U8(host.utf8Encode(String.fromCodePoint(cp)));
        destination.set(bytes, written);
        written += size;
        read += ch.length;
      }
      return { read, written };
    }
  }
  const UTF8_LABELS = ['utf-8', 'utf8', 'unicode-1-1-utf-8', 'unicode11utf8', 'unicode20utf8', 'x-unicode20utf8'];
  // How many trailing bytes start a UTF-8 sequence that is not complete yet (kept for the next chunk).
  function incompleteTail(bytes) {
    const n = bytes.length;
    for (let back = 1; back <= 3 && back <= n; back++) {
      const b = bytes[n - back];
      if ((b & 0xc0) === 0x80) continue;
      const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      return need > back ? back : 0;
    }
    return 0;
  }
  class TextDecoder {
    constructor(label = 'utf-8', options = {}) {
      const name = String(label).trim().toLowerCase();
      if (!UTF8_LABELS.includes(name)) throw new RangeError('TextDecoder: only UTF-8 is supported in the inseam sandbox, not "' + String(label) + '".');
      this[S] = { fatal: !!(options && options.fatal), ignoreBOM: !!(options && options.ignoreBOM), pending: null, started: false };
    }
    get encoding() { return 'utf-8'; }
    get fatal() { return this[S].fatal; }
    get ignoreBOM() { return this[S].ignoreBOM; }
    decode(input, options) {
      const state = this[S];
      const stream = !!(options && options.stream);
      let bytes = input === undefined || input === null ? new U8(0) : copyBytes(input);
      if (state.pending !== null) {
        const joined = new U8(state.pending.length + bytes.length);
        joined.set(state.pending, 0);
        joined.set(bytes, state.pending.length);
        bytes = joined;
        state.pending = null;
      }
      if (stream) {
        const tail = incompleteTail(bytes);
        if (tail > 0) {
          state.pending = bytes.slice(bytes.length - tail);
          bytes = bytes.slice(0, bytes.length - tail);
        }
      }
      let text = bytes.length === 0 ? '' : host.utf8Decode(bytes.buffer, 0, bytes.length, state.fatal);
      if (!state.started && text.length > 0) {
        state.started = true;
        if (!state.ignoreBOM && text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      if (!stream) {
        if (state.pending !== null) {
          if (state.fatal) { state.pending = null; throw new TypeError('The encoded data was not valid UTF-8.'); }
          text += '\ufffd';
        }
        state.pending = null;
        state.started = false;
      }
      return text;
    }
  }

  // ---- atob / btoa -----------------------------------------------------------------------------
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  function btoa(input) {
    const text = String(input);
    let out = '';
    for (let i = 0; i < text.length; i += 3) {
      const a = text.charCodeAt(i);
      const b = i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      const c = i + 2 < text.length ? text.charCodeAt(i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) throw new DOMException('btoa: the string contains characters outside Latin-1.', 'InvalidCharacterError');
      const n = (a << 16) | (b << 8) | c;
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < text.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < text.length ? B64[n & 63] : '=');
    }
    return out;
  }
  function atob(input) {
    let text = String(input).replace(/[\t\n\f\r ]+/g, '');
    if (text.length % 4 === 0) text = text.replace(/==?$/, '');
    if (text.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(text)) throw new DOMException('atob: the string is not valid base64.', 'InvalidCharacterError');
    let out = '';
    let buffer = 0;
    let bits = 0;
    for (let i = 0; i < text.length; i++) {
      buffer = (buffer << 6) | B64.indexOf(text[i]);
      bits += 6;
      if (bits >= 8) {
        bits -= 8;
        out += String.fromCharCode((buffer >> bits) & 255);
      }
    }
    return out;
  }

  // ---- URL / URLSearchParams (parsed by the platform's WHATWG parser; only strings cross) ------
  function record(json) { return parse(json); }
  class URLSearchParams {
    /** @param {any} [init] a query string, pairs, a record or another URLSearchParams */
    constructor(init = '') {
      this[S] = { list: [], update: noop };
      if (init instanceof URLSearchParams) {
        this[S].list = init[S].list.map((pair) => [pair[0], pair[1]]);
      } else if (typeof init === 'object' && init !== null) {
        if (typeof init[Symbol.iterator] === 'function') {
          for (const pair of init) {
            const items = Array.from(pair);
            if (items.length !== 2) throw new TypeError('URLSearchParams: each pair needs exactly a name and a value.');
            this[S].list.push([String(items[0]), String(items[1])]);
          }
        } else {
          for (const key of Object.keys(init)) this[S].list.push([key, String(init[key])]);
        }
      } else {
        const text = String(init);
        this[S].list = parse(host.formParse(text.startsWith('?') ? text.slice(1) : text));
      }
    }
    get size() { return this[S].list.length; }
    append(name, value) { this[S].list.push([String(name), String(value)]); this[S].update(); }
    delete(name, value) {
      const n = String(name);
      this[S].list = this[S].list.filter((pair) => !(pair[0] === n && (value === undefined || pair[1] === String(value))));
      this[S].update();
    }
    get(name) { const pair = this[S].list.find((p) => p[0] === String(name)); return pair === undefined ? null : pair[1]; }
    getAll(name) { return this[S].list.filter((p) => p[0] === String(name)).map((p) => p[1]); }
    has(name, value) { return this[S].list.some((p) => p[0] === String(name) && (value === undefined || p[1] === String(value))); }
    set(name, value) {
      const n = String(name);
      const index = this[S].list.findIndex((p) => p[0] === n);
      if (index < 0) this[S].list.push([n, String(value)]);
      else this[S].list = this[S].list.filter((p, i) => i <= index || p[0] !== n).map((p, i) => (i === index ? [n, String(value)] : p));
      this[S].update();
    }
    sort() {
      this[S].list = this[S].list.map((p, i) => [p, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map((x) => x[0]);
      this[S].update();
    }
    forEach(callback, thisArg) { for (const p of this[S].list.slice()) apply(callback, thisArg, [p[1], p[0], this]); }
    *entries() { for (const p of this[S].list.slice()) yield [p[0], p[1]]; }
    *keys() { for (const p of this[S].list.slice()) yield p[0]; }
    *values() { for (const p of this[S].list.slice()) yield p[1]; }
    [Symbol.iterator]() { return this.entries(); }
    toString() { return host.formSerialize(stringify(this[S].list)); }
  }
  const URL_SETTABLE = ['protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'];
  class URL {
    constructor(url, base) {
      const json = host.urlParse(String(url), base === undefined ? undefined : String(base));
      if (json === null) throw new TypeError('Invalid URL: ' + String(url));
      const state = { rec: record(json), params: null, syncParams: noop };
      state.syncParams = () => {
        if (state.params !== null) state.params[S].list = parse(host.formParse(state.rec.search.replace(/^\?/, '')));
      };
      this[S] = state;
    }
    static canParse(url, base) { return host.urlParse(String(url), base === undefined ? undefined : String(base)) !== null; }
    static parse(url, base) { try { return new URL(url, base); } catch (e) { return null; } }
    get href() { return this[S].rec.href; }
    set href(value) {
      const json = host.urlParse(String(value));
      if (json === null) throw new TypeError('Invalid URL: ' + String(value));
      this[S].rec = record(json);
      this[S].syncParams();
    }
    get origin() { return this[S].rec.origin; }
    get searchParams() {
      const state = this[S];
      if (state.params === null) {
        state.params = new URLSearchParams(state.rec.search);
        state.params[S].update = () => {
          const query = state.params.toString();
          state.rec = record(host.urlSet(state.rec.href, 'search', query));
        };
      }
      return state.params;
    }
    toString() { return this.href; }
    toJSON() { return this.href; }
  }
  for (const key of URL_SETTABLE) {
    Object.defineProperty(URL.prototype, key, {
      get() { return this[S].rec[key]; },
      set(value) { this[S].rec = record(host.urlSet(this[S].rec.href, key, String(value))); this[S].syncParams(); },
      configurable: true,
      enumerable: true,
    });
  }

  // ---- Headers ---------------------------------------------------------------------------------
  const TOKEN = /^[!#$%&'*+\-.^_\x60|~0-9A-Za-z]+$/;
  function headerName(name) {
    const n = String(name);
    if (!TOKEN.test(n)) throw new TypeError('Invalid header name: "' + n + '".');
    return n.toLowerCase();
  }
  function headerValue(value) {
    const v = String(value).replace(/^[\t\n\r ]+|[\t\n\r ]+$/g, '');
    if (/[\0\r\n]/.test(v)) throw new TypeError('Invalid header value: it contains a NUL or a line break.');
    return v;
  }
  class Headers {
    constructor(init) {
      this[S] = new Map();
      if (init === undefined || init === null) return;
      if (init instanceof Headers) {
        for (const [name, values] of init[S]) this[S].set(name, values.slice());
      } else if (typeof init === 'object' && typeof init[Symbol.iterator] === 'function') {
        for (const pair of init) {
          const items = Array.from(pair);
          if (items.length !== 2) throw new TypeError('Headers: each pair needs exactly a name and a value.');
          this.append(items[0], items[1]);
        }
      } else if (typeof init === 'object') {
        for (const key of Object.keys(init)) this.append(key, init[key]);
      } else {
        throw new TypeError('Headers: init must be a Headers, an array of pairs or a record.');
      }
    }
    append(name, value) {
      const n = headerName(name);
      const list = this[S].get(n) || [];
      list.push(headerValue(value));
      this[S].set(n, list);
    }
    set(name, value) { this[S].set(headerName(name), [headerValue(value)]); }
    get(name) {
      const list = this[S].get(headerName(name));
      return list === undefined ? null : list.join(', ');
    }
    getSetCookie() { return (this[S].get('set-cookie') || []).slice(); }
    has(name) { return this[S].has(headerName(name)); }
    delete(name) { this[S].delete(headerName(name)); }
    forEach(callback, thisArg) { for (const [name, value] of this.entries()) apply(callback, thisArg, [value, name, this]); }
    *entries() {
      const names = Array.from(this[S].keys()).sort();
      for (const name of names) {
        const list = this[S].get(name);
        if (list === undefined) continue;
        if (name === 'set-cookie') for (const v of list) yield [name, v];
        else yield [name, list.join(', ')];
      }
    }
    *keys() { for (const pair of this.entries()) yield pair[0]; }
    *values() { for (const pair of this.entries()) yield pair[1]; }
    [Symbol.iterator]() { return this.entries(); }
  }

  // ---- AbortController / AbortSignal -------------------------------------------------------------
  const CREATE = Symbol('create');
  function abortError() { return new DOMException('This operation was aborted.', 'AbortError'); }
  class AbortSignal extends EventTarget {
    constructor(key) {
      if (key !== CREATE) throw new TypeError('Illegal constructor: use new AbortController().signal.');
      super();
      this[S].aborted = false;
      this[S].reason = undefined;
      this.onabort = null;
    }
    get aborted() { return this[S].aborted; }
    get reason() { return this[S].reason; }
    throwIfAborted() { if (this[S].aborted) throw this[S].reason; }
    static abort(reason) { const signal = new AbortSignal(CREATE); signalAbort(signal, reason === undefined ? abortError() : reason); return signal; }
    static timeout(ms) {
      const signal = new AbortSignal(CREATE);
      setTimeout(() => signalAbort(signal, new DOMException('The operation timed out.', 'TimeoutError')), ms);
      return signal;
    }
    static any(signals) {
      const signal = new AbortSignal(CREATE);
      for (const source of signals) {
        if (source.aborted) { signalAbort(signal, source.reason); return signal; }
      }
      for (const source of signals) source.addEventListener('abort', () => signalAbort(signal, source.reason), { once: true });
      return signal;
    }
  }
  function signalAbort(signal, reason) {
    if (signal[S].aborted) return;
    signal[S].aborted = true;
    signal[S].reason = reason;
    const event = new Event('abort');
    if (typeof signal.onabort === 'function') {
      try { apply(signal.onabort, signal, [event]); } catch (error) { reportError(error); }
    }
    signal.dispatchEvent(event);
  }
  class AbortController {
    constructor() { this[S] = new AbortSignal(CREATE); }
    get signal() { return this[S]; }
    abort(reason) { signalAbort(this[S], reason === undefined ? abortError() : reason); }
  }

  // ---- ReadableStream ------------------------------------------------------------------------------
  function strategyOf(strategy, defaultHwm) {
    const hwm = strategy && strategy.highWaterMark !== undefined ? Number(strategy.highWaterMark) : defaultHwm;
    if (Number.isNaN(hwm) || hwm < 0) throw new RangeError('highWaterMark must be a non-negative number.');
    const size = strategy && typeof strategy.size === 'function' ? strategy.size : null;
    return { hwm, size };
  }
  class ReadableStreamDefaultController {
    constructor(key, stream) {
      if (key !== CREATE) throw new TypeError('Illegal constructor.');
      this[S] = stream;
    }
    get desiredSize() { return desiredSize(this[S]); }
    get byobRequest() { return null; }
    enqueue(chunk) {
      const st = this[S][S];
      if (st.closeRequested || st.state !== 'readable') throw new TypeError('The stream is closed or errored; it cannot take more chunks.');
      const reader = st.reader;
      if (reader !== null && reader[S].requests.length > 0) {
        reader[S].requests.shift().resolve({ value: chunk, done: false });
      } else {
        let size = 1;
        if (st.size !== null) {
          try { size = Number(st.size(chunk)); } catch (error) { errorStream(this[S], error); throw error; }
          if (!(size >= 0) || size === Infinity) { const e = new RangeError('The chunk size must be a finite, non-negative number.'); errorStream(this[S], e); throw e; }
        }
        st.queue.push({ chunk, size });
        st.queueSize += size;
      }
      pullIfNeeded(this[S]);
    }
    close() {
      const st = this[S][S];
      if (st.closeRequested || st.state !== 'readable') throw new TypeError('The stream is already closed or errored.');
      st.closeRequested = true;
      if (st.queue.length === 0) closeStream(this[S]);
    }
    error(reason) {
      if (this[S][S].state === 'readable') errorStream(this[S], reason);
    }
  }
  function desiredSize(stream) {
    const st = stream[S];
    if (st.state === 'errored') return null;
    if (st.state === 'closed') return 0;
    return st.hwm - st.queueSize;
  }
  function shouldPull(stream) {
    const st = stream[S];
    if (st.state !== 'readable' || st.closeRequested || !st.started) return false;
    if (st.reader !== null && st.reader[S].requests.length > 0) return true;
    return desiredSize(stream) > 0;
  }
  function pullIfNeeded(stream) {
    const st = stream[S];
    if (!shouldPull(stream)) return;
    if (st.pulling) { st.pullAgain = true; return; }
    st.pulling = true;
    let result;
    try {
      result = st.pull === undefined ? undefined : apply(st.pull, st.source, [st.controller]);
    } catch (error) {
      errorStream(stream, error);
      return;
    }
    Promise.resolve(result).then(
      () => {
        st.pulling = false;
        if (st.pullAgain) { st.pullAgain = false; pullIfNeeded(stream); }
      },
      (error) => errorStream(stream, error),
    );
  }
  function closeStream(stream) {
    const st = stream[S];
    if (st.state !== 'readable') return;
    st.state = 'closed';
    const reader = st.reader;
    if (reader !== null) {
      for (const request of reader[S].requests.splice(0)) request.resolve({ value: undefined, done: true });
      reader[S].closed.resolve(undefined);
    }
  }
  function errorStream(stream, reason) {
    const st = stream[S];
    if (st.state !== 'readable') return;
    st.state = 'errored';
    st.storedError = reason;
    st.queue = [];
    st.queueSize = 0;
    const reader = st.reader;
    if (reader !== null) {
      for (const request of reader[S].requests.splice(0)) request.reject(reason);
      reader[S].closed.reject(reason);
      handled(reader[S].closed.promise);
    }
  }
  function cancelStream(stream, reason) {
    const st = stream[S];
    st.disturbed = true;
    if (st.state === 'closed') return Promise.resolve();
    if (st.state === 'errored') return Promise.reject(st.storedError);
    st.queue = [];
    st.queueSize = 0;
    closeStream(stream);
    let result;
    try {
      result = st.cancel === undefined ? undefined : apply(st.cancel, st.source, [reason]);
    } catch (error) {
      return Promise.reject(error);
    }
    return Promise.resolve(result).then(() => undefined);
  }
  class ReadableStream {
    constructor(source = {}, strategy = {}) {
      if (source === null || typeof source !== 'object') source = {};
      const bytes = source.type === 'bytes';
      const { hwm, size } = strategyOf(strategy, bytes ? 0 : 1);
      const st = {
        state: 'readable', queue: [], queueSize: 0, reader: null, storedError: undefined, disturbed: false,
        closeRequested: false, pulling: false, pullAgain: false, started: false, hwm, size: bytes ? null : size,
        source, pull: typeof source.pull === 'function' ? source.pull : undefined,
        cancel: typeof source.cancel === 'function' ? source.cancel : undefined, controller: null,
      };
      this[S] = st;
      st.controller = new ReadableStreamDefaultController(CREATE, this);
      const startResult = typeof source.start === 'function' ? apply(source.start, source, [st.controller]) : undefined;
      Promise.resolve(startResult).then(
        () => { st.started = true; pullIfNeeded(this); },
        (error) => errorStream(this, error),
      );
    }
    get locked() { return this[S].reader !== null; }
    cancel(reason) {
      if (this.locked) return Promise.reject(new TypeError('The stream is locked to a reader.'));
      return cancelStream(this, reason);
    }
    getReader(options) {
      if (options && options.mode === 'byob') throw new TypeError('BYOB readers are not available in the inseam sandbox; use a default reader.');
      return new ReadableStreamDefaultReader(this);
    }
    pipeTo(destination, options = {}) {
      if (this.locked) return Promise.reject(new TypeError('The stream is locked to a reader.'));
      if (!(destination instanceof WritableStream)) return Promise.reject(new TypeError('pipeTo needs a WritableStream.'));
      if (destination.locked) return Promise.reject(new TypeError('The destination is locked to a writer.'));
      return pipe(this, destination, options || {});
    }
    pipeThrough(transform, options) {
      if (!transform || !(transform.readable instanceof ReadableStream) || !(transform.writable instanceof WritableStream)) {
        throw new TypeError('pipeThrough needs a { writable, readable } pair.');
      }
      handled(this.pipeTo(transform.writable, options));
      return transform.readable;
    }
    tee() { return tee(this); }
    values(options) { return iterate(this, !!(options && options.preventCancel)); }
    [Symbol.asyncIterator](options) { return this.values(options); }
    static from(source) {
      let iterator;
      if (source instanceof ReadableStream) return source;
      if (source !== null && source !== undefined && typeof source[Symbol.asyncIterator] === 'function') iterator = source[Symbol.asyncIterator]();
      else if (source !== null && source !== undefined && typeof source[Symbol.iterator] === 'function') iterator = source[Symbol.iterator]();
      else throw new TypeError('ReadableStream.from needs an iterable or an async iterable.');
      return new ReadableStream({
        async pull(controller) {
          const step = await iterator.next();
          if (step.done) controller.close();
          else controller.enqueue(await step.value);
        },
        async cancel(reason) { if (typeof iterator.return === 'function') await iterator.return(reason); },
      }, { highWaterMark: 0 });
    }
  }
  class ReadableStreamDefaultReader {
    constructor(stream) {
      if (!(stream instanceof ReadableStream)) throw new TypeError('A reader needs a ReadableStream.');
      if (stream.locked) throw new TypeError('The stream is already locked to a reader.');
      const st = stream[S];
      this[S] = { stream, requests: [], closed: deferred() };
      st.reader = this;
      if (st.state === 'closed') this[S].closed.resolve(undefined);
      if (st.state === 'errored') { this[S].closed.reject(st.storedError); handled(this[S].closed.promise); }
    }
    get closed() { return this[S].closed.promise; }
    read() {
      const stream = this[S].stream;
      if (stream === null) return Promise.reject(new TypeError('The reader was released.'));
      const st = stream[S];
      st.disturbed = true;
      if (st.state === 'closed') return Promise.resolve({ value: undefined, done: true });
      if (st.state === 'errored') return Promise.reject(st.storedError);
      if (st.queue.length > 0) {
        const item = st.queue.shift();
        st.queueSize -= item.size;
        if (st.queue.length === 0) st.queueSize = 0;
        if (st.closeRequested && st.queue.length === 0) closeStream(stream);
        else pullIfNeeded(stream);
        return Promise.resolve({ value: item.chunk, done: false });
      }
      const request = deferred();
      this[S].requests.push(request);
      pullIfNeeded(stream);
      return request.promise;
    }
    releaseLock() {
      const stream = this[S].stream;
      if (stream === null) return;
      const error = new TypeError('The reader was released.');
      for (const request of this[S].requests.splice(0)) request.reject(error);
      if (stream[S].state !== 'readable') this[S].closed = deferred();
      this[S].closed.reject(error);
      handled(this[S].closed.promise);
      stream[S].reader = null;
      this[S].stream = null;
    }
    cancel(reason) {
      const stream = this[S].stream;
      if (stream === null) return Promise.reject(new TypeError('The reader was released.'));
      return cancelStream(stream, reason);
    }
  }
  function iterate(stream, preventCancel) {
    const reader = stream.getReader();
    return {
      next() {
        return reader.read().then((step) => {
          if (step.done) reader.releaseLock();
          return step;
        });
      },
      return(value) {
        if (!preventCancel) { const p = reader.cancel(value); reader.releaseLock(); return p.then(() => ({ value, done: true })); }
        reader.releaseLock();
        return Promise.resolve({ value, done: true });
      },
      [Symbol.asyncIterator]() { return this; },
    };
  }
  function tee(stream) {
    const reader = stream.getReader();
    let reading = false;
    let canceled1 = false;
    let canceled2 = false;
    /** @type {any} */
    let c1;
    /** @type {any} */
    let c2;
    const cancelled = deferred();
    const reasons = [];
    function pull() {
      if (reading) return Promise.resolve();
      reading = true;
      return reader.read().then(
        (step) => {
          reading = false;
          if (step.done) {
            if (!canceled1) c1.close();
            if (!canceled2) c2.close();
            cancelled.resolve(undefined);
            return;
          }
          if (!canceled1) c1.enqueue(step.value);
          if (!canceled2) c2.enqueue(step.value);
        },
        (error) => { c1.error(error); c2.error(error); cancelled.resolve(undefined); },
      );
    }
    function cancelBranch(which, reason) {
      if (which === 1) canceled1 = true; else canceled2 = true;
      reasons.push(reason);
      if (canceled1 && canceled2) cancelled.resolve(reader.cancel(reasons));
      return cancelled.promise;
    }
    const b1 = new ReadableStream({ start(c) { c1 = c; }, pull, cancel: (r) => cancelBranch(1, r) });
    const b2 = new ReadableStream({ start(c) { c2 = c; }, pull, cancel: (r) => cancelBranch(2, r) });
    return [b1, b2];
  }
  async function pipe(source, destination, options) {
    const reader = source.getReader();
    const writer = destination.getWriter();
    const signal = options.signal;
    let abortListener = null;
    const aborted = new Promise((resolve, reject) => {
      if (signal instanceof AbortSignal) {
        if (signal.aborted) reject(signal.reason);
        abortListener = () => reject(signal.reason);
        signal.addEventListener('abort', abortListener, { once: true });
      }
    });
    handled(aborted);
    try {
      for (;;) {
        await Promise.race([writer.ready, aborted]);
        const step = await Promise.race([reader.read(), aborted]);
        if (step.done) break;
        await Promise.race([writer.write(step.value), aborted]);
      }
      if (!options.preventClose) await writer.close();
    } catch (error) {
      if (!options.preventAbort) await writer.abort(error).catch(noop);
      if (!options.preventCancel) await reader.cancel(error).catch(noop);
      throw error;
    } finally {
      if (abortListener !== null) signal.removeEventListener('abort', abortListener);
      reader.releaseLock();
      writer.releaseLock();
    }
  }

  // ---- WritableStream --------------------------------------------------------------------------------
  class WritableStreamDefaultController {
    constructor(key, stream) {
      if (key !== CREATE) throw new TypeError('Illegal constructor.');
      this[S] = { stream, abort: new AbortController() };
    }
    get signal() { return this[S].abort.signal; }
    error(reason) { errorWritable(this[S].stream, reason); }
  }
  function errorWritable(stream, reason) {
    const st = stream[S];
    if (st.state !== 'writable' && st.state !== 'closing') return;
    st.state = 'errored';
    st.storedError = reason;
    for (const item of st.queue.splice(0)) item.done.reject(reason);
    if (st.closeRequest !== null) { st.closeRequest.reject(reason); st.closeRequest = null; }
    st.closed.reject(reason);
    handled(st.closed.promise);
    st.ready.reject(reason);
    handled(st.ready.promise);
  }
  function writableDesiredSize(stream) {
    const st = stream[S];
    if (st.state === 'errored') return null;
    if (st.state === 'closed') return 0;
    return st.hwm - st.queueSize;
  }
  function updateReady(stream) {
    const st = stream[S];
    if (st.state !== 'writable') return;
    const ready = writableDesiredSize(stream) > 0;
    if (ready && !st.readyResolved) { st.readyResolved = true; st.ready.resolve(undefined); }
    if (!ready && st.readyResolved) { st.readyResolved = false; st.ready = deferred(); }
  }
  function advance(stream) {
    const st = stream[S];
    if (!st.started || st.inFlight || (st.state !== 'writable' && st.state !== 'closing')) return;
    if (st.queue.length === 0) {
      if (st.closeRequest === null) return;
      st.inFlight = true;
      const request = st.closeRequest;
      Promise.resolve()
        .then(() => (typeof st.sink.close === 'function' ? apply(st.sink.close, st.sink, []) : undefined))
        .then(
          () => { st.inFlight = false; st.state = 'closed'; st.closeRequest = null; request.resolve(undefined); st.closed.resolve(undefined); },
          (error) => { st.inFlight = false; errorWritable(stream, error); },
        );
      return;
    }
    const item = st.queue[0];
    st.inFlight = true;
    Promise.resolve()
      .then(() => (typeof st.sink.write === 'function' ? apply(st.sink.write, st.sink, [item.chunk, st.controller]) : undefined))
      .then(
        () => {
          st.inFlight = false;
          st.queue.shift();
          st.queueSize -= item.size;
          item.done.resolve(undefined);
          updateReady(stream);
          advance(stream);
        },
        (error) => { st.inFlight = false; errorWritable(stream, error); },
      );
  }
  class WritableStream {
    constructor(sink = {}, strategy = {}) {
      if (sink === null || typeof sink !== 'object') sink = {};
      const { hwm, size } = strategyOf(strategy, 1);
      const st = {
        state: 'writable', writer: null, queue: [], queueSize: 0, inFlight: false, closeRequest: null, storedError: undefined,
        hwm, size, sink, started: false, closed: deferred(), ready: deferred(), readyResolved: false, controller: null,
      };
      this[S] = st;
      st.controller = new WritableStreamDefaultController(CREATE, this);
      updateReady(this);
      const startResult = typeof sink.start === 'function' ? apply(sink.start, sink, [st.controller]) : undefined;
      Promise.resolve(startResult).then(
        () => { st.started = true; advance(this); },
        (error) => errorWritable(this, error),
      );
    }
    get locked() { return this[S].writer !== null; }
    abort(reason) {
      if (this.locked) return Promise.reject(new TypeError('The stream is locked to a writer.'));
      return abortWritable(this, reason);
    }
    close() {
      if (this.locked) return Promise.reject(new TypeError('The stream is locked to a writer.'));
      return closeWritable(this);
    }
    getWriter() { return new WritableStreamDefaultWriter(this); }
  }
  function abortWritable(stream, reason) {
    const st = stream[S];
    if (st.state === 'closed' || st.state === 'errored') return Promise.resolve();
    signalAbort(st.controller[S].abort.signal, reason === undefined ? abortError() : reason);
    errorWritable(stream, reason);
    return Promise.resolve()
      .then(() => (typeof st.sink.abort === 'function' ? apply(st.sink.abort, st.sink, [reason]) : undefined))
      .then(() => undefined);
  }
  function closeWritable(stream) {
    const st = stream[S];
    if (st.state !== 'writable' || st.closeRequest !== null) return Promise.reject(new TypeError('The stream is closed or closing.'));
    st.closeRequest = deferred();
    st.state = 'closing';
    const promise = st.closeRequest.promise;
    advance(stream);
    return promise;
  }
  class WritableStreamDefaultWriter {
    constructor(stream) {
      if (!(stream instanceof WritableStream)) throw new TypeError('A writer needs a WritableStream.');
      if (stream.locked) throw new TypeError('The stream is already locked to a writer.');
      stream[S].writer = this;
      this[S] = stream;
    }
    get closed() { return this[S] === null ? Promise.reject(new TypeError('The writer was released.')) : this[S][S].closed.promise; }
    get ready() { return this[S] === null ? Promise.reject(new TypeError('The writer was released.')) : this[S][S].ready.promise; }
    get desiredSize() { if (this[S] === null) throw new TypeError('The writer was released.'); return writableDesiredSize(this[S]); }
    write(chunk) {
      const stream = this[S];
      if (stream === null) return Promise.reject(new TypeError('The writer was released.'));
      const st = stream[S];
      if (st.state === 'errored') return Promise.reject(st.storedError);
      if (st.state !== 'writable') return Promise.reject(new TypeError('The stream is closed or closing.'));
      let size = 1;
      if (st.size !== null) {
        try { size = Number(st.size(chunk)); } catch (error) { errorWritable(stream, error); return Promise.reject(error); }
      }
      const done = deferred();
      st.queue.push({ chunk, size, done });
      st.queueSize += size;
      updateReady(stream);
      advance(stream);
      return done.promise;
    }
    close() { return this[S] === null ? Promise.reject(new TypeError('The writer was released.')) : closeWritable(this[S]); }
    abort(reason) { return this[S] === null ? Promise.reject(new TypeError('The writer was released.')) : abortWritable(this[S], reason); }
    releaseLock() {
      if (this[S] === null) return;
      this[S][S].writer = null;
      this[S] = null;
    }
  }

  // ---- Bodies, Request, Response ---------------------------------------------------------------------
  // A body is kept as bytes while it can be (fast paths for text(), json(), inline uploads) and
  // becomes a stream only when someone asks for one.
  function extractBody(body) {
    if (body === null || body === undefined) return null;
    if (body instanceof ReadableStream) {
      if (body.locked || body[S].disturbed) throw new TypeError('The body stream is locked or already read.');
      return { bytes: null, stream: body, type: null };
    }
    if (typeof body === 'string') return { bytes: new U8(host.utf8Encode(body)), stream: null, type: 'text/plain;charset=UTF-8' };
    if (body instanceof URLSearchParams) return { bytes: new U8(host.utf8Encode(body.toString())), stream: null, type: 'application/x-www-form-urlencoded;charset=UTF-8' };
    if (body instanceof AB || isView(body)) return { bytes: copyBytes(body), stream: null, type: null };
    return { bytes: new U8(host.utf8Encode(String(body))), stream: null, type: 'text/plain;charset=UTF-8' };
  }
  function bodyStream(state) {
    if (state.body === null) return null;
    if (state.body.stream === null) {
      const bytes = state.body.bytes;
      state.body.stream = new ReadableStream({
        start(controller) {
          if (bytes.length > 0) controller.enqueue(bytes);
          controller.close();
        },
      });
      state.body.bytes = null;
    }
    return state.body.stream;
  }
  async function consumeBytes(owner) {
    const state = owner[S];
    if (state.used) throw new TypeError('The body was already read.');
    state.used = true;
    const body = state.body;
    if (body === null) return new U8(0);
    if (body.bytes !== null && body.stream === null) return body.bytes;
    if (body.stream[S].disturbed || body.stream.locked) throw new TypeError('The body stream is locked or already read.');
    const reader = body.stream.getReader();
    const parts = [];
    let total = 0;
    for (;;) {
      const step = await reader.read();
      if (step.done) break;
      const part = copyBytes(step.value);
      parts.push(part);
      total += part.length;
    }
    if (parts.length === 1) return parts[0];
    const out = new U8(total);
    let offset = 0;
    for (const part of parts) { out.set(part, offset); offset += part.length; }
    return out;
  }
  const decoder = new TextDecoder();
  const BodyMethods = {
    get body() { return bodyStream(this[S]); },
    get bodyUsed() { const s = this[S]; return s.used || (s.body !== null && s.body.stream !== null && s.body.stream[S].disturbed); },
    async arrayBuffer() { const bytes = await consumeBytes(this); return bytes.buffer.byteLength === bytes.length ? bytes.buffer : bytes.slice().buffer; },
    async bytes() { return consumeBytes(this); },
    async text() { return decoder.decode(await consumeBytes(this)); },
    async json() {
      const bytes = await consumeBytes(this);
      // The sandbox process parses it (at native speed) when it can; otherwise QuickJS does.
      let parsed;
      try {
        const r = region(bytes);
        parsed = r[2] === 0 ? undefined : host.parseJson(r[0], r[1], r[2]);
      } catch (error) {
        parsed = undefined;
      }
      return parsed !== undefined ? parsed : parse(decoder.decode(bytes));
    },
    async blob() { throw new TypeError('Blob is not available in the inseam sandbox; use arrayBuffer() or bytes().'); },
    async formData() { throw new TypeError('FormData is not available in the inseam sandbox.'); },
  };
  function mixBody(target) {
    for (const key of Object.keys(Object.getOwnPropertyDescriptors(BodyMethods))) {
      Object.defineProperty(target.prototype, key, Object.getOwnPropertyDescriptor(BodyMethods, key));
    }
  }
  function cloneBody(state) {
    if (state.used) throw new TypeError('The body was already read; it cannot be cloned.');
    if (state.body === null) return null;
    if (state.body.stream === null) return { bytes: state.body.bytes, stream: null, type: state.body.type };
    const pair = state.body.stream.tee();
    state.body.stream = pair[0];
    return { bytes: null, stream: pair[1], type: state.body.type };
  }
  const NORMALISED_METHODS = ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT'];
  class Request {
    constructor(input, init = {}) {
      init = init || {};
      let url;
      let method = 'GET';
      let headers;
      let body = null;
      let signal = null;
      let redirect = 'follow';
      if (input instanceof Request) {
        url = input.url;
        method = input.method;
        headers = new Headers(input.headers);
        signal = input.signal;
        redirect = input.redirect;
        if (init.body === undefined && input[S].body !== null) {
          // bodyUsed comes from BodyMethods, copied onto Request's prototype below.
          if (/** @type {any} */ (input).bodyUsed) throw new TypeError('The request body was already read.');
          body = input[S].body;
          input[S].used = true;
        }
      } else {
        url = new URL(String(input)).href;
        headers = new Headers();
      }
      if (init.method !== undefined) {
        const m = String(init.method);
        if (!TOKEN.test(m)) throw new TypeError('Invalid method: "' + m + '".');
        method = NORMALISED_METHODS.includes(m.toUpperCase()) ? m.toUpperCase() : m;
        if (['CONNECT', 'TRACE', 'TRACK'].includes(m.toUpperCase())) throw new TypeError('The method ' + m + ' is forbidden.');
      }
      if (init.headers !== undefined) headers = new Headers(init.headers);
      if (init.signal !== undefined && init.signal !== null) signal = init.signal;
      if (init.redirect !== undefined) {
        redirect = String(init.redirect);
        if (!['follow', 'manual', 'error'].includes(redirect)) throw new TypeError('redirect must be follow, manual or error.');
      }
      if (init.body !== undefined && init.body !== null) body = extractBody(init.body);
      if (body !== null && (method === 'GET' || method === 'HEAD')) throw new TypeError('A ' + method + ' request cannot have a body.');
      if (body !== null && body.type !== null && !headers.has('content-type')) headers.set('content-type', body.type);
      this[S] = { url, method, headers, body, used: false, signal: signal || new AbortController().signal, redirect };
    }
    get url() { return this[S].url; }
    get method() { return this[S].method; }
    get headers() { return this[S].headers; }
    get signal() { return this[S].signal; }
    get redirect() { return this[S].redirect; }
    get duplex() { return 'half'; }
    clone() {
      const copy = new Request(this.url, { method: this.method, headers: this.headers, signal: this.signal, redirect: this.redirect });
      copy[S].body = cloneBody(this[S]);
      return copy;
    }
  }
  mixBody(Request);
  class Response {
    constructor(body = null, init = {}) {
      init = init || {};
      const status = init.status === undefined ? 200 : Number(init.status);
      if (!Number.isInteger(status) || status < 200 || status > 599) throw new RangeError('Response status must be an integer from 200 to 599.');
      const headers = new Headers(init.headers);
      const extracted = extractBody(body);
      if (extracted !== null && [101, 204, 205, 304].includes(status)) throw new TypeError('A ' + status + ' response cannot have a body.');
      if (extracted !== null && extracted.type !== null && !headers.has('content-type')) headers.set('content-type', extracted.type);
      this[S] = { status, statusText: init.statusText === undefined ? '' : String(init.statusText), headers, body: extracted, used: false, url: '', type: 'default', redirected: false };
    }
    get status() { return this[S].status; }
    get ok() { return this[S].status >= 200 && this[S].status <= 299; }
    get statusText() { return this[S].statusText; }
    get headers() { return this[S].headers; }
    get url() { return this[S].url; }
    get type() { return this[S].type; }
    get redirected() { return this[S].redirected; }
    clone() {
      const copy = new Response(null, { status: 200 });
      const state = this[S];
      copy[S] = { status: state.status, statusText: state.statusText, headers: new Headers(state.headers), body: cloneBody(state), used: false, url: state.url, type: state.type, redirected: state.redirected };
      return copy;
    }
    static json(data, init = {}) {
      const text = stringify(data);
      if (text === undefined) throw new TypeError('Response.json: the value is not JSON.');
      const headers = new Headers(init && init.headers);
      if (!headers.has('content-type')) headers.set('content-type', 'application/json');
      return new Response(text, { status: init && init.status, statusText: init && init.statusText, headers });
    }
    static error() {
      const r = new Response(null);
      r[S].status = 0;
      r[S].type = 'error';
      return r;
    }
    static redirect(url, status = 302) {
      if (![301, 302, 303, 307, 308].includes(status)) throw new RangeError('Invalid redirect status.');
      return new Response(null, { status, headers: { location: new URL(String(url)).href } });
    }
  }
  mixBody(Response);

  // ---- Streams across the boundary ------------------------------------------------------------------
  // Outbound: a module's stream read by the platform (read() results, upload bodies).
  let nextOutbound = BASE + 1;
  const outbound = new Map();
  function openOutbound(stream) {
    const id = nextOutbound++;
    const reader = stream.getReader();
    outbound.set(id, { reader, credit: 0, reading: false, pending: null });
    return id;
  }
  function closeOutbound(id) {
    if (outbound.delete(id)) quiesce();
  }
  function pumpOutbound(id) {
    const st = outbound.get(id);
    if (st === undefined) return;
    while (st.credit > 0 && st.pending !== null) {
      const r = st.pending;
      const size = Math.min(r.length, MAX_CHUNK);
      post('chunk', id, undefined, r.buffer, r.offset, size);
      st.credit--;
      r.offset += size;
      r.length -= size;
      if (r.length === 0) st.pending = null;
    }
    if (st.credit <= 0 || st.reading || st.pending !== null) return;
    st.reading = true;
    st.reader.read().then(
      (step) => {
        st.reading = false;
        if (!outbound.has(id)) return;
        if (step.done) { post('end', id); closeOutbound(id); return; }
        try {
          if (!(step.value instanceof U8)) throw new TypeError('Streams handed to the platform must carry Uint8Array chunks.');
          // Copy now: the module may reuse, resize or detach its buffer after handing the chunk over.
          const r = region(step.value);
          const copy = r[0].slice(r[1], r[1] + r[2]);
          st.pending = copy.byteLength === 0 ? null : { buffer: copy, offset: 0, length: copy.byteLength };
        } catch (error) {
          post('error', id, stringify(describeError(error)));
          closeOutbound(id);
          handled(st.reader.cancel(error));
          return;
        }
        pumpOutbound(id);
      },
      (error) => {
        st.reading = false;
        if (!outbound.has(id)) return;
        post('error', id, stringify(describeError(error)));
        closeOutbound(id);
      },
    );
  }
  // Inbound: a platform stream read by the module (write() bodies, fetch response bodies).
  const inbound = new Map();
  // granted: the producer starts with the whole window of credit (fetch response bodies).
  function openInbound(id, granted) {
    const st = { controller: null, outstanding: granted ? WINDOW : 0 };
    inbound.set(id, st);
    return new ReadableStream({
      start(controller) { st.controller = controller; },
      pull(controller) {
        const want = controller.desiredSize - st.outstanding;
        if (want > 0 && inbound.has(id)) {
          st.outstanding += want;
          post('credit', id, String(want));
        }
      },
      cancel() {
        if (inbound.delete(id)) post('cancel', id);
      },
    }, { highWaterMark: WINDOW });
  }
  function cancelAllInbound() {
    for (const [id, st] of inbound) {
      post('cancel', id);
      try { st.controller.error(new TypeError('The body was abandoned when the call ended.')); } catch (e) { /* already closed */ }
    }
    inbound.clear();
  }

  // ---- fetch, through the platform's egress gate --------------------------------------------------------
  let nextFetch = BASE + 1;
  const fetches = new Map();
  function fetch(input, init) {
    return new Promise((resolve, reject) => {
      const request = new Request(input, init);
      const signal = request.signal;
      if (signal.aborted) { reject(signal.reason); return; }
      const id = nextFetch++;
      const ask = { url: request.url, method: request.method, headers: Array.from(request.headers.entries()) };
      const body = request[S].body;
      request[S].used = body !== null;
      const onAbort = () => {
        const pending = fetches.get(id);
        if (pending === undefined) return;
        fetches.delete(id);
        post('fetchAbort', id);
        if (pending.upload !== undefined) closeOutbound(pending.upload);
        reject(signal.reason);
      };
      const entry = { resolve, reject, signal, onAbort, url: request.url, upload: undefined };
      fetches.set(id, entry);
      signal.addEventListener('abort', onAbort, { once: true });
      if (body === null) {
        post('fetch', id, stringify(ask));
      } else if (body.stream === null) {
        ask.body = 'bytes';
        postBytes('fetch', id, stringify(ask), body.bytes);
      } else {
        entry.upload = openOutbound(body.stream);
        ask.body = entry.upload;
        post('fetch', id, stringify(ask));
      }
    });
  }
  function fetchHead(id, json) {
    const pending = fetches.get(id);
    const head = parse(json);
    if (pending === undefined) {
      // Aborted before the answer came: the platform's side of the body is released at once.
      if (typeof head.body === 'number') post('cancel', head.body);
      return;
    }
    fetches.delete(id);
    pending.signal.removeEventListener('abort', pending.onAbort);
    const response = new Response(null, { status: 200 });
    const state = response[S];
    state.status = head.status;
    state.headers = new Headers(head.headers);
    state.url = pending.url;
    if (head.body !== null) {
      const stream = openInbound(head.body, true);
      state.body = { bytes: null, stream, type: null };
      pending.signal.addEventListener('abort', () => { handled(stream.cancel(pending.signal.reason)); }, { once: true });
    }
    pending.resolve(response);
  }
  function fetchError(id, json) {
    const pending = fetches.get(id);
    if (pending === undefined) return;
    fetches.delete(id);
    pending.signal.removeEventListener('abort', pending.onAbort);
    const failure = parse(json);
    const error = /** @type {TypeError & { code?: string }} */ (new TypeError('fetch failed: ' + failure.message));
    if (failure.failure !== undefined) {
      error.cause = { failure: failure.failure, origin: failure.origin };
      if (failure.failure === 'origin_refused') error.code = 'egress_refused';
    }
    pending.reject(error);
  }
  function abortAllFetches() {
    for (const [id, pending] of fetches) {
      post('fetchAbort', id);
      pending.signal.removeEventListener('abort', pending.onAbort);
      pending.reject(new DOMException('The request was abandoned when the call ended.', 'AbortError'));
    }
    fetches.clear();
  }

  // ---- Calls -----------------------------------------------------------------------------------------------
  let connector = null;
  let activeCalls = 0;
  const watches = new Map();
  // Between calls nothing of the module runs: its timers, requests and bodies are dropped.
  function quiesce() {
    if (activeCalls > 0 || outbound.size > 0 || watches.size > 0) return;
    for (const id of timers.keys()) post('clearTimer', id);
    timers.clear();
    abortAllFetches();
    cancelAllInbound();
  }
  function errorInfo(error) {
    const info = {};
    try {
      if (error !== null && (typeof error === 'object' || typeof error === 'function')) {
        const name = error.name;
        const message = error.message;
        const code = error.code;
        if (typeof name === 'string') info.name = name;
        if (typeof message === 'string') info.message = message;
        if (typeof code === 'string') info.code = code;
      } else {
        info.message = String(error);
      }
    } catch (e) {
      info.message = '[an error that could not be read]';
    }
    return info;
  }
  function settle(id, outcome) {
    post('result', id, outcome);
    activeCalls--;
    quiesce();
  }
  // The result as the value handed to host.encodeResult, already encoded in the sandbox process.
  function settleEncoded(id) {
    post('resultEncoded', id);
    activeCalls--;
    quiesce();
  }
  function fail(id, error) {
    settle(id, stringify({ ok: false, error: errorInfo(error) }));
  }
  function succeed(id, method, value) {
    if (method === 'read') {
      if (!(value instanceof ReadableStream)) { fail(id, new TypeError('read() must resolve to a ReadableStream of Uint8Array chunks.')); return; }
      if (value.locked) { fail(id, new TypeError('read() returned a stream that is locked to a reader.')); return; }
      settle(id, stringify({ ok: true, stream: openOutbound(value) }));
      return;
    }
    const result = value === undefined ? null : value;
    let plan = null;
    // Listings are where results grow large; for a single entry the extra steps cost more than they save.
    if (method === 'list' || method === 'webhook') {
      try {
        plan = encodeResult(result);
      } catch (error) {
        plan = null;
      }
    }
    let plain = false;
    if (plan !== null) {
      try {
        plain = plainData(result, plan[0], plan[1]);
      } catch (error) {
        plain = false;
      }
    }
    if (plain) {
      settleEncoded(id);
      return;
    }
    let text;
    try {
      text = stringify({ ok: true, value: result });
    } catch (error) {
      fail(id, new TypeError(method + '() returned a value that is not JSON: ' + describeError(error)));
      return;
    }
    settle(id, text);
  }
  function need(method) {
    if (connector === null) throw new Error('The connector is not initialised.');
    const fn = connector[method];
    if (typeof fn !== 'function') {
      const error = /** @type {TypeError & { code?: string }} */ (new TypeError('The connector has no ' + method + '() method.'));
      error.code = 'unsupported';
      throw error;
    }
    return fn;
  }
  function webhookRequest(spec) {
    const init = { method: spec.method, headers: spec.headers };
    if (typeof spec.body === 'string') {
      const binary = atob(spec.body);
      const bytes = new U8(binary.length);
      for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
      init.body = bytes;
    }
    return new Request(spec.url, init);
  }
  function invoke(id, spec) {
    const args = spec.args;
    switch (spec.method) {
      case 'describe': return apply(need('describe'), connector, []);
      case 'list': return apply(need('list'), connector, [args[0] === undefined ? {} : args[0]]);
      case 'stat': return apply(need('stat'), connector, [args[0]]);
      case 'read': return apply(need('read'), connector, args[1] === undefined ? [args[0]] : [args[0], args[1]]);
      case 'write': return apply(need('write'), connector, [args[0], openInbound(spec.body), args[1] === undefined ? {} : args[1]]);
      case 'delete': return apply(need('delete'), connector, [args[0]]);
      case 'webhook': return apply(need('webhook'), connector, [webhookRequest(args[0])]);
      case 'watch': {
        const watch = need('watch');
        const emit = (event) => {
          if (!watches.has(id)) return;
          const text = stringify(event);
          if (text === undefined) throw new TypeError('emit(event) needs a JSON event.');
          post('event', id, text);
        };
        watches.set(id, null);
        return Promise.resolve(apply(watch, connector, [emit])).then((stop) => {
          if (watches.has(id)) watches.set(id, typeof stop === 'function' ? stop : null);
          return null;
        }, (error) => { watches.delete(id); throw error; });
      }
      case 'unwatch': {
        const key = Number(args[0]);
        const stop = watches.get(key);
        watches.delete(key);
        return typeof stop === 'function' ? Promise.resolve(apply(stop, undefined, [])).then(() => null) : null;
      }
      default: throw new TypeError('Unknown method ' + String(spec.method) + '.');
    }
  }
  function call(id, json) {
    activeCalls++;
    let spec;
    try {
      spec = parse(json);
    } catch (error) {
      fail(id, error);
      return;
    }
    let result;
    try {
      result = invoke(id, spec);
    } catch (error) {
      fail(id, error);
      return;
    }
    Promise.resolve(result).then((value) => succeed(id, spec.method, value), (error) => fail(id, error));
  }
  function init(id, namespace, configJson) {
    activeCalls++;
    Promise.resolve(namespace)
      .then((namespace) => {
        const config = parse(configJson);
        if (namespace !== null && typeof namespace === 'object' && typeof namespace.createConnector === 'function') {
          return namespace.createConnector(config);
        }
        if (namespace !== null && typeof namespace === 'object' && namespace.default !== null && typeof namespace.default === 'object') {
          return namespace.default;
        }
        throw new TypeError('The module must export createConnector(config), or a default export that is the connector object.');
      })
      .then((value) => {
        if (value === null || typeof value !== 'object') throw new TypeError('createConnector(config) must return the connector object.');
        connector = value;
        settle(id, stringify({ ok: true }));
      })
      .catch((error) => fail(id, error));
  }

  function receive(op, id, json, buffer) {
    switch (op) {
      case 'call': call(id, json); break;
      case 'timer': fireTimer(id); break;
      case 'credit': {
        const st = outbound.get(id);
        if (st !== undefined) { st.credit += Number(json); pumpOutbound(id); }
        break;
      }
      case 'cancel': {
        const st = outbound.get(id);
        if (st !== undefined) { closeOutbound(id); handled(st.reader.cancel(new DOMException('The platform cancelled the stream.', 'AbortError'))); }
        break;
      }
      case 'chunk': {
        const st = inbound.get(id);
        if (st !== undefined) { st.outstanding--; st.controller.enqueue(new U8(buffer)); }
        break;
      }
      case 'end': {
        const st = inbound.get(id);
        if (st !== undefined) { inbound.delete(id); st.controller.close(); }
        break;
      }
      case 'error': {
        const st = inbound.get(id);
        if (st !== undefined) { inbound.delete(id); st.controller.error(new TypeError(parse(json))); }
        break;
      }
      case 'fetchHead': fetchHead(id, json); break;
      case 'fetchError': fetchError(id, json); break;
      default: break;
    }
  }

  // ---- Intl.DateTimeFormat (answered by the sandbox process's ICU: IANA zones, DST) ---------------
  // QuickJS has no Intl. This one formats in en-US only, Gregorian, Latin digits; the default time
  // zone is UTC. Enough to turn a calendar's local time into an instant and back (docs/connectors/
  // authoring.md shows how).
  const DTF_OPTIONS = ['timeZone', 'hour12', 'hourCycle', 'weekday', 'era', 'year', 'month', 'day', 'dayPeriod',
    'hour', 'minute', 'second', 'fractionalSecondDigits', 'timeZoneName', 'dateStyle', 'timeStyle'];
  /** @param {string} text */
  function dtfAnswer(text) {
    const answer = parse(text);
    if (answer.error !== undefined) throw new RangeError(answer.error);
    return answer;
  }
  /** @param {any} value */
  function epochOf(value) {
    const ms = value === undefined ? Date.now() : Number(value instanceof Date ? value.getTime() : value);
    if (!isFinite(ms)) throw new RangeError('Invalid time value');
    return ms;
  }
  class DateTimeFormat {
    /**
     * @param {any} [_locales] ignored: the sandbox formats in en-US
     * @param {any} [options]
     */
    constructor(_locales, options) {
      /** @type {Record<string, string | number | boolean>} */
      const picked = {};
      if (options !== undefined) {
        if (options === null || (typeof options !== 'object' && typeof options !== 'function')) throw new TypeError('Intl.DateTimeFormat options must be an object.');
        for (const key of DTF_OPTIONS) {
          const value = options[key];
          if (value === undefined) continue;
          picked[key] = typeof value === 'boolean' || typeof value === 'number' ? value : String(value);
        }
      }
      const text = stringify(picked);
      this[S] = { text, resolved: dtfAnswer(host.dateTimeFormat(text)).resolved, bound: null };
    }
    /** @param {any} [date] */
    formatToParts(date) {
      return dtfAnswer(host.dateTimeFormat(this[S].text, epochOf(date))).parts;
    }
    get format() {
      const internal = this[S];
      // V8's format (not its formatToParts) writes U+202F before AM/PM as a plain space, for the
      // web's sake; so does this one.
      if (internal.bound === null) internal.bound = (/** @type {any} */ date) => this.formatToParts(date).map((/** @type {any} */ part) => part.value).join('').replace(/\u202f/g, ' ');
      return internal.bound;
    }
    resolvedOptions() { return Object.assign({}, this[S].resolved); }
    static supportedLocalesOf() { return ['en-US']; }
  }
  const Intl = {
    DateTimeFormat,
    /** @param {string} key */
    supportedValuesOf(key) {
      if (key !== 'timeZone') throw new RangeError('Intl.supportedValuesOf: the sandbox lists "timeZone" values only.');
      return parse(host.timeZones());
    },
  };
  // With options, Date's locale strings go through the same formatter (QuickJS's ignore them).
  /**
   * @param {string} name
   * @param {Record<string, string>} defaults
   */
  function localeString(name, defaults) {
    const original = Date.prototype[name];
    Object.defineProperty(Date.prototype, name, {
      value: /** @this {Date} */ function (/** @type {any} */ locales, /** @type {any} */ options) {
        if (options === undefined) return apply(original, this, []);
        const given = Object.assign({}, options);
        if (!DTF_OPTIONS.some((key) => key !== 'timeZone' && key !== 'hour12' && key !== 'hourCycle' && given[key] !== undefined)) Object.assign(given, defaults);
        return new DateTimeFormat(locales, given).format(this);
      },
      writable: true, configurable: true, enumerable: false,
    });
  }
  localeString('toLocaleString', { year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric' });
  localeString('toLocaleDateString', { year: 'numeric', month: 'numeric', day: 'numeric' });
  localeString('toLocaleTimeString', { hour: 'numeric', minute: 'numeric', second: 'numeric' });

  const globals = {
    DOMException, Event, EventTarget, AbortController, AbortSignal, TextEncoder, TextDecoder, URL, URLSearchParams,
    Headers, Request, Response, ReadableStream, ReadableStreamDefaultReader, ReadableStreamDefaultController,
    WritableStream, WritableStreamDefaultWriter, WritableStreamDefaultController, fetch, atob, btoa, console,
    setTimeout, clearTimeout, setInterval, clearInterval, queueMicrotask, Intl,
  };
  for (const key of Object.keys(globals)) {
    Object.defineProperty(G, key, { value: globals[key], writable: true, configurable: true, enumerable: false });
  }
  G.performance = { now: () => Date.now(), timeOrigin: Date.now() };
  G.self = G;
  return { receive, init };
});
