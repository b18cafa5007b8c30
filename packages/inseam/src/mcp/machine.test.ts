/**
 * An agent searching a machine host over MCP, against the private sshd: the hit's OS path is the
 * machine's own, and the tool's text says so in words, so an agent never runs a local command on
 * a remote machine's path. A folder host's path on this machine reads as a plain `os path`.
 */
import { writeFile } from 'node:fs/promises';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MACHINE_CREDENTIALS, MACHINE_PACKAGE_ID } from '@inseam/connector-machine';
import { startSshd, type SshdFixture } from '../../../../connectors/machine/src/__fixtures__/sshd.mjs';
import { deploymentScope } from '../credentials/index.js';
import { callerOf } from '../fs/__fixtures__/fs-service.js';
import { openMcpFixture, structured, type McpFixture } from './__fixtures__/mcp-fixture.js';

let sshd: SshdFixture;
let fixture: McpFixture;
let ann: Client;

beforeAll(async () => {
  sshd = await startSshd();
  await writeFile(`${sshd.root}/readme.md`, 'the remote readme mentions wombats');
  fixture = await openMcpFixture({ files: { 'note.md': 'a local note about wombats' } });
  const { platform } = fixture;
  await platform.packageCredentials.set(deploymentScope(), MACHINE_PACKAGE_ID, MACHINE_CREDENTIALS[0]!, { privateKey: sshd.privateKey });
  await platform.networks.addHost({
    network: 'home',
    slug: 'box',
    kind: 'machine',
    config: { host: '127.0.0.1', port: sshd.port, username: sshd.username, root: sshd.root, hostKey: sshd.fingerprint, stateDir: `${sshd.base}/runs` },
  });
  await platform.networks.addHost({ network: 'home', slug: 'here', kind: 'fs', config: { root: fixture.files } });
  for (const host of ['box', 'here']) await (await platform.sync({ network: 'home', host })).result;
  fixture.tokens.set('ann-token', callerOf('ann'));
  ann = await fixture.client('ann-token');
});

afterAll(async () => {
  await fixture?.close();
  await sshd?.close();
});

it("labels a machine's path as that machine's and a folder's as this one's", async () => {
  const result = (await ann.callTool({ name: 'search', arguments: { query: 'wombats', mode: 'keyword' } })) as CallToolResult;
  expect(result.isError).toBeFalsy();
  const text = (result.content[0] as { text: string }).text;
  expect(text).toContain(`os path on box's own machine (not this one): ${sshd.root}/readme.md`);
  expect(text).toContain(`os path: ${fixture.files}/note.md`);
  const hits = (structured(result) as { hits: { host: string; osPath: string; osPathOn: string }[] }).hits;
  expect(Object.fromEntries(hits.map((hit) => [hit.host, [hit.osPath, hit.osPathOn]]))).toEqual({
    box: [`${sshd.root}/readme.md`, 'runtime'],
    here: [`${fixture.files}/note.md`, 'local'],
  });
});
