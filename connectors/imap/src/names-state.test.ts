import type { FetchMessageObject } from 'imapflow';
import { describe, expect, it } from 'vitest';
import { parseImapConfig } from './config.js';
import { attachmentEntries, messageEntry, messageFacts } from './entries.js';
import type { MailboxInfo } from './mailbox.js';
import { decodeState, encodeState, memoKey, nameFacts, nameRows } from './names-state.js';
import type { MailboxState } from './names-state.js';

const config = parseImapConfig({ host: 'mail.example.com' });
const box: MailboxInfo = { name: 'Lists/Ops', delimiter: '/', specialUse: 'none' };

function fetched(uid: number, flags: string[], modseq: bigint | undefined, withParts: boolean): FetchMessageObject {
  const text = { part: '1', type: 'text/plain', parameters: { charset: 'utf-8' }, size: 10 };
  const parts = [
    { part: '2', type: 'application/pdf', disposition: 'attachment', dispositionParameters: { filename: 'report q3.pdf' }, size: 100 },
    { part: '3', type: 'image/png', parameters: { name: 'chart.png' }, size: 50 },
  ];
  return {
    seq: uid,
    uid,
    flags: new Set(flags),
    ...(modseq === undefined ? {} : { modseq }),
    size: 500,
    internalDate: new Date('2026-11-30T10:00:00Z'),
    headers: Buffer.from('From: Ann <ann@example.com>\r\nSubject: Q3\r\n\r\n'),
    bodyStructure: withParts ? { type: 'multipart/mixed', childNodes: [text, ...parts] } : { ...text, part: undefined },
  };
}

describe('the names state of a mailbox', () => {
  it('gives each message and attachment the path and etag its entries carry', () => {
    for (const message of [fetched(7, ['\\Seen', '\\Recent'], 42n, true), fetched(8, [], undefined, false), fetched(9, ['$Label1', '\\Flagged'], 43n, true)]) {
      const facts = messageFacts(message, box, '1700000000', config);
      const entries = [messageEntry(facts, box), ...attachmentEntries(facts, box)];
      expect(nameRows(nameFacts(facts), box)).toEqual(entries.map((entry) => [entry.path, entry.etag]));
    }
  });

  it('reads back exactly what it wrote, flags, MODSEQ and attachment names included', () => {
    const messages = new Map([7, 8].map((uid) => [uid, nameFacts(messageFacts(fetched(uid, uid === 7 ? ['\\Seen'] : [], uid === 7 ? 42n : undefined, uid === 7), box, '1700000000', config))]));
    const state: MailboxState = { uidValidity: '1700000000', modseq: 18446744073709551615n, messages };
    const decoded = decodeState(box.name, encodeState(box.name, state));
    expect(decoded).not.toBeNull();
    expect(decoded!.modseq).toBe(state.modseq);
    expect(decoded!.uidValidity).toBe('1700000000');
    expect([...decoded!.messages.values()].flatMap((facts) => nameRows(facts, box))).toEqual([...messages.values()].flatMap((facts) => nameRows(facts, box)));
  });

  it('keys each mailbox by a digest that fits the store, whatever its name', () => {
    expect(memoKey('INBOX')).toMatch(/^names:[0-9a-f]{32}$/u);
    expect(memoKey('x'.repeat(10_000))).toHaveLength('names:'.length + 32);
    expect(memoKey('Archive/2026')).not.toBe(memoKey('Archive/2025'));
  });

  const good = { v: 1, mailbox: 'INBOX', uidValidity: '1700000000', modseq: '42', messages: [[7, '42', ['\\Seen'], [[1, 'a.pdf']]], [8, null, []]] };
  const damaged: [string, string][] = [
    ['not JSON', '{"v":1,'],
    ['JSON null', 'null'],
    ['an array', '[]'],
    ['another version', JSON.stringify({ ...good, v: 2 })],
    ['another mailbox', JSON.stringify({ ...good, mailbox: 'Sent' })],
    ['a numeric UIDVALIDITY', JSON.stringify({ ...good, uidValidity: 1700000000 })],
    ['a negative MODSEQ', JSON.stringify({ ...good, modseq: '-1' })],
    ['a MODSEQ with a leading zero', JSON.stringify({ ...good, modseq: '042' })],
    ['messages not a list', JSON.stringify({ ...good, messages: {} })],
    ['a row too short', JSON.stringify({ ...good, messages: [[7, '42']] })],
    ['a row too long', JSON.stringify({ ...good, messages: [[7, '42', [], [], 'x']] })],
    ['UID zero', JSON.stringify({ ...good, messages: [[0, '42', []]] })],
    ['UID past 2^32', JSON.stringify({ ...good, messages: [[4_294_967_296, '42', []]] })],
    ['a fractional UID', JSON.stringify({ ...good, messages: [[7.5, '42', []]] })],
    ['a UID twice', JSON.stringify({ ...good, messages: [[7, '42', []], [7, '43', []]] })],
    ['a numeric message MODSEQ', JSON.stringify({ ...good, messages: [[7, 42, []]] })],
    ['a flag not a string', JSON.stringify({ ...good, messages: [[7, '42', [1]]] })],
    ['attachments not a list', JSON.stringify({ ...good, messages: [[7, '42', [], 'a.pdf']] })],
    ['an attachment without a name', JSON.stringify({ ...good, messages: [[7, '42', [], [[1, '']]]] })],
    ['an attachment index zero', JSON.stringify({ ...good, messages: [[7, '42', [], [[0, 'a.pdf']]]] })],
  ];

  it('takes the well-formed memo the corpus below is made from', () => {
    expect(decodeState('INBOX', JSON.stringify(good))?.messages.size).toBe(2);
  });

  it.each(damaged)('refuses a memo with %s, so the mailbox is fetched in full', (_name, text) => {
    expect(decodeState('INBOX', text)).toBeNull();
  });
});
