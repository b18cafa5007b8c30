/**
 * The tickets example connector — an API with native ids, envelopes and attachments — passes the
 * trial against a real ticket API on loopback, in the sandbox behind the gate, in both phases; and
 * what it lists follows the author's reference: canonical paths for names that need every escape,
 * NFC and NFD twins kept apart, envelopes with identities and roles, null for a missing due date.
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Entry } from '@inseam/connector';
import { createEgressGate, InMemoryEgressRecorder, type EgressGate } from '../gate/index.js';
import type { SandboxedConnector } from '../sandbox/index.js';
import { formatTrialReport, readTrialConfigFile, runTrial, TrialSandbox, type TrialReport } from './index.js';
import { TICKET_SEED, TICKET_USERS, exampleFile, exampleSource } from './__fixtures__/examples.js';
import { startTicketsApi, type TicketsApi } from './__fixtures__/servers/tickets.js';

let api: TicketsApi;
let sandbox: TrialSandbox;
let gate: EgressGate;
let connector: SandboxedConnector;

beforeAll(async () => {
  api = await startTicketsApi(TICKET_USERS, 'u-1', TICKET_SEED);
  sandbox = new TrialSandbox();
  gate = createEgressGate({ recorder: new InMemoryEgressRecorder() });
  const egress = gate.forHost({
    hostId: 'tickets-test',
    auth: { present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }], origins: [api.origin] },
    credentials: { fields: async () => ({ token: api.token }) },
    allowPrivateOrigins: [api.origin],
  });
  connector = await sandbox.host.load({ source: exampleSource('tickets'), label: 'tickets-direct', config: { baseUrl: api.origin, pageSize: 2 }, egress });
});
afterAll(async () => {
  connector.dispose();
  await sandbox.close();
  await gate.close();
  await api.close();
});

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function hostOptions() {
  return {
    subject: { module: exampleSource('tickets'), label: 'tickets' },
    config: { baseUrl: api.origin, pageSize: 2 },
    credentials: { token: api.token },
    allowPrivateOrigins: [api.origin],
    webhookSample: { body: { event: 'attachment.added', ticket: { id: 12 }, attachment: { id: 'a9', filename: 'Ünïcode & more.pdf' } } },
    sandbox,
  };
}

async function listAll(): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | undefined;
  do {
    const page = await connector.list(cursor === undefined ? {} : { cursor });
    entries.push(...page.entries);
    cursor = page.cursor;
  } while (cursor !== undefined);
  return entries;
}

describe('the tickets example', () => {
  it('passes the submit phase: reads only, the webhook sample parsed, nativeIds unique', async () => {
    const report = await runTrial(hostOptions());
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toEqual({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'pass', 8: 'pass', 9: 'skip', 10: 'skip', 11: 'pass' });
    expect(report.checks[1]?.detail).toMatch(/^8 entries; the cursor round-trips; 2 pages without repeats; prefix "T-12\/" and "T" filtered as string prefixes; since 2024-05-03T10:15:00\.250Z lists the newest entries \(inclusive\); newest first verified over 8 entries; its first page took 1 request \(the whole listing 3\)$/);
    expect(report.checks[4]?.detail).toMatch(/nativeHash sha256 verified/);
    expect(report.checks[7]?.detail).toBe('the sample delivery parsed into 1 event(s)');
    expect(report.origins).toEqual([api.origin]);
    expect(new Set(api.requests.map((request) => request.split(' ')[0]))).toEqual(new Set(['GET']));
  });

  it('passes the install phase; with no writes declared, checks 9 and 10 say why they skip', async () => {
    const report = await runTrial({ ...hostOptions(), phase: 'install', scratchPrefix: 'scratch' });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[8]).toMatchObject({ status: 'skip', detail: 'writes is not declared (a read-only connector)' });
    expect(report.checks[9]).toMatchObject({ status: 'skip', detail: 'writes is not declared (a read-only connector)' });
  });

  it('spells every name canonically, keeps NFC and NFD twins apart, and gives sub-objects their own paths', async () => {
    const paths = (await listAll()).map((entry) => entry.path).sort();
    expect(paths).toEqual([
      'T-12/attachments/a1-screenshot%201.png',
      'T-12/attachments/a2-50%25%20off%20%231%3F.txt',
      'T-12/attachments/a3-logs%2Fexport.txt',
      'T-12/attachments/a4-caf%C3%A9.txt',
      'T-12/attachments/a5-cafe%CC%81.txt',
      'T-12/ticket.md',
      'T-13/ticket.md',
      'T-14/ticket.md',
    ]);
    const twin = await connector.stat('T-12/attachments/a5-cafe%CC%81.txt');
    expect(twin).toMatchObject({ nativeId: 'attachment:a5', size: 4 });
    expect(await connector.stat('T-12/attachments/a5-caf%C3%A9.txt')).toBeNull();
  });

  it('reads the owner\'s envelope: sent or received, parties as identities with roles, never invented', async () => {
    const entries = new Map((await listAll()).map((entry) => [entry.path, entry]));
    expect(entries.get('T-12/ticket.md')?.envelope).toEqual({
      direction: 'sent',
      parties: [
        { identity: 'mailto:ada@example.com', role: 'reporter' },
        { identity: 'mailto:grace@example.com', role: 'assignee' },
        { identity: 'tickets:u-3', role: 'watcher' },
      ],
    });
    expect(entries.get('T-12/attachments/a1-screenshot%201.png')?.envelope).toEqual(entries.get('T-12/ticket.md')?.envelope);
    expect(entries.get('T-13/ticket.md')?.envelope?.direction).toBe('received');
    expect(entries.get('T-14/ticket.md')?.envelope).toEqual({ direction: 'received', parties: [{ identity: 'tickets:u-3', role: 'reporter' }] });
    expect(entries.get('T-12/ticket.md')?.extra).toMatchObject({ due: '2024-06-01T00:00:00Z', status: 'open', kind: 'ticket' });
    expect(entries.get('T-13/ticket.md')?.extra).toMatchObject({ due: null, assignee: 'mailto:ada@example.com' });
    expect(entries.get('T-14/ticket.md')?.extra).toMatchObject({ due: null, assignee: null });
  });

  it('cuts a range out of ticket content the host serves whole, and streams an attachment range', async () => {
    const text = async (stream: ReadableStream<Uint8Array>): Promise<string> => new Response(stream).text();
    const content = TICKET_SEED[0]!.content;
    expect(await text(await connector.read('T-12/ticket.md', { range: [2, 8] }))).toBe(content.slice(2, 8));
    expect(await text(await connector.read('T-12/ticket.md', { range: [content.length, content.length + 5] }))).toBe('');
    expect(await text(await connector.read('T-12/attachments/a2-50%25%20off%20%231%3F.txt', { range: [9, 13] }))).toBe('hash');
  });

  it('ships a host.json template in the config file form', async () => {
    const file = await readTrialConfigFile(fileURLToPath(exampleFile('tickets', 'host.json')));
    expect(Object.keys(file.config).sort()).toEqual(['baseUrl', 'pageSize']);
    expect(Object.keys(file.credentials)).toEqual(['token']);
    expect(file.webhookSample).toBeDefined();
  });
});
