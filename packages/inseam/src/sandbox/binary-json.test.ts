/**
 * The result fast path: QuickJS's binary serialisation sent to the platform and decoded there. The
 * decoder must build exactly what JSON.parse (as parseUntrustedJson runs it) builds from QuickJS's
 * JSON.stringify text for plain data, and the planner must give up on anything else; the prelude's
 * plan check must send everything JSON.stringify would treat differently (a toJSON anywhere, own
 * or inherited; Dates, accessors, exotic objects) back to JSON.stringify. Results must read the same
 * on the platform whichever path they took. The decoder reads bytes from a process that may have
 * been taken over: it is attacked with truncated, forged and mutated frames.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newQuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSWASMModule } from 'quickjs-emscripten';
import { BINARY_JSON_VERSION, MAX_ENCODED_DEPTH, decodeBinaryJson, encodeBinaryJson, planBinaryJson } from './binary-json.js';
import type { BinaryPlan } from './binary-json.js';
import { SandboxHost } from './host.js';
import { ModuleInstance } from './runtime.js';
import type { WireMessage } from './protocol.js';
import { parseUntrustedJson } from './results.js';
import type { SandboxedConnector } from './sandboxed-connector.js';
import { passthroughEgress } from './__fixtures__/egress.js';
import { connectorModule } from './__fixtures__/modules.js';

const planned = vi.hoisted(() => ({ outcomes: [] as (BinaryPlan | undefined)[] }));
vi.mock('./binary-json.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./binary-json.js')>();
  return {
    ...actual,
    planBinaryJson: (...args: Parameters<typeof actual.planBinaryJson>) => {
      const outcome = actual.planBinaryJson(...args);
      planned.outcomes.push(outcome);
      return outcome;
    },
  };
});

let quickjs: QuickJSWASMModule;
let context: QuickJSContext;

beforeAll(async () => {
  quickjs = await newQuickJSWASMModule(RELEASE_SYNC);
  context = quickjs.newContext();
});
afterAll(() => context.dispose());

/** The value of `expression` in QuickJS: its binary form, and JSON.stringify's text of it. */
function inQuickJS(expression: string): { bytes: Uint8Array; json: string | undefined } {
  const value = context.unwrapResult(context.evalCode(`(${expression})`));
  const encoded = context.encodeBinaryJSON(value);
  const view = context.getArrayBuffer(encoded);
  const bytes = view.value.slice();
  view.dispose();
  encoded.dispose();
  context.setProp(context.global, '__value', value);
  value.dispose();
  const text = context.unwrapResult(context.evalCode('(() => { try { return JSON.stringify(globalThis.__value); } catch (error) { return undefined; } })()'));
  const json = context.typeof(text) === 'string' ? context.getString(text) : undefined;
  text.dispose();
  return { bytes, json };
}

const PLAIN: readonly string[] = [
  `{ a: 1, b: 'x', c: [1, 2.5, null, true, false, undefined], g: -0, h: NaN, i: 2147483647, j: 2147483648, k: -1, l: -Infinity, m: 1e21, n: 1e-7, o: 0.1 + 0.2, p: 2 ** 53 + 2 }`,
  `{ control: '\\u0000\\u0001\\b\\t\\n\\f\\r\\u001f"\\\\/\\u007f', latin1: '\\u0080é\\u00ff', wide: '€\\u2028\\u2029😀', lone: 'a\\ud800b\\udc00c\\ud83d', end: 'x\\ud83d' }`,
  `{ '"quoted"': 1, 'new\\nline': 2, 'ü': 3, '€uro': 4, '': 5, 'a\\ud800': 6, '4294967295': 7, '01': 8, '-1': 9 }`,
  `{ ['__proto__']: { polluted: 1 }, constructor: { prototype: 2 }, a: [{ prototype: 3, b: 4 }], toString: 'own', hasOwnProperty: 5 }`,
  `{ cursor: 'next', entries: [{ cursor: 'inner' }] }`,
  `[[], {}, [[]], [{}], { a: {} }]`,
  `{ u: undefined, v: 1, w: undefined }`,
  `{ u: undefined }`,
  `[undefined, 1, undefined]`,
  `[1, , 3, , ]`,
  `Object.assign(Object.create(null), { a: 1, b: [Object.create(null)] })`,
  `Object.defineProperty({ a: 1 }, 'hidden', { value: 2, enumerable: false })`,
  `(() => { const o = { a: 1, b: 2, c: 3 }; delete o.b; o.d = 4; return o; })()`,
  `{ [Symbol('s')]: 1, a: 2 }`,
  `{ entries: Array.from({ length: 1000 }, (_, i) => ({ path: 'd/e/file-' + i + '.txt', size: i * 7, mtime: new Date(1700000000000 + i).toISOString(), extra: { n: i % 3 === 0 ? null : [i, { deep: 'é' + i }] } })), cursor: 'c1.abc' }`,
  `'just a string'`,
  `42`,
  `-1.5`,
  `true`,
  `null`,
  `'€😀'`,
];

const GIVE_UP: readonly string[] = [
  'new Date(0)',
  '{ when: new Date(0) }',
  `{ s: new String('x') }`,
  '10n',
  '{ big: 10n }',
  '{ bytes: new Uint8Array(2) }',
  '{ buffer: new ArrayBuffer(2) }',
  '(() => { const shared = { a: 1 }; return [shared, shared]; })()',
  '(() => { const a = { x: 1 }; a.self = a; return a; })()',
  `{ b: 1, 2: 'x', 1: 'y' }`,
  `{ '4294967294': 1 }`,
  '[[{ a: [{ b: 2 }] }, { c: { d: 3 } }], { n: 1, k: { 7: 0 } }]',
  'undefined',
];

/** Whether `value` is JSON data only: plain objects and arrays, strings, finite numbers (no −0), booleans, null; no poison key anywhere. */
function jsonDataOnly(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (next === null || typeof next === 'string' || typeof next === 'boolean') continue;
    if (typeof next === 'number') {
      if (!Number.isFinite(next) || Object.is(next, -0)) return false;
      continue;
    }
    if (typeof next !== 'object') return false;
    if (Array.isArray(next)) {
      if (Object.getPrototypeOf(next) !== Array.prototype) return false;
      stack.push(...(next as unknown[]));
      continue;
    }
    if (Object.getPrototypeOf(next) !== Object.prototype) return false;
    for (const key of Reflect.ownKeys(next)) {
      if (typeof key !== 'string' || key === '__proto__' || key === 'constructor' || key === 'prototype') return false;
      const descriptor = Object.getOwnPropertyDescriptor(next, key);
      if (descriptor === undefined || !('value' in descriptor) || descriptor.enumerable !== true) return false;
      stack.push(descriptor.value);
    }
  }
  return true;
}

/** Bytes for the decoder, written by hand: version, names, then the value. */
function frame(...parts: number[]): Uint8Array {
  return new Uint8Array([BINARY_JSON_VERSION, ...parts]);
}

describe('planBinaryJson and decodeBinaryJson', () => {
  it('reads the format version the bundled QuickJS writes', () => {
    expect(inQuickJS('{}').bytes[0]).toBe(BINARY_JSON_VERSION);
  });

  it.each(PLAIN)('decodes what JSON.parse makes of JSON.stringify’s text, key order and all: %s', (expression) => {
    const { bytes, json } = inQuickJS(expression);
    expect(json).toBeDefined();
    expect(planBinaryJson(bytes)).toBeDefined();
    const decoded = decodeBinaryJson(bytes);
    const expected = parseUntrustedJson(json as string);
    expect(decoded).toEqual(expected);
    expect(JSON.stringify(decoded)).toBe(JSON.stringify(expected));
    expect(jsonDataOnly(decoded)).toBe(true);
  });

  it.each(GIVE_UP)('gives up where JSON.stringify may differ, and so does the decoder: %s', (expression) => {
    const { bytes } = inQuickJS(expression);
    expect(planBinaryJson(bytes)).toBeUndefined();
    expect(decodeBinaryJson(bytes)).toBeUndefined();
  });

  it('plans a walk over every object and array, by index or property name', () => {
    const result = planBinaryJson(inQuickJS(`{ a: [1, { b: [] }, 'x', []], c: { d: null }, e: 2 }`).bytes);
    expect(result?.names).toEqual(['a', 'b', 'c', 'd', 'e']);
    // root: 2 children — a (names[0]): 2 children — [1]: 1 child — b (names[1]): 0; [3]: 0 — c (names[2]): 0
    expect([...(result?.plan ?? [])]).toEqual([2, -1, 2, 1, 1, -2, 0, 3, 0, -3, 0]);
    expect([...(planBinaryJson(inQuickJS(`'text'`).bytes)?.plan ?? [1])]).toEqual([]);
  });

  it('plans an array of objects and arrays with none of their own as one run', () => {
    // entries (names[0]): a run of 3 — the listing's shape, checked in a loop of its own.
    expect([...(planBinaryJson(inQuickJS(`{ entries: [{ a: 1 }, [2], {}], cursor: 'x' }`).bytes)?.plan ?? [])]).toEqual([1, -1, -3]);
    expect([...(planBinaryJson(inQuickJS(`[{}, {}]`).bytes)?.plan ?? [])]).toEqual([-2]);
    // Not a run: an element with an object of its own, or one that is not an object at all.
    expect([...(planBinaryJson(inQuickJS(`[{ a: {} }, {}]`).bytes)?.plan ?? [])]).toEqual([2, 0, 1, -1, 0, 1, 0]);
    expect([...(planBinaryJson(inQuickJS(`[{}, 1, {}]`).bytes)?.plan ?? [])]).toEqual([2, 0, 0, 2, 0]);
    expect([...(planBinaryJson(inQuickJS(`{ e: [] }`).bytes)?.plan ?? [])]).toEqual([1, -1, 0]);
  });

  it('finds a page’s cursor at the top level only, as a string only', () => {
    expect(planBinaryJson(inQuickJS(`{ entries: [{ cursor: 'inner' }], cursor: 'n€xt' }`).bytes)?.cursor).toBe('n€xt');
    expect(planBinaryJson(inQuickJS(`{ entries: [{ cursor: 'inner' }] }`).bytes)?.cursor).toBeUndefined();
    expect(planBinaryJson(inQuickJS(`{ entries: [], cursor: 5 }`).bytes)?.cursor).toBeUndefined();
    expect(planBinaryJson(inQuickJS(`['cursor', { cursor: 'x' }]`).bytes)?.cursor).toBeUndefined();
  });

  it('never throws on truncated, corrupted or foreign bytes, and builds nothing but JSON data from them', () => {
    for (const source of [PLAIN[1], PLAIN[3], PLAIN[12]] as string[]) {
      const { bytes } = inQuickJS(source);
      for (let length = 0; length < bytes.length; length++) {
        expect(planBinaryJson(bytes.subarray(0, length))).toBeUndefined();
        expect(decodeBinaryJson(bytes.subarray(0, length))).toBeUndefined();
      }
      expect(decodeBinaryJson(new Uint8Array([...bytes, 0]))).toBeUndefined();
      let seed = 7;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      for (let round = 0; round < 2000; round++) {
        const mutated = bytes.slice();
        for (let flips = 1 + Math.floor(random() * 4); flips > 0; flips--) mutated[Math.floor(random() * mutated.length)] = Math.floor(random() * 256);
        const decoded = decodeBinaryJson(mutated);
        if (decoded !== undefined) expect(jsonDataOnly(decoded)).toBe(true);
        // What the planner passes, the decoder reads (an honest module's result never fails on the platform).
        if (planBinaryJson(mutated) !== undefined) expect(decoded).toBeDefined();
      }
    }
    const other = new Uint8Array(inQuickJS('{ a: 1 }').bytes);
    other[0] = BINARY_JSON_VERSION + 1;
    expect(planBinaryJson(other)).toBeUndefined();
    expect(decodeBinaryJson(other)).toBeUndefined();
  });

  it('refuses forged counts and lengths beyond the input without allocating for them', () => {
    // 2^32 − 1 property names; an array, an object and a string claiming 2^32 − 1 entries or units.
    const huge = [0xff, 0xff, 0xff, 0xff, 0x0f];
    for (const bytes of [frame(...huge), frame(0, 9, ...huge, 1), frame(0, 8, ...huge), frame(0, 7, ...huge, 0x61), frame(1, ...huge)]) {
      expect(planBinaryJson(bytes)).toBeUndefined();
      expect(decodeBinaryJson(bytes)).toBeUndefined();
    }
    // A LEB128 longer than 32 bits, a float cut short, an unknown tag, a reference to no name.
    for (const bytes of [frame(0, 5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01), frame(0, 6, 0, 0, 0), frame(0, 0x0b), frame(0, 8, 1, 4, 1), frame(0, 8, 1, 0, 1), frame(0, 8, 1, 3, 1)]) {
      expect(decodeBinaryJson(bytes)).toBeUndefined();
    }
  });

  it('drops __proto__, constructor and prototype keys from forged frames, and refuses array-index names', () => {
    // names: __proto__, a; value: { __proto__: { a: 1 }, a: 2 }
    const proto = [0x12, ...Buffer.from('__proto__')];
    const decoded = decodeBinaryJson(frame(2, ...proto, 0x02, 0x61, 8, 2, 2, 8, 1, 4, 5, 2, 4, 5, 4)) as Record<string, unknown>;
    expect(decoded).toEqual({ a: 2 });
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.prototype.hasOwnProperty.call(decoded, '__proto__')).toBe(false);
    expect(({} as Record<string, unknown>)['a']).toBeUndefined();
    // names: "1"; value: { 1: true }
    expect(decodeBinaryJson(frame(1, 0x02, 0x31, 8, 1, 2, 4))).toBeUndefined();
  });

  it('decodes nesting far deeper than any stack without recursion', () => {
    const depth = 200_000;
    const bytes = new Uint8Array(2 + 2 * depth + 1).fill(1);
    bytes.set([BINARY_JSON_VERSION, 0]);
    for (let level = 0; level < depth; level++) bytes[2 + 2 * level] = 9;
    let value = decodeBinaryJson(bytes);
    let levels = 0;
    while (Array.isArray(value)) {
      value = (value as unknown[])[0];
      levels += 1;
    }
    expect(levels).toBe(depth);
    expect(value).toBeNull();
    // The innermost array holds no object, so the one around it is a run of one: [1, 0] a level, then −1.
    expect(planBinaryJson(bytes)?.plan.length).toBe(2 * depth - 3);
  });
});

/** What QuickJS sees of a value: prototypes, kinds, own keys in order, -0. */
const SHAPE = `(function shape(v) {
  if (v === null || typeof v !== 'object') return Object.is(v, -0) ? '-0' : [typeof v, v];
  const array = Array.isArray(v);
  return [array, Object.getPrototypeOf(v) === (array ? Array.prototype : Object.prototype), Object.keys(v).map((k) => [k, shape(v[k])])];
})`;

/** The shape of JSON.parse(text) in QuickJS, and of the same value rebuilt there from encodeBinaryJson. */
function parsedBothWays(text: string): { quickjs: unknown; rebuilt: unknown } {
  const encoded = encodeBinaryJson(JSON.parse(text));
  if (encoded === undefined) throw new Error('not encoded');
  const buffer = context.newArrayBuffer(encoded.slice().buffer);
  const rebuilt = context.decodeBinaryJSON(buffer);
  buffer.dispose();
  context.setProp(context.global, '__rebuilt', rebuilt);
  rebuilt.dispose();
  const textH = context.newString(text);
  context.setProp(context.global, '__text', textH);
  textH.dispose();
  const both = context.unwrapResult(context.evalCode(`({ quickjs: ${SHAPE}(JSON.parse(globalThis.__text)), rebuilt: ${SHAPE}(globalThis.__rebuilt) })`));
  const dumped = context.dump(both) as { quickjs: unknown; rebuilt: unknown };
  both.dispose();
  return dumped;
}

describe('encodeBinaryJson', () => {
  it.each([
    '{"a":1,"b":[1,2.5,-0,0,1e300,-1e-300,2147483647,2147483648,-2147483648,-2147483649,9007199254740993],"c":{"d":null,"e":true,"f":false}}',
    '{"__proto__":{"polluted":1},"constructor":{"prototype":1},"b":2}',
    '{"b":1,"2":"x","1":"y","2147483648":"big","4294967294":"i","4294967295":"s","01":"z","-1":"n"}',
    '["é€😀","\\ud800 lone","\\u0000\\u001f\\"\\\\", "", "a long string that is longer than sixteen characters ÿ"]',
    '{"":"empty","a\\u0000b":1,"€":{"😀":[]}}',
    ' \t\n[ {} , [ ] ]\r ',
    '{"a":1,"b":2,"a":3}',
    '"just a string"',
    '-0',
    'null',
  ])('rebuilds in QuickJS what its JSON.parse makes of %s', (text) => {
    const { quickjs, rebuilt } = parsedBothWays(text);
    expect(rebuilt).toEqual(quickjs);
  });

  it('leaves values nested deeper than its limit, and anything that is not JSON data, to QuickJS', () => {
    const deep = JSON.parse(`${'['.repeat(MAX_ENCODED_DEPTH + 1)}${']'.repeat(MAX_ENCODED_DEPTH + 1)}`) as unknown;
    expect(encodeBinaryJson(deep)).toBeUndefined();
    expect(encodeBinaryJson(JSON.parse(`${'['.repeat(MAX_ENCODED_DEPTH)}${']'.repeat(MAX_ENCODED_DEPTH)}`) as unknown)).toBeDefined();
    for (const value of [undefined, NaN, Infinity, 1n, Symbol('s'), () => 1, new Date(0), new Map(), [new Uint8Array(1)]]) {
      expect(encodeBinaryJson(value)).toBeUndefined();
    }
  });
});

/** Runs one call on a ModuleInstance in this process and returns the result message it sent. */
async function resultOf(source: string, prefix: string): Promise<WireMessage> {
  let settle: (message: WireMessage) => void = () => undefined;
  const done = new Promise<WireMessage>((resolve) => {
    settle = resolve;
  });
  const spec = { source, filename: 'fast.js', config: {}, memoryBytes: 64 * 1024 * 1024, stackBytes: 256 * 1024, loadTimeoutMs: 5000, listReadAhead: false };
  const instance = new ModuleInstance(1, spec, (message) => {
    if (message.op === 'result' && message.id === 1) settle(message);
  });
  instance.handle({ i: 1, op: 'call', id: 1, j: JSON.stringify({ method: 'list', args: [{ prefix }], timeoutMs: 5000 }) });
  instance.pump();
  try {
    return await done;
  } finally {
    instance.dispose();
  }
}

const VALUES = connectorModule(`
    list(opts) {
      delete Object.prototype.toJSON;
      delete Array.prototype.toJSON;
      class Point { constructor(x, y) { this.x = x; this.y = y; } toJSON() { return [this.x, this.y]; } }
      class Plain { constructor() { this.a = 1; } }
      class List extends Array {}
      const shared = { s: 1 };
      const values = {
        plain: () => ({ entries: [{ path: 'a', size: 1 }, { path: 'b', extra: { tags: ['x', 'y'], n: null } }] }),
        classToJSON: () => ({ p: new Point(1, 2) }),
        nestedToJSON: () => ({ list: [{ a: 1 }, [new Point(3, 4)]] }),
        classInstance: () => ({ c: new Plain() }),
        runToJSON: () => [{ a: 1 }, new Point(5, 6), { b: 2 }],
        runInheritedGetter: () => [{ a: 1 }, Object.create({ get toJSON() { return () => 'from a getter'; } })],
        runToJSONNotFunction: () => [{ a: 1 }, Object.create({ toJSON: 'not a function' })],
        hiddenToJSON: () => ({ o: Object.defineProperty({ a: 1 }, 'toJSON', { value: () => 'hidden', enumerable: false }) }),
        date: () => ({ when: new Date(0) }),
        inheritedGetter: () => ({ o: Object.assign(Object.create({ get x() { return 1; } }), { a: 1 }) }),
        arraySubclass: () => ({ l: List.from([1, 2]) }),
        numericKeys: () => ({ o: { b: 1, 2: 'x', 1: 'y' } }),
        shared: () => ({ twice: [shared, shared] }),
        getter: () => ({ o: { get a() { return 5; } } }),
        boxed: () => ({ s: new String('x'), n: new Number(2), b: new Boolean(false) }),
        exotic: () => ({ m: new Map([[1, 2]]), set: new Set([1]), e: new Error('x'), r: /x/g }),
        dropped: () => ({ o: { f() {}, s: Symbol('x'), u: undefined, n: null }, a: [function () {}, Symbol('y'), undefined] }),
        numbers: () => ({ n: [NaN, Infinity, -0, 1e21, 5e-324, 2 ** 31] }),
        strings: () => ({ s: ['\\u0000"\\\\', 'a\\ud800', '😀', 'ÿ€'] }),
      };
      const value = values[opts.prefix]();
      return { entries: [{ path: 'x', extra: { value, expected: JSON.stringify(value) } }] };
    },
    read() {}, stat() { return null; },`);

const PARSER = connectorModule(`
    async list(opts) {
      const shape = ${SHAPE};
      const cases = {
        json: '{"a":[1,-0,2.5,{"b":"é€😀"}],"__proto__":{"x":1},"2":"two","1":"one","s":"\\\\ud800"}',
        bom: '\\ufeff{"bom":true}',
        big: JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: 'item ' + i, tags: ['t' + (i % 7)], owner: { id: 'u' + (i % 13) } })) }),
      };
      const out = {};
      for (const [name, text] of Object.entries(cases)) {
        const viaResponse = await new Response(text).json();
        const viaRequest = await new Request('http://x.test/', { method: 'POST', body: text }).json();
        const expected = JSON.parse(text.replace(/^\\ufeff/, ''));
        out[name] = JSON.stringify(shape(viaResponse)) === JSON.stringify(shape(expected)) && JSON.stringify(shape(viaRequest)) === JSON.stringify(shape(expected));
      }
      try { await new Response('{"unterminated": ').json(); out.syntax = 'parsed'; } catch (error) { out.syntax = error.name; }
      const invalid = new Uint8Array([0x22, 0x61, 0xff, 0x62, 0x22]);
      out.replaced = (await new Response(invalid).json()) === 'a\\ufffdb';
      const long = 'é€😀 '.repeat(2000);
      const bytes = new TextEncoder().encode(long);
      out.text = (await new Response(bytes).text()) === long && new TextDecoder().decode(bytes) === long;
      out.deep = Array.isArray(await new Response('['.repeat(600) + ']'.repeat(600)).json());
      return { entries: [{ path: 'x', extra: out }] };
    },
    read() {}, stat() { return null; },`);

describe('results through the fast path and the fallback', () => {
  const host = new SandboxHost({ limits: { callTimeoutMs: 5000 } });
  let values: SandboxedConnector;
  beforeAll(async () => {
    values = await host.load({ source: VALUES, label: 'values', egress: passthroughEgress() });
  });
  afterAll(() => host.close());

  it('a plain result is sent in binary form', async () => {
    planned.outcomes.length = 0;
    const message = await resultOf(VALUES, 'plain');
    expect(planned.outcomes.at(-1)).toBeDefined();
    expect(message.j).toBeUndefined();
    expect(message.b).toBeInstanceOf(Uint8Array);
    expect(decodeBinaryJson(message.b as Uint8Array)).toMatchObject({ entries: [{ path: 'x', extra: { value: { entries: [{ path: 'a', size: 1 }, { path: 'b' }] } } }] });
  });

  it('a toJSON on a prototype sends the result through JSON.stringify instead', async () => {
    planned.outcomes.length = 0;
    const message = await resultOf(VALUES, 'classToJSON');
    // The binary form was planned (it cannot see the toJSON), and the prelude's check refused it.
    expect(planned.outcomes.at(-1)).toBeDefined();
    expect(message.b).toBeUndefined();
    expect(JSON.parse(message.j ?? '')).toMatchObject({ ok: true, value: { entries: [{ extra: { value: { p: [1, 2] } } }] } });
  });

  it.each([
    ['classInstance', 'binary'],
    ['runToJSONNotFunction', 'binary'],
    ['runToJSON', 'text'],
    ['runInheritedGetter', 'text'],
    ['nestedToJSON', 'text'],
    ['hiddenToJSON', 'text'],
  ])('%s crosses as %s: toJSON is looked up as JSON.stringify looks it up, prototype or not', async (name, form) => {
    const message = await resultOf(VALUES, name);
    expect(message.b === undefined ? 'text' : 'binary').toBe(form);
  });

  it.each([
    'plain',
    'classToJSON',
    'runToJSON',
    'runInheritedGetter',
    'runToJSONNotFunction',
    'nestedToJSON',
    'classInstance',
    'hiddenToJSON',
    'date',
    'inheritedGetter',
    'arraySubclass',
    'numericKeys',
    'shared',
    'getter',
    'boxed',
    'exotic',
    'dropped',
    'numbers',
    'strings',
  ])('%s reads on the platform as JSON.stringify wrote it in the module', async (name) => {
    const extra = (await values.list({ prefix: name })).entries[0]?.extra as { value: unknown; expected: string };
    expect(JSON.stringify(extra.value)).toBe(extra.expected);
  });

  it('json() and text() give the module what QuickJS would have parsed and decoded', async () => {
    const connector = await host.load({ source: PARSER, label: 'parser', egress: passthroughEgress() });
    expect((await connector.list()).entries[0]?.extra).toEqual({ json: true, bom: true, big: true, syntax: 'SyntaxError', replaced: true, text: true, deep: true });
  });

  it('a result nested too deep to serialise fails its call typed, and the next call works', async () => {
    const source = connectorModule(`
      list(opts) {
        if (opts.prefix !== 'deep') return { entries: [{ path: 'fine' }] };
        let value = {};
        for (let i = 0; i < 200000; i++) value = { value };
        return { entries: [{ path: 'x', extra: value }] };
      },
      read() {}, stat() { return null; },`);
    const connector = await host.load({ source, label: 'deep', egress: passthroughEgress() });
    const failure = await connector.list({ prefix: 'deep' }).then(
      () => undefined,
      (error: { code?: string; details?: unknown }) => error,
    );
    // The native stack runs out in QuickJS's writer as it did in its JSON.stringify: the runtime goes.
    expect(failure).toMatchObject({ code: 'sandbox_limit', details: { limit: 'stack' } });
    expect((await connector.list()).entries).toEqual([{ path: 'fine' }]);
  });

  it.each(['Object', 'Array'])('%s.prototype.toJSON turns the whole outcome into something else, as it did through JSON.stringify', async (name) => {
    const source = connectorModule(`
      list() {
        Object.defineProperty(${name}.prototype, 'toJSON', { value: function () { return 'hijacked'; }, configurable: true, writable: true });
        return { entries: [{ path: 'x' }] };
      },
      read() {}, stat() { return null; },`);
    const connector = await host.load({ source, label: `hijack-${name}`, egress: passthroughEgress() });
    const failure = await connector.list().then(
      () => undefined,
      (error: { code?: string; message?: string }) => error,
    );
    expect(failure?.code).toBe('connector_failed');
  });
});
