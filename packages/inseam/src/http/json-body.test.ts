/**
 * The strict JSON body parser: what JSON.parse reads, it reads the same; a corpus of hostile
 * bodies — keys given twice (at any depth, spelt differently, inside arrays), prototype keys —
 * is refused naming where, and look-alikes inside string values are not mistaken for keys.
 */
import { describe, expect, it } from 'vitest';
import { parseJsonBody } from './json-body.js';

function refusal(text: string): { message: string; details: Record<string, unknown> } {
  try {
    parseJsonBody(text);
  } catch (error) {
    const typed = error as { code?: string; message: string; details: Record<string, unknown> };
    expect(typed.code).toBe('invalid_argument');
    return { message: typed.message, details: typed.details };
  }
  throw new Error(`Accepted: ${text}`);
}

describe('parseJsonBody', () => {
  it('reads what JSON.parse reads, the same', () => {
    const corpus = [
      '{}',
      '[]',
      '"just a string"',
      '42',
      'null',
      '{"a":{"a":{"a":1}},"b":[{"a":1},{"a":2}]}',
      '{"quote\\"key":1,"quote\\\\":2,"back\\\\\\"slash":3}',
      '{"value":"{\\"a\\":1,\\"a\\":2}","other":"\\\\"}',
      '{"empty":"","nested":[[],[{}],{"":null}],"unicode":"\\u00e9\\ud83d\\ude00"}',
      ' \n\t{ "spaced" : [ 1 , 2 , { "x" : true } ] } ',
      '[{"id":1},{"id":1},{"id":1}]',
      '{"constructor":{"name":"fine"},"prototype":1}',
    ];
    for (const text of corpus) expect(parseJsonBody(text), text).toEqual(JSON.parse(text));
  });

  it('refuses a key given twice, naming its place', () => {
    const corpus: [string, string][] = [
      ['{"a":1,"a":2}', 'body.a'],
      ['{"a":1,"b":{"c":1,"c":2}}', 'body.b.c'],
      ['{"items":[{"name":"x"},{"name":"y","name":"z"}]}', 'body.items.1.name'],
      ['[[{"k":1}],[{"k":1,"k":1}]]', 'body.1.0.k'],
      ['{"kind":"fs","k\\u0069nd":"shell"}', 'body.kind'],
      ['{"a\\"b":1,"a\\u0022b":2}', 'body.a"b'],
      ['{"x":"a string, then","x":{}}', 'body.x'],
      ['{"deep":{"er":{"est":[1,{"z":0,"z":0}]}}}', 'body.deep.er.est.1.z'],
    ];
    for (const [text, argument] of corpus) {
      const { message, details } = refusal(text);
      expect(details, text).toEqual({ argument, reason: 'duplicate_key' });
      expect(message, text).toContain('twice');
    }
  });

  it('refuses prototype keys, however spelt', () => {
    const corpus: [string, string][] = [
      ['{"__proto__":{"admin":true}}', 'body.__proto__'],
      ['{"a":[{"__proto__":null}]}', 'body.a.0.__proto__'],
      ['{"__pro\\u0074o__":1}', 'body.__proto__'],
      ['{"constructor":{"prototype":{"x":1}}}', 'body.constructor.prototype'],
      ['{"c":{"constructor":{"prototype":1}}}', 'body.c.constructor.prototype'],
    ];
    for (const [text, argument] of corpus) expect(refusal(text).details, text).toEqual({ argument, reason: 'prototype_key' });
  });

  it('refuses what does not parse with the position only, never the text', () => {
    const secret = 'inseam_SECRETSECRETSECRET';
    for (const text of [`{"token":"${secret}" "x":1}`, `{"token":"${secret}"`, `{'token':'${secret}'}`, `[1,2,${secret}]`]) {
      const { message, details } = refusal(text);
      expect(message).not.toContain(secret);
      expect(JSON.stringify(details)).not.toContain(secret);
      expect(details).toMatchObject({ argument: 'body', reason: 'invalid_json' });
    }
    expect(refusal('   ').details).toEqual({ argument: 'body', reason: 'empty_json_body' });
  });
});
