/**
 * Deliberately broken connectors, one or two per check: each is the notes-api example with one
 * fault, and each must fail exactly the check it breaks and nothing else. A fault is a patch run
 * inside a wrapping createConnector, with `base` (the example's connector), `connector` (a copy
 * whose members the patch replaces) and `config` in scope.
 */
import type { DocSection } from '../../docs.js';
import type { TrialCheckId, TrialPhase } from '../../types.js';
import type { NotesSeed } from '../servers/notes-api.js';

export interface BrokenConnector {
  readonly name: string;
  readonly breaks: TrialCheckId;
  /** The section of docs/connectors/authoring.md the failure links. */
  readonly section: DocSection;
  /** What is wrong, as an author would make the mistake. */
  readonly fault: string;
  /** The phases in which the broken check runs (9 and 10 need the install phase's writes). */
  readonly phases: readonly TrialPhase[];
  readonly patch: string;
  /** It leaves objects on the host, which the report must list as leftovers. */
  readonly leaves?: boolean;
  /** It runs against the notes API seeded with MAIL_SEED (raw messages), with MAIL_OWNER in its config. */
  readonly host?: 'mail';
}

/** The mailbox's owner, as the connector's config and the trial both take it. */
export const MAIL_OWNER = { ownAddresses: ['ada@example.com'], authservId: 'mx.example.com' } as const;

const CRLF = (lines: readonly string[]): string => `${lines.join('\r\n')}\r\n`;

/**
 * A mailbox served as raw messages (message/rfc822) by the notes API: one Ada sent, one whose
 * topmost Authentication-Results of mx.example.com (Ada's host) says dkim pass and spf softfail
 * below a forged all-pass one and one by the sender's own host, a list message with temperror /
 * neutral / permerror results, and one to undisclosed recipients with an encoded name.
 */
export const MAIL_SEED: readonly NotesSeed[] = [
  {
    path: 'mail/sent/2024-05-01 the trial.eml',
    mime: 'message/rfc822',
    updatedAt: '2024-05-01T08:00:00Z',
    text: CRLF(['From: Ada Lovelace <Ada@Example.com>', 'To: "Hopper, Grace" <grace@example.org>', 'Cc: team@lists.example.org', 'Subject: The trial', 'Date: Wed, 01 May 2024 08:00:00 +0000', 'Message-ID: <1@example.com>', '', 'Shall we ship it?']),
  },
  {
    path: 'mail/inbox/2024-05-02 re the trial.eml',
    mime: 'message/rfc822',
    updatedAt: '2024-05-02T08:00:00Z',
    text: CRLF([
      'Authentication-Results: mx.example.com; dkim=pass header.d=example.org; spf=softfail smtp.mailfrom=example.org; dmarc=none',
      'Received: from mail.example.org by mx.example.com; Thu, 02 May 2024 08:00:00 +0000',
      'Authentication-Results: mx.example.com; dkim=pass; spf=pass; dmarc=pass',
      'Authentication-Results: mail.example.org; dkim=pass; spf=pass; dmarc=pass',
      'From: Grace Hopper <grace@example.org>',
      'Reply-To: Grace (work) <g.hopper@work.example.org>',
      'To: Ada <ada@example.com>',
      'Subject: Re: The trial',
      '',
      'Ship it.',
    ]),
  },
  {
    path: 'mail/inbox/2024-05-03 team digest.eml',
    mime: 'message/rfc822',
    updatedAt: '2024-05-03T08:00:00Z',
    text: CRLF([
      'Authentication-Results: mx.example.com (the owner\'s host);',
      ' dkim=temperror; spf=neutral; dmarc=permerror',
      'From: Team bot <noreply@lists.example.org>',
      'Sender: team-owner@lists.example.org',
      'To: team@lists.example.org',
      'List-Id: "Team talk" <Team.Lists.Example.org>',
      'Subject: Digest',
      '',
      'Three messages today.',
    ]),
  },
  {
    path: 'mail/inbox/2024-04-30 hello.eml',
    mime: 'message/rfc822',
    updatedAt: '2024-04-30T08:00:00Z',
    text: CRLF(['From: =?UTF-8?Q?J=C3=BCrgen?= <jurgen@example.net>', 'To: undisclosed-recipients:;', 'Bcc: ada@example.com', 'Subject: Hello', '', 'Hello from Jürgen.']),
  },
  { path: 'notes/readme.txt', text: 'Not a message: no envelope.\n', updatedAt: '2024-04-01T08:00:00Z' },
];

/**
 * The notes-api example as a mail host that reads each message's envelope from its header, as
 * authoring.md#envelopes-messages says. `fake` is an expression turning the faithful envelope
 * into what the connector reports: the identity for the faithful one, a fault for a broken one.
 */
export function mailEnvelopes(fake = '(envelope) => envelope'): string {
  return `${BYTES_OF}
    const fake = ${fake};
    const own = (config.ownAddresses || []).map((address) => address.toLowerCase());
    const authservId = String(config.authservId || '').toLowerCase();
    const headerOf = (text) => {
      const end = text.search(/\\r?\\n\\r?\\n/);
      return (end === -1 ? text : text.slice(0, end)).replace(/\\r?\\n[ \\t]+/g, ' ').split(/\\r?\\n/);
    };
    const values = (lines, name) => lines.filter((line) => line.toLowerCase().startsWith(name + ':')).map((line) => line.slice(name.length + 1).trim());
    // Quoted display names and comments may hold commas and @; what is left is the addresses.
    const addresses = (value) => (value.replace(/"(?:[^"\\\\]|\\\\.)*"/g, '').replace(/\\([^)]*\\)/g, '').match(/<[^<>\\s]+@[^<>\\s]+>|[^\\s<>,;:]+@[^\\s<>,;:]+/g) || []).map((address) => address.replace(/^<|>$/g, ''));
    const identity = (address) => 'mailto:' + address.slice(0, address.lastIndexOf('@')) + '@' + address.slice(address.lastIndexOf('@') + 1).toLowerCase();
    const authOf = (lines) => {
      const mine = values(lines, 'authentication-results').find((value) => value.split(/[\\s;]/)[0].toLowerCase() === authservId);
      if (mine === undefined) return undefined;
      const auth = {};
      for (const part of mine.replace(/\\([^)]*\\)/g, '').split(';').slice(1)) {
        const match = /^\\s*(dkim|spf|dmarc)\\s*=\\s*([a-z]+)/i.exec(part);
        if (match) auth[match[1].toLowerCase()] = auth[match[1].toLowerCase()] === true || match[2].toLowerCase() === 'pass';
      }
      return Object.keys(auth).length === 0 ? undefined : auth;
    };
    const envelopeOf = (text) => {
      const lines = headerOf(text);
      const parties = [];
      for (const role of ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc']) {
        for (const value of values(lines, role)) for (const address of addresses(value)) parties.push({ identity: identity(address), role });
      }
      const authors = parties.filter((party) => party.role === 'from' || party.role === 'sender').map((party) => party.identity.slice(7).toLowerCase());
      const envelope = { direction: authors.some((address) => own.includes(address)) ? 'sent' : 'received', parties };
      const auth = authOf(lines);
      if (auth !== undefined) envelope.auth = auth;
      const list = /<([^<>\\s]+)>/.exec(values(lines, 'list-id')[0] || '');
      if (list) envelope.list = list[1].toLowerCase();
      return envelope;
    };
    const enveloped = async (entry) => {
      if (entry === null || entry.mime !== 'message/rfc822') return entry;
      const text = new TextDecoder().decode(await bytesOf(await base.read(entry.path)));
      return { ...entry, envelope: fake(envelopeOf(text)) };
    };
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: await Promise.all(page.entries.map(enveloped)) };
    };
    connector.stat = async (path) => enveloped(await base.stat(path));`;
}

/**
 * A host whose writable objects have a fixed shape, `<id>/doc.json` (a document store): write()
 * refuses any other path, and describe() declares the sample the trial must write there.
 */
export const FIXED_SHAPE_PATCH = `const described = base.describe();
    connector.describe = () => ({
      ...described,
      writes: {
        mimes: ['application/json'], create: true, replace: true, delete: true,
        samples: [{ mime: 'application/json', path: '{name}/doc.json', body: '{"title":"one"}\\n', replacement: '{"title":"two"}\\n' }],
      },
    });
    connector.write = (path, body, options) => {
      if (!/^(.+\\/)?[^/]+\\/doc\\.json$/.test(path)) throw hostError('invalid_argument', 'write ' + path + ': only <id>/doc.json objects can be written');
      return base.write(path, body, options);
    };`;

/** Reads a body stream to bytes (the sandbox has no Response to do it). */
const BYTES_OF = `const bytesOf = async (body) => {
      const reader = body.getReader();
      const chunks = [];
      let length = 0;
      for (;;) {
        const step = await reader.read();
        if (step.done) break;
        chunks.push(step.value);
        length += step.value.byteLength;
      }
      const bytes = new Uint8Array(length);
      let offset = 0;
      for (const chunk of chunks) { bytes.set(chunk, offset); offset += chunk.byteLength; }
      return bytes;
    };
    const streamOf = (bytes) => new ReadableStream({ start(c) { c.enqueue(bytes.slice()); c.close(); } });`;

const BOTH: readonly TrialPhase[] = ['submit', 'install'];

/**
 * The notes-api example ordered by an integer update sequence, `extra.seq` (here the update time in
 * whole seconds, so it orders as the host's newest-first listing does), in place of its datetime.
 * `numberedList` lists through the example; the patch that uses this says what `since` does.
 */
export const UPDATE_SEQUENCE = `const numbered = (entry) => (entry === null ? null : { ...entry, extra: { ...entry.extra, seq: Math.floor(Date.parse(entry.mtime) / 1000) } });
    connector.describe = () => {
      const description = base.describe();
      delete description.dimensions.updated.ordering;
      description.dimensions.seq = { type: 'integer', from: 'extra.seq', ordering: true, description: 'The update sequence number of the last change.' };
      return description;
    };
    const numberedList = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(numbered) };
    };
    connector.stat = async (path) => numbered(await base.stat(path));
    connector.write = async (path, body, options) => numbered(await base.write(path, body, options));
    `;

export const BROKEN_CONNECTORS: readonly BrokenConnector[] = [
  {
    name: 'two-ordering-dimensions',
    breaks: 1,
    section: 'dimensions-ordering',
    fault: 'marks a second dimension ordering: true',
    phases: BOTH,
    patch: `connector.describe = () => {
      const description = base.describe();
      description.dimensions.path.ordering = true;
      return description;
    };`,
  },
  {
    name: 'cursor-restarts',
    breaks: 2,
    section: 'listing-cursors',
    fault: 'ignores the cursor, so every page is the first page again',
    phases: BOTH,
    patch: `connector.list = (options = {}) => base.list({ ...options, cursor: undefined });`,
  },
  {
    name: 'newest-ignored',
    breaks: 2,
    section: 'listing-order',
    fault: 'accepts order "newest" but lists in path order',
    phases: BOTH,
    patch: `connector.list = (options = {}) => base.list({ ...options, order: undefined });`,
  },
  {
    name: 'newest-sorted-in-memory',
    breaks: 2,
    section: 'listing-order',
    fault: 'answers order "newest" by paging through the whole listing and sorting it in memory',
    phases: BOTH,
    patch: `const pageSize = config.pageSize;
    connector.list = async (options = {}) => {
      if (options.order !== 'newest') return base.list(options);
      const all = [];
      let cursor;
      do {
        const page = await base.list({ prefix: options.prefix, since: options.since, cursor });
        all.push(...page.entries);
        cursor = page.cursor;
      } while (cursor !== undefined);
      all.sort((a, b) => Date.parse(b.mtime) - Date.parse(a.mtime));
      const start = options.cursor === undefined ? 0 : Number(options.cursor);
      const entries = all.slice(start, start + pageSize);
      return start + pageSize < all.length ? { entries, cursor: String(start + pageSize) } : { entries };
    };`,
  },
  {
    name: 'dimension-wrong-type',
    breaks: 3,
    section: 'dimensions-enums',
    fault: 'declares starred as an enum of "yes"/"no" but reports booleans',
    phases: BOTH,
    patch: `connector.describe = () => {
      const description = base.describe();
      description.dimensions.starred = { type: 'enum', values: ['yes', 'no'], from: 'extra.starred', description: 'Starred or not.' };
      return description;
    };`,
  },
  {
    name: 'stat-mtime-drift',
    breaks: 4,
    section: 'entries-field-forms',
    fault: 'stat reports the modification time of older objects an hour later than the listing',
    phases: BOTH,
    patch: `connector.stat = async (path) => {
      const entry = await base.stat(path);
      return entry === null || path.startsWith('scratch/') ? entry : { ...entry, mtime: new Date(Date.parse(entry.mtime) + 3600000).toISOString() };
    };`,
  },
  {
    name: 'range-ignored',
    breaks: 5,
    section: 'reading-ranges',
    fault: 'ignores the range and streams the whole object',
    phases: BOTH,
    patch: `connector.read = (path) => base.read(path);`,
  },
  {
    name: 'stat-decoded-path',
    breaks: 6,
    section: 'identity-paths',
    fault: 'stat spells the path decoded ("notes/meeting notes.txt") where list encodes it',
    phases: BOTH,
    patch: `connector.stat = async (path) => {
      const entry = await base.stat(path);
      return entry === null ? null : { ...entry, path: entry.path.split('/').map(decodeURIComponent).join('/') };
    };`,
  },
  {
    name: 'scope-undeclared-dimension',
    breaks: 7,
    section: 'default-scope',
    fault: 'defaultScope filters on a dimension "folder" it never declares',
    phases: BOTH,
    patch: `connector.describe = () => {
      const description = base.describe();
      description.defaultScope = { rules: [{ exclude: { dim: 'folder', op: 'eq', value: 'trash' } }] };
      return description;
    };`,
  },
  {
    name: 'move-without-from',
    breaks: 8,
    section: 'change-events',
    fault: 'watch emits a move event without from',
    phases: BOTH,
    patch: `connector.watch = async (emit) => {
      const stop = await base.watch(emit);
      emit({ type: 'move', path: 'notes/renamed.txt' });
      return stop;
    };`,
  },
  {
    name: 'path-derived-native-id',
    breaks: 9,
    section: 'identity-nativeid',
    fault: 'derives nativeId from the path, so a rename changes it, and reports renames as delete + put',
    phases: ['install'],
    patch: `const tag = (entry) => (entry === null ? null : { ...entry, nativeId: 'p:' + entry.path });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(tag) };
    };
    connector.stat = async (path) => tag(await base.stat(path));
    connector.write = async (path, body, options) => tag(await base.write(path, body, options));
    connector.watch = (emit) => base.watch((event) => {
      if (event.type !== 'move') return emit(event);
      emit({ type: 'delete', path: event.from });
      emit({ type: 'put', path: event.path });
    });`,
  },
  {
    name: 'if-match-ignored',
    breaks: 10,
    section: 'writing-etags',
    fault: 'drops ifMatch, so a replace with a stale etag overwrites newer bytes',
    phases: ['install'],
    patch: `connector.write = (path, body) => base.write(path, body, {});`,
  },
  {
    name: 'undeclared-origin-beacon',
    breaks: 11,
    section: 'origins',
    fault: 'sends a usage beacon to an origin it does not declare (and ignores the failure)',
    phases: BOTH,
    patch: `connector.list = async (options) => {
      try { await fetch('https://telemetry.example.net/beacon?event=list'); } catch { /* ignored */ }
      return base.list(options);
    };`,
  },
  {
    name: 'writes-while-listing',
    breaks: 11,
    section: 'audit-mode',
    fault: 'marks the listing as synced with a PUT while listing (a write outside write())',
    phases: BOTH,
    patch: `connector.list = async (options) => {
      try { await fetch(new URL('/api/v1/files/content?path=sync-marker', config.baseUrl).href, { method: 'PUT', body: 'listed' }); } catch { /* ignored */ }
      return base.list(options);
    };`,
  },
  {
    name: 'present-unknown-field',
    breaks: 1,
    section: 'auth-present-templates',
    fault: 'presents {{api_token}}, a field it never declares (the field is "token")',
    phases: BOTH,
    patch: `connector.describe = () => {
      const description = base.describe();
      description.auth.present = [{ in: 'header', name: 'Authorization', value: 'Bearer {{api_token}}' }];
      return description;
    };`,
  },
  {
    name: 'since-exclusive',
    breaks: 2,
    section: 'listing-since',
    fault: 'treats since as exclusive, leaving out the entries changed exactly then',
    phases: BOTH,
    patch: `connector.list = (options = {}) => base.list(options.since === undefined ? options : { ...options, since: new Date(Date.parse(options.since) + 1).toISOString() });`,
  },
  {
    name: 'update-sequence-since-empty',
    breaks: 2,
    section: 'listing-since',
    fault: 'orders by an integer update sequence (extra.seq) and lists nothing when given since',
    phases: BOTH,
    patch: UPDATE_SEQUENCE + `connector.list = async (options = {}) => (options.since === undefined ? numberedList(options) : { entries: [] });`,
  },
  {
    name: 'prefix-ignored',
    breaks: 2,
    section: 'listing-prefix',
    fault: 'ignores prefix and lists everything',
    phases: BOTH,
    patch: `connector.list = (options = {}) => base.list({ ...options, prefix: undefined });`,
  },
  {
    name: 'mtime-with-offset',
    breaks: 3,
    section: 'dimensions-value-formats',
    fault: 'lists times with a +02:00 offset instead of UTC',
    phases: BOTH,
    patch: `const local = (entry) => ({ ...entry, mtime: new Date(Date.parse(entry.mtime) + 7200000).toISOString().replace('Z', '+02:00') });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(local) };
    };`,
  },
  {
    name: 'extra-too-large',
    breaks: 3,
    section: 'entries-extra',
    fault: 'puts a 20,000-character preview of the content in extra',
    phases: BOTH,
    patch: `connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map((entry) => ({ ...entry, extra: { ...entry.extra, preview: 'x'.repeat(20000) } })) };
    };`,
  },
  {
    name: 'only-smallest-read-right',
    breaks: 5,
    section: 'reading-bytes',
    fault: 'lists every size 100 bytes too large and streams other bytes, except for the smallest object (trash/old.txt)',
    phases: BOTH,
    patch: `const honest = (path) => path === 'trash/old.txt' || path.startsWith('scratch/');
    const padded = (entry) => (entry === null || honest(entry.path) ? entry : { ...entry, size: entry.size + 100 });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(padded) };
    };
    connector.stat = async (path) => padded(await base.stat(path));
    connector.read = async (path, options) => {
      if (honest(path)) return base.read(path, options);
      return new ReadableStream({ start(controller) { controller.enqueue(new TextEncoder().encode('not these bytes')); controller.close(); } });
    };`,
  },
  {
    name: 'native-hash-of-something-else',
    breaks: 5,
    section: 'identity-nativehash',
    fault: 'reports a sha256 nativeHash that is not the hash of the bytes read() streams',
    phases: BOTH,
    patch: `const hashed = (entry) => (entry === null ? null : { ...entry, nativeHash: 'sha256:' + '0'.repeat(64) });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(hashed) };
    };
    connector.stat = async (path) => hashed(await base.stat(path));`,
  },
  {
    name: 'event-decoded-path',
    breaks: 8,
    section: 'change-events',
    fault: 'watch emits paths decoded ("notes/meeting notes.txt") where list encodes them',
    phases: BOTH,
    patch: `connector.watch = async (emit) => {
      const stop = await base.watch(emit);
      emit({ type: 'put', path: 'notes/meeting notes.txt' });
      return stop;
    };`,
  },
  {
    name: 'write-result-stale-size',
    breaks: 10,
    section: 'writing-result',
    fault: 'answers write() with a size one byte off what it stored',
    phases: ['install'],
    patch: `connector.write = async (path, body, options) => {
      const entry = await base.write(path, body, options);
      return { ...entry, size: entry.size + 1 };
    };`,
  },
  {
    name: 'replace-unsupported',
    breaks: 10,
    section: 'writing-create-and-replace',
    fault: 'declares replace: true but answers a write with ifMatch with unsupported',
    phases: ['install'],
    patch: `connector.write = async (path, body, options = {}) => {
      if (options.ifMatch === undefined) return base.write(path, body, options);
      const error = new Error('conditional replace is not available on this plan');
      error.code = 'unsupported';
      throw error;
    };`,
  },
  {
    name: 'if-match-ignored-create-only',
    breaks: 10,
    section: 'writing-etags',
    fault: 'declares writes.replace false and drops ifMatch, so a write naming a deleted version creates the object again',
    phases: ['install'],
    patch: `connector.describe = () => ({ ...base.describe(), writes: { ...base.describe().writes, replace: false } });
    connector.write = (path, body) => base.write(path, body, {});`,
  },
  {
    name: 'fixed-shape-if-match-ignored',
    breaks: 10,
    section: 'writing-etags',
    fault: 'a host of <id>/doc.json documents whose write drops ifMatch',
    phases: ['install'],
    patch: `${FIXED_SHAPE_PATCH}
    const shaped = connector.write;
    connector.write = (path, body) => shaped(path, body, {});`,
  },
  {
    name: 'delete-does-nothing',
    breaks: 10,
    section: 'writing-delete',
    fault: 'delete answers success and stat forgets the object, but the host still has it',
    phases: ['install'],
    leaves: true,
    patch: `const forgotten = new Set();
    connector.delete = async (path) => { forgotten.add(path); };
    connector.stat = async (path) => (forgotten.has(path) ? null : base.stat(path));`,
  },
  {
    name: 'leaves-a-backup',
    breaks: 10,
    section: 'writing-leftovers',
    fault: 'write keeps a backup copy beside every object (<path>.bak) that delete never removes',
    phases: ['install'],
    leaves: true,
    patch: `${BYTES_OF}
    connector.write = async (path, body, options) => {
      const bytes = await bytesOf(body);
      await base.write(path + '.bak', streamOf(bytes), {});
      return base.write(path, streamOf(bytes), options);
    };`,
  },
  {
    name: 'delete-missing-succeeds',
    breaks: 10,
    section: 'writing-delete',
    fault: 'answers a delete of a missing object with success',
    phases: ['install'],
    patch: `connector.delete = async (path) => {
      try { await base.delete(path); } catch (error) { if (error.code !== 'not_found') throw error; }
    };`,
  },
  {
    name: 'envelope-invented-recipient',
    breaks: 5,
    section: 'envelopes-messages',
    fault: 'adds the owner as a "to" recipient of every message (the owner received it, after all)',
    phases: BOTH,
    host: 'mail',
    patch: mailEnvelopes(`(envelope) => ({ ...envelope, parties: [...envelope.parties, { identity: 'mailto:ada@example.com', role: 'to' }] })`),
  },
  {
    name: 'envelope-auth-always-pass',
    breaks: 5,
    section: 'envelopes-messages',
    fault: 'reports dkim, spf and dmarc as passed on every message',
    phases: BOTH,
    host: 'mail',
    patch: mailEnvelopes(`(envelope) => ({ ...envelope, auth: { dkim: true, spf: true, dmarc: true } })`),
  },
  {
    name: 'envelope-always-sent',
    breaks: 5,
    section: 'envelopes-messages',
    fault: 'marks every message sent',
    phases: BOTH,
    host: 'mail',
    patch: mailEnvelopes(`(envelope) => ({ ...envelope, direction: 'sent' })`),
  },
];

/** The example's source with `patch` applied: its createConnector wrapped, members replaced. */
export function brokenModule(exampleSource: string, patch: string): string {
  const renamed = exampleSource.replace('export function createConnector(config)', 'function createBaseConnector(config)');
  if (renamed === exampleSource) throw new Error('the example no longer has `export function createConnector(config)`');
  return `${renamed}
export function createConnector(config) {
  const base = createBaseConnector(config);
  const connector = { ...base };
  ${patch}
  return connector;
}
`;
}
