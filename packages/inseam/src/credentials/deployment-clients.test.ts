import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPlatform } from '../platform/index.js';
import { parseDeploymentClients, readDeploymentClients } from './deployment-clients.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inseam-oauth-clients-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const CLIENT = { tokenUrl: 'https://auth.example.com/token', clientId: 'inseam-desktop', clientSecret: 's3cret-value' };

async function clientsFile(value: unknown, mode = 0o600): Promise<string> {
  const path = join(dir, 'oauth-clients.json');
  await writeFile(path, typeof value === 'string' ? value : JSON.stringify(value));
  await chmod(path, mode);
  return path;
}

describe('deployment OAuth clients', () => {
  it('reads the file, and none when it does not exist', async () => {
    expect(await readDeploymentClients(join(dir, 'missing.json'))).toEqual([]);
    expect(await readDeploymentClients(await clientsFile([CLIENT, { tokenUrl: 'http://127.0.0.1:9/token', clientId: 'public' }]))).toEqual([CLIENT, { tokenUrl: 'http://127.0.0.1:9/token', clientId: 'public' }]);
  });

  it('refuses a file others may read, without saying what is in it', async () => {
    const error = await readDeploymentClients(await clientsFile([CLIENT], 0o644)).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'oauth_clients_file_permissions' } });
    expect((error as Error).message).toContain('chmod 600');
    expect((error as Error).message).not.toContain(CLIENT.clientSecret);
  });

  it('refuses a symlink rather than following it (checked on the open descriptor, as the master key file)', async () => {
    const real = await clientsFile([CLIENT]);
    const link = join(dir, 'link.json');
    await symlink(real, link);
    await expect(readDeploymentClients(link)).rejects.toMatchObject({ code: 'invalid_config', details: { reason: 'oauth_clients_file_symlink' } });
  });

  it('names the entry and field of a malformed client, never a value', async () => {
    const cases: [unknown, string][] = [
      [{}, 'must hold an array'],
      [[{ ...CLIENT, extra: 1 }], '[0] has an unknown field "extra"'],
      [[{ ...CLIENT, tokenUrl: 'ftp://x' }], '[0].tokenUrl'],
      [[CLIENT, CLIENT], '[1].tokenUrl repeats'],
      [[{ ...CLIENT, clientId: '' }], '[0].clientId'],
      [[{ tokenUrl: CLIENT.tokenUrl, clientId: 'c', tokenEndpointAuthMethod: 'client_secret_post' }], 'needs a client secret'],
      [[{ ...CLIENT, tokenEndpointAuthMethod: 'magic' }], 'tokenEndpointAuthMethod must be one of'],
    ];
    for (const [value, message] of cases) {
      const error = (() => {
        try {
          parseDeploymentClients(value, 'oauth-clients.json');
          return undefined;
        } catch (caught) {
          return caught as Error & { code?: string };
        }
      })();
      expect(error?.code, JSON.stringify(value)).toBe('invalid_config');
      expect(error?.message).toContain(message);
      expect(error?.message).not.toContain(CLIENT.clientSecret);
    }
    await expect(readDeploymentClients(await clientsFile('[{'))).rejects.toMatchObject({ code: 'invalid_config' });
  });

  it('is read when the platform opens: a file others may read stops it', async () => {
    await clientsFile([CLIENT], 0o644);
    await expect(openPlatform({ dataDir: dir, env: {} })).rejects.toMatchObject({ code: 'invalid_config' });
    await chmod(join(dir, 'oauth-clients.json'), 0o600);
    const platform = await openPlatform({ dataDir: dir, env: {} });
    await platform.close();
  });
});
