/** `inseam oauth-client set|rm`: a network's OAuth clients, stored encrypted, the secret never echoed. */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkClientId } from '../../credentials/oauth-clients.js';
import { projectScope } from '../../credentials/index.js';
import { openPlatform } from '../../platform/index.js';
import { removeDir, tempDir } from '../../platform/__fixtures__/platforms.js';
import { cli } from './__fixtures__/cli.js';

const TOKEN_URL = 'https://auth.example.com/oauth/token';
const SECRET = 'client-secret-9f1e';
let dataDir: string;

beforeAll(async () => {
  dataDir = await tempDir('cli-oauth-client');
  expect((await cli(dataDir, ['network', 'init', 'home'])).code).toBe(0);
});

afterAll(async () => {
  await removeDir(dataDir);
});

async function stored(): Promise<unknown> {
  const platform = await openPlatform({ dataDir, env: {} });
  try {
    return await platform.credentialStore.get(projectScope('home'), networkClientId(TOKEN_URL));
  } finally {
    await platform.close();
  }
}

describe('inseam oauth-client', () => {
  it('stores a client with its secret read from stdin, encrypted in the network scope, never printing it', async () => {
    const stdin = new PassThrough();
    stdin.end(`${SECRET}\n`);
    const set = await cli(dataDir, ['oauth-client', 'set', '--token-url', TOKEN_URL, '--client-id', 'inseam-app', '--client-secret', '-'], { stdin });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('inseam-app');
    expect(set.stdout + set.stderr).not.toContain(SECRET);
    expect(await stored()).toEqual({ clientId: 'inseam-app', clientSecret: SECRET });
  });

  it('refuses a secret-using auth method without a secret, and removes a client', async () => {
    const bad = await cli(dataDir, ['oauth-client', 'set', '--token-url', TOKEN_URL, '--client-id', 'x', '--auth-method', 'client_secret_post']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('needs a client secret');
    const removed = await cli(dataDir, ['oauth-client', 'rm', '--token-url', TOKEN_URL]);
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain('Removed');
    expect(await stored()).toBeNull();
    expect((await cli(dataDir, ['oauth-client', 'rm', '--token-url', TOKEN_URL])).stdout).toContain('had no OAuth client');
  });
});
