/**
 * A mailbox on every surface: a person adds an imap host with the CLI (password from a file, never
 * echoed), a caller browses and previews mail over /v1 and is refused a write on the read-only
 * host, and an agent searches and reads a thread over MCP with the SDK client.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ImapFlow } from 'imapflow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startDovecot, type Dovecot } from '../../../../connectors/imap/src/__fixtures__/dovecot.mjs';
import { cli } from '../cli/commands/__fixtures__/cli.js';
import { openPlatform, type Platform } from '../platform/index.js';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { call, q } from './__fixtures__/api.js';
import { createServer } from './server.js';

const USER = { name: 'alice', password: `surface-${Math.random().toString(36).slice(2)}` };
let dovecot: Dovecot;
let dataDir: string;
let platform: Platform;
let app: FastifyInstance;
let url: string;
let token: string;
let agent: string;
let admin: string;
const clients: Client[] = [];
const run = (...args: string[]) => cli(dataDir, args);

const thread = [
  ['<t1@example.org>', undefined, 'Harbour crane schedule', 'Can we move the crane lift to Thursday?'],
  ['<t2@example.org>', '<t1@example.org>', 'Re: Harbour crane schedule', 'Thursday works; the barge arrives at nine.'],
] as const;

beforeAll(async () => {
  dovecot = await startDovecot({ users: [USER] });
  const imap = new ImapFlow({ host: '127.0.0.1', port: dovecot.port, secure: true, tls: { ca: dovecot.ca }, auth: { user: USER.name, pass: USER.password }, logger: false });
  imap.on('error', () => undefined);
  await imap.connect();
  for (const [id, replyTo, subject, body] of thread) {
    await imap.append('INBOX', [`Message-ID: ${id}`, ...(replyTo === undefined ? [] : [`In-Reply-To: ${replyTo}`, `References: ${replyTo}`]), 'From: Bob <bob@example.org>', 'To: alice@example.com', `Subject: ${subject}`, '', body, ''].join('\r\n'));
  }
  await imap.logout();
  dataDir = await tempDir('imap-surfaces');
  expect((await run('network', 'init', 'home')).code).toBe(0);
  const secretFile = join(dataDir, 'imap-password.txt');
  await writeFile(secretFile, USER.password, { mode: 0o600 });
  const added = await run('host', 'add', 'home/mail', '--kind', 'imap', '--config', JSON.stringify({ host: '127.0.0.1', port: dovecot.port, ca: dovecot.ca }), '--credential', `username=${USER.name}`, '--credential', `password=@${secretFile}`);
  expect(added.code, added.stderr).toBe(0);
  expect(added.stdout + added.stderr).not.toContain(USER.password);
  const made = await run('token', 'create', '--name', 'person', '--user', 'ann');
  token = made.stdout.trim();
  agent = (await run('token', 'create', '--name', 'agent', '--user', 'ann', '--agent', 'helper')).stdout.trim();
  admin = (await run('token', 'create', '--name', 'admin', '--user', 'ann', '--features', 'hosts.manage')).stdout.trim();
  platform = await openPlatform({ dataDir, env: {} });
  const crawl = await (await platform.sync({ network: 'home', host: 'mail' })).result;
  expect(crawl.state).toBe('completed');
  app = await createServer({ platform, mcp: {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
}, 60_000);

afterAll(async () => {
  await Promise.allSettled(clients.map((client) => client.close()));
  await app?.close();
  await platform?.close();
  await dovecot?.stop();
  await removeDir(dataDir);
});

describe('an imap host on the surfaces', () => {
  it('is listed as a kind with its config schema, so the web form can be built from it', async () => {
    const kinds = (await call({ url }, 'GET', '/v1/source-kinds', { token })).json();
    const imap = (Array.isArray(kinds) ? kinds : kinds.kinds).find((kind: { kind: string }) => kind.kind === 'imap');
    expect(imap).toMatchObject({ kind: 'imap', category: 'mail' });
    expect(imap.configSchema.properties.host).toBeDefined();
    expect(imap.configSchema.additionalProperties).toBe(false);
    // What the form's credentials area is built from: the AuthSpec for this config.
    const described = await call({ url }, 'POST', '/v1/source-kinds/imap/describe', { token: admin, body: { network: 'home', config: { host: 'imap.example.com' } } });
    expect(described.status, described.text).toBe(200);
    expect(described.json().auth).toMatchObject({ acquire: { type: 'static' }, fields: [{ name: 'username', secret: false }, { name: 'password', secret: true }] });
  });

  it('browses mailboxes and previews a message over /v1; a write on the read-only host is refused', async () => {
    const root = (await call({ url }, 'GET', `/v1/fs/list?address=${q('inseam://home/mail/')}`, { token })).json();
    expect(JSON.stringify(root)).toContain('INBOX');
    const inbox = (await call({ url }, 'GET', `/v1/fs/list?address=${q('inseam://home/mail/INBOX')}`, { token })).json();
    const first = JSON.stringify(inbox).match(/inseam:\/\/home\/mail\/INBOX\/[0-9]+-1\.eml/)![0];
    const read = await call({ url }, 'GET', `/v1/fs/read?address=${q(first)}`, { token });
    expect(read.status).toBe(200);
    expect(read.text).toContain('Subject: Harbour crane schedule');
    const refused = await call({ url }, 'PUT', `/v1/fs/write?address=${q(first)}`, { token, body: JSON.stringify({ flags: { add: ['\\Seen'] } }) });
    expect(refused.status).toBe(403);
  });

  it('an agent searches the mail and reads the thread over MCP', async () => {
    const client = new Client({ name: 'imap-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${agent}` } } }));
    clients.push(client);
    const found = (await client.callTool({ name: 'search', arguments: { query: 'crane', mode: 'keyword' } })) as CallToolResult;
    const addresses = [...new Set(JSON.stringify(found).match(/inseam:\/\/home\/mail\/INBOX\/[0-9]+-[0-9]+\.eml/g) ?? [])];
    expect(addresses).toHaveLength(2);
    const texts: string[] = [];
    for (const address of addresses) {
      const result = (await client.callTool({ name: 'read', arguments: { address } })) as CallToolResult;
      expect(result.isError).not.toBe(true);
      texts.push(JSON.stringify(result.content));
    }
    expect(texts.join('\n')).toContain('Thursday works; the barge arrives at nine.');
    expect(texts.join('\n')).toContain('In-Reply-To: <t1@example.org>');
  });
});
