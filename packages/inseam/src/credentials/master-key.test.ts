import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { expectNoSecrets, rejectionOf } from './__fixtures__/secrets.js';
import { MASTER_KEY_ENV, loadMasterKey, parseMasterKey } from './master-key.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inseam-key-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('parseMasterKey', () => {
  const key = randomBytes(32);

  it('accepts 64 hex digits and standard or URL-safe base64 of 32 bytes', () => {
    expect(parseMasterKey(key.toString('hex'), 'x').equals(key)).toBe(true);
    expect(parseMasterKey(key.toString('hex').toUpperCase(), 'x').equals(key)).toBe(true);
    expect(parseMasterKey(`  ${key.toString('base64')}\n`, 'x').equals(key)).toBe(true);
    expect(parseMasterKey(key.toString('base64url'), 'x').equals(key)).toBe(true);
  });

  it('refuses passphrases, short and long keys with an actionable message that does not echo the value', () => {
    for (const bad of ['correct horse battery staple', randomBytes(16).toString('hex'), randomBytes(33).toString('base64'), randomBytes(31).toString('base64'), '']) {
      let error: unknown;
      try {
        parseMasterKey(bad, MASTER_KEY_ENV);
      } catch (caught) {
        error = caught;
      }
      expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'master_key_malformed' } });
      expect((error as Error).message).toContain('openssl rand -base64 32');
      expect((error as Error).message).toContain(MASTER_KEY_ENV);
      if (bad !== '') expectNoSecrets(error, [bad]);
    }
  });

  it('refuses a base64 text whose spare bits are set (not the canonical encoding)', () => {
    const canonical = key.toString('base64');
    const last = canonical[42] ?? 'A';
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const sibling = alphabet[alphabet.indexOf(last) ^ 1] ?? 'A';
    expect(() => parseMasterKey(`${canonical.slice(0, 42)}${sibling}=`, 'x')).toThrow(/not a valid master key/);
  });
});

describe('loadMasterKey', () => {
  it('prefers INSEAM_MASTER_KEY and never touches the key file then', async () => {
    const key = randomBytes(32);
    const keyFile = join(dir, 'master.key');
    const loaded = await loadMasterKey({ env: { [MASTER_KEY_ENV]: key.toString('base64') }, keyFile });
    expect(loaded.source).toBe('env');
    expect(loaded.key.equals(key)).toBe(true);
    await expect(stat(keyFile)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('creates the key file at first start with mode 0600, then reads the same key back', async () => {
    const keyFile = join(dir, 'nested', 'master.key');
    const created = await loadMasterKey({ env: {}, keyFile });
    expect(created.source).toBe('created');
    expect((await stat(keyFile)).mode & 0o777).toBe(0o600);
    const again = await loadMasterKey({ env: {}, keyFile });
    expect(again.source).toBe('file');
    expect(again.key.equals(created.key)).toBe(true);
    expect(parseMasterKey(await readFile(keyFile, 'utf8'), 'file').equals(created.key)).toBe(true);
  });

  it('gives every concurrent first start the same key (exclusive creation, no overwrite)', async () => {
    const keyFile = join(dir, 'master.key');
    const keys = await Promise.all(Array.from({ length: 8 }, () => loadMasterKey({ env: {}, keyFile })));
    expect(keys.filter((key) => key.source === 'created')).toHaveLength(1);
    for (const key of keys) expect(key.key.equals(keys[0]?.key ?? Buffer.alloc(0))).toBe(true);
  });

  it('refuses a key file that group or others can read (mode 0644), naming the fix', async () => {
    const keyFile = join(dir, 'master.key');
    const key = randomBytes(32).toString('base64');
    await writeFile(keyFile, key, { mode: 0o600 });
    await chmod(keyFile, 0o644);
    const error = await rejectionOf(loadMasterKey({ env: {}, keyFile }));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'key_file_permissions', mode: '0644' } });
    expect((error as Error).message).toContain(`chmod 600 ${keyFile}`);
    expectNoSecrets(error, [key]);
  });

  it('refuses group-only permission bits too (0640, 0610)', async () => {
    const keyFile = join(dir, 'master.key');
    await writeFile(keyFile, randomBytes(32).toString('base64'), { mode: 0o600 });
    for (const mode of [0o640, 0o610, 0o604]) {
      await chmod(keyFile, mode);
      await expect(loadMasterKey({ env: {}, keyFile })).rejects.toMatchObject({ details: { reason: 'key_file_permissions' } });
    }
  });

  it('refuses a key file reached through a symbolic link', async () => {
    const real = join(dir, 'real.key');
    await writeFile(real, randomBytes(32).toString('base64'), { mode: 0o600 });
    const keyFile = join(dir, 'master.key');
    await symlink(real, keyFile);
    await expect(loadMasterKey({ env: {}, keyFile })).rejects.toMatchObject({ code: 'invalid_config', details: { reason: 'key_file_symlink' } });
  });

  it('refuses a key file whose content is not a key, without echoing it', async () => {
    const keyFile = join(dir, 'master.key');
    await writeFile(keyFile, 'hunter2-not-a-key', { mode: 0o600 });
    const error = await rejectionOf(loadMasterKey({ env: {}, keyFile }));
    expect(error).toMatchObject({ code: 'invalid_config', details: { reason: 'master_key_malformed' } });
    expectNoSecrets(error, ['hunter2-not-a-key']);
  });
});
