/**
 * The corpus of reflected secrets (__fixtures__/spellings.ts), table-driven: every spelling a
 * server may reflect, of a token, of a password full of characters that get escaped, and of the
 * whole header values the gate writes (`Bearer …`, `Basic …`), is removed from strings and from
 * byte streams cut at every offset — checked by an oracle that undoes each encoding, not by the
 * gate's own rules. Near misses are left alone.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, Redactor } from './redact.js';
import { REFLECTIONS, leaks } from './__fixtures__/spellings.js';

const TOKEN = 'tok_live_51HxQ2eZvKYlo2C';
const PASSWORD = `pa ss/wörd+&<"'>=%\\x`;
const PAIR = Buffer.from(`ada:${PASSWORD}`).toString('base64');
const SECRETS: Readonly<Record<string, string>> = { token: TOKEN, password: PASSWORD, 'Bearer header': `Bearer ${TOKEN}`, 'Basic header': `Basic ${PAIR}` };

/** As the gate builds it: the values, then what attach() adds. */
function gateRedactor(): Redactor {
  return new Redactor([TOKEN, PASSWORD, PAIR, `Bearer ${TOKEN}`, `Basic ${PAIR}`]);
}

function streamOf(chunks: readonly Uint8Array[]): ReadableStream<Uint8Array> {
  let index = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[index++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(chunk);
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  return Buffer.from(await new Response(stream).arrayBuffer());
}

const cases = Object.entries(SECRETS).flatMap(([secretName, secret]) => Object.entries(REFLECTIONS).map(([form, spell]) => ({ secretName, secret, form, spelled: spell(secret) })));

describe('the corpus itself', () => {
  it.each(cases)('$form of the $secretName is a reflection the oracle decodes', ({ secret, spelled }) => {
    expect(leaks(`<<${spelled}>>`, secret)).toBe(true);
  });
});

describe('Redactor: every reflected spelling, in strings', () => {
  const redactor = gateRedactor();
  it.each(cases)('removes the $secretName spelled as $form', ({ secret, spelled }) => {
    const out = redactor.redact(`before <<${spelled}>> after`);
    expect(out).toContain(REDACTED);
    expect(leaks(out, secret)).toBe(false);
    expect(out.startsWith('before <<')).toBe(true);
    expect(out.endsWith('>> after')).toBe(true);
  });
});

describe('Redactor: every reflected spelling, in byte streams cut at every offset', () => {
  it.each(cases)('masks the $secretName spelled as $form wherever the chunks break', async ({ secret, spelled }) => {
    const redactor = gateRedactor();
    const bytes = Buffer.from(`{"echo":"${spelled}","n":1}`);
    const whole = await collect(redactor.redactStream(streamOf([bytes])));
    expect(whole.length).toBe(bytes.length);
    expect(whole.toString()).toContain('***');
    expect(leaks(whole.toString(), secret)).toBe(false);
    expect(whole.toString().startsWith('{"echo":"')).toBe(true);
    for (let cut = 1; cut < bytes.length; cut++) {
      const out = await collect(redactor.redactStream(streamOf([bytes.subarray(0, cut), bytes.subarray(cut)])));
      expect(out.equals(whole), `cut at ${cut}`).toBe(true);
    }
    const dribbled = await collect(redactor.redactStream(streamOf([...bytes].map((byte) => Uint8Array.of(byte)))));
    expect(dribbled.equals(whole)).toBe(true);
  });
});

describe('Redactor: near misses and plain text', () => {
  const redactor = gateRedactor();
  it.each([
    ['one character changed', `${TOKEN.slice(0, -1)}D`],
    ['a prefix', TOKEN.slice(0, -2)],
    ['the password without its last character', PASSWORD.slice(0, -1)],
    ['ordinary JSON', '{"id":"it_0000001","folder":"d0/e1","name":"file-1.txt","modified":"2023-11-14T22:13:21.000Z"}'],
    ['ordinary escaped text', 'caf\\u00e9 &amp; %20 + a\\/b &#39;'],
  ])('leaves %s alone', (_label, text) => {
    expect(redactor.redact(text)).toBe(text);
    expect(redactor.finds(text)).toBe(false);
  });

  it('masks every copy and keeps what lies between them', () => {
    const text = `${TOKEN}|${TOKEN.toUpperCase()}|${encodeURIComponent(PASSWORD)}|end`;
    expect(redactor.redact(text)).toBe(`${REDACTED}|${REDACTED}|${REDACTED}|end`);
  });

  it('passes a stream on at once when no partial match is open, and holds back only an open one', async () => {
    const chunks: Uint8Array[] = [];
    let feed: ReadableStreamDefaultController<Uint8Array> | undefined;
    const source = new ReadableStream<Uint8Array>({ start: (controller) => void (feed = controller) });
    const reader = redactor.redactStream(source).getReader();
    feed!.enqueue(Buffer.from('{"event":"one"}\n'));
    chunks.push((await reader.read()).value!);
    expect(Buffer.from(chunks[0]!).toString()).toBe('{"event":"one"}\n');
    feed!.enqueue(Buffer.from(`data: ${TOKEN.slice(0, 10)}`));
    // What cannot be part of the open match goes on; the open part waits for what follows.
    expect(Buffer.from((await reader.read()).value!).toString()).toBe('data: ');
    const pending = reader.read();
    feed!.enqueue(Buffer.from(`${TOKEN.slice(10)} done`));
    expect(Buffer.from((await pending).value!).toString()).toBe(`${'*'.repeat(TOKEN.length)} done`);
    feed!.close();
    expect((await reader.read()).done).toBe(true);
  });
});
