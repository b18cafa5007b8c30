/**
 * NetworkService on a real platform: seeding auto against discoverable sources, origin
 * attribution with the slug-and-root rule, every refusal typed and leaving the store exactly as
 * it was, secrets never shown, and removal taking the host's catalog and credentials with it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isConnectorError } from '@neuralis/package-system/contracts';
import { openTestPlatform, removeDir, sqliteOf, storeSnapshot, tempDir, writeFiles } from '../platform/__fixtures__/platforms.js';
import type { Platform } from '../platform/index.js';
import type { AddHostInput } from './service.js';

let dataDir: string;
let files: string;
let platform: Platform;

beforeAll(async () => {
  dataDir = await tempDir('network');
  files = await tempDir('network-files');
  await writeFiles(files, { 'a.txt': 'alpha', 'docs/b.md': 'bravo' });
  platform = await openTestPlatform(dataDir);
});

afterAll(async () => {
  await platform.close();
  await removeDir(dataDir);
  await removeDir(files);
});

async function failure(work: Promise<unknown>): Promise<{ name: string; code: string; message: string; details: Record<string, unknown> }> {
  try {
    await work;
  } catch (error) {
    if (!isConnectorError(error)) throw error;
    return { name: error.name, code: error.code, message: error.message, details: { ...error.details } };
  }
  throw new Error('expected a refusal');
}

describe('network init', () => {
  it('creates the pad and every auto source; skips what cannot be seeded, saying why; never creates discoverable ones', async () => {
    const init = await platform.networks.init('home', { label: 'Home' });
    expect(init.network).toMatchObject({ slug: 'home', label: 'Home' });
    expect(init.hosts.map((host) => [host.slug, host.kind, host.origin])).toEqual([
      ['pad', 'bucket', null],
      ['vector', 'vector', '@inseam/connector-vector'],
      ['data', 'local', 'test.seeds'],
    ]);
    const data = init.hosts.find((host) => host.slug === 'data')!;
    expect(data).toMatchObject({
      label: 'Project Data',
      description: "The project's shared working directory.",
      config: { root: 'data' },
      ownership: 'project',
      sync: { trigger: 'manual', exclude: ['_pending/**'] },
      permissions: { default: { read: true, write: true, exec: false } },
      address: 'inseam://home/data/',
    });
    expect(init.skipped.map((skip) => [skip.source, skip.error.code])).toEqual([
      ['notion', 'kind_not_registered'],
      ['scratch', 'invalid_argument'],
    ]);
    expect((await platform.networks.listHosts('home')).map((host) => host.slug)).toEqual(['data', 'pad', 'vector']);
    const offered = await platform.networks.discoverable('home');
    expect(offered).toEqual([
      expect.objectContaining({ packageId: 'test.seeds', source: 'reports', kind: 'local', root: 'data/reports', kindRegistered: true, added: false }),
      // Owned per user, so attached by each user for themselves (owned-sources.test.ts), and offered for that.
      expect.objectContaining({ packageId: 'test.seeds', source: 'scratch', ownership: 'user', added: false }),
    ]);
    expect(init.skipped.find((skip) => skip.source === 'scratch')?.error.message).toContain('"scratch+user.{id}"');
    await expect(platform.networks.init('home')).rejects.toMatchObject({ code: 'already_exists' });
    await expect(platform.networks.init('Home')).rejects.toMatchObject({ code: 'invalid_uri' });
  });

  it('refuses to remove the pad', async () => {
    await expect(platform.networks.removeHost({ network: 'home', host: 'pad' })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('attribution', () => {
  it('attributes a host to the declaring package only when slug, kind and resolved root match', async () => {
    await platform.networks.init('attr');
    const declared = await platform.networks.addDeclared('attr', 'test.seeds', 'reports');
    expect(declared).toMatchObject({ slug: 'reports', origin: 'test.seeds', label: 'Reports', config: { root: 'data/reports' } });
    expect((await platform.networks.discoverable('attr'))[0]).toMatchObject({ added: true });
    await platform.networks.removeHost({ network: 'attr', host: 'reports' });

    // A person's own mount that reuses the slug on another folder is not the package's.
    const mount = await platform.networks.addHost({ network: 'attr', slug: 'reports', kind: 'local', config: { root: 'data/elsewhere' } });
    expect(mount.origin).toBeNull();
    await platform.networks.removeHost({ network: 'attr', host: 'reports' });

    // The same slug and the same resolved root is the declared source, even when added by hand.
    const same = await platform.networks.addHost({ network: 'attr', slug: 'reports', kind: 'local', config: { root: 'data/reports' } });
    expect(same.origin).toBe('test.seeds');
    await platform.networks.removeHost({ network: 'attr', host: 'reports' });

    // Adding from the declaration but changing the root drops the attribution.
    const moved = await platform.networks.addDeclared('attr', 'test.seeds', 'reports', { config: { root: 'data/reports/2024' } });
    expect(moved.origin).toBeNull();
    await platform.networks.removeHost({ network: 'attr', host: 'reports' });

    // Another kind under the declared slug is not the declared source either.
    const other = await platform.networks.addHost({ network: 'attr', slug: 'reports', kind: 'fs', config: { root: `${dataDir}/networks/attr/data/reports` } });
    expect(other.origin).toBeNull();
    await expect(platform.networks.addDeclared('attr', 'test.seeds', 'nope')).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('addHost refusals', () => {
  const fsHost = (extra: Partial<AddHostInput> = {}): AddHostInput => ({ network: 'home', slug: 'notes', kind: 'fs', config: { root: files }, ...extra });
  const s3Host = (extra: Partial<AddHostInput> = {}): AddHostInput => ({
    network: 'home',
    slug: 'bucket',
    kind: 'bucket',
    config: { provider: 's3', bucket: 'team', endpoint: 'http://127.0.0.1:9' },
    credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'sekret-value-98765' },
    ...extra,
  });

  it('refuses bad addresses, kinds, configs, scopes, credentials and settings with named errors, storing nothing', async () => {
    await platform.networks.addHost(fsHost({ slug: 'taken' }));
    const before = storeSnapshot(platform);
    const cases: [string, AddHostInput, string, string, RegExp][] = [
      ['bad network slug', fsHost({ network: 'Home' }), 'InvalidUriError', 'invalid_uri', /network slug "Home"/],
      ['unknown network', fsHost({ network: 'nowhere' }), 'NotFoundError', 'not_found', /no network "nowhere"/],
      ['bad host slug', fsHost({ slug: '9notes' }), 'InvalidUriError', 'invalid_uri', /host slug "9notes"/],
      ['reserved host slug', fsHost({ slug: 'inseam' }), 'InvalidUriError', 'invalid_uri', /reserved/],
      ['slug taken', fsHost({ slug: 'taken' }), 'AlreadyExistsError', 'already_exists', /has a host "taken"/],
      ['unknown kind', fsHost({ kind: 'notion' }), 'KindNotRegisteredError', 'kind_not_registered', /notion/],
      ['config missing root', fsHost({ config: {} }), 'InvalidConfigError', 'invalid_config', /field "root" is required/],
      ['config relative root', fsHost({ config: { root: 'relative/path' } }), 'InvalidConfigError', 'invalid_config', /field "root"/],
      ['config unknown field', fsHost({ config: { root: files, rooot: files } }), 'InvalidConfigError', 'invalid_config', /field "rooot" is not a declared config field/],
      ['local root escaping', fsHost({ kind: 'local', config: { root: 'data/../../etc' } }), 'InvalidConfigError', 'invalid_config', /field "root"/],
      ['pad added by hand', fsHost({ kind: 'bucket', config: { provider: 'pad' } }), 'InvalidConfigError', 'invalid_config', /provider "pad"/],
      ['bucket field rule', s3Host({ config: { provider: 'r2', bucket: 'team', region: 'us-east-1', accountId: 'ab'.repeat(16) } }), 'InvalidConfigError', 'invalid_config', /"region"/],
      ['scope undeclared dimension', fsHost({ scope: { rules: [{ exclude: { dim: 'colour', op: 'eq', value: 'red' } }] } }), 'ScopeValidationError', 'scope_invalid', /colour/],
      ['scope wrong value type', fsHost({ scope: { rules: [{ include: { dim: 'size', op: 'gt', value: 'big' } }] } }), 'ScopeValidationError', 'scope_invalid', /size/],
      ['scope misspelt key', fsHost({ scope: { rules: [{ exlude: { dim: 'mime', op: 'eq', value: 'x' } }] } as never }), 'ScopeValidationError', 'scope_invalid', /exlude/],
      ['credentials missing a field', s3Host({ credentials: { accessKeyId: 'AKIDEXAMPLE' } }), 'InvalidArgumentError', 'invalid_argument', /"secretAccessKey" \(Secret access key\) is required/],
      ['credentials missing entirely', s3Host({ credentials: {} }), 'InvalidArgumentError', 'invalid_argument', /"accessKeyId"/],
      ['credentials unknown field', s3Host({ credentials: { accessKeyId: 'A', secretAccessKey: 'sekret-value-98765', token: 'sekret-value-98765' } }), 'InvalidArgumentError', 'invalid_argument', /"token" is not a field/],
      ['credentials on a kind without any', fsHost({ credentials: { password: 'sekret-value-98765' } }), 'InvalidArgumentError', 'invalid_argument', /take no credentials/],
      ['private origin not declared', s3Host({ privateOrigins: ['http://10.0.0.9:9000'] }), 'InvalidConfigError', 'invalid_config', /10\.0\.0\.9/],
      ['sync interval', fsHost({ sync: { trigger: 'auto', interval: 'every day' } }), 'InvalidConfigError', 'invalid_config', /sync\.interval/],
      ['sync exclude escaping', fsHost({ sync: { trigger: 'manual', exclude: ['../x'] } }), 'InvalidConfigError', 'invalid_config', /sync\.exclude\[0\]/],
      ['permissions missing a right', fsHost({ permissions: { default: { read: true, write: false } } as never }), 'InvalidArgumentError', 'invalid_argument', /permissions\.default\.exec/],
      ['ownership not allowed', fsHost({ kind: 'bucket', config: { provider: 's3', bucket: 'b', endpoint: 'http://127.0.0.1:9' }, ownership: 'owner' as never }), 'InvalidArgumentError', 'invalid_argument', /not "owner"/],
      ['user host without owner', fsHost({ ownership: 'user' }), 'InvalidArgumentError', 'invalid_argument', /owner id/],
      ['label on two lines', fsHost({ label: 'a\nb' }), 'InvalidArgumentError', 'invalid_argument', /label/],
    ];
    for (const [what, input, name, code, message] of cases) {
      const refused = await failure(platform.networks.addHost(input));
      expect([what, refused.name, refused.code], refused.message).toEqual([what, name, code]);
      expect(refused.message, what).toMatch(message);
      expect(refused.message, what).not.toContain('sekret-value-98765');
      expect(storeSnapshot(platform), what).toEqual(before);
    }
  });

  it('names every bad config field in details', async () => {
    const refused = await failure(platform.networks.addHost(fsHost({ config: { textCapBytes: 0 } })));
    expect(refused.details['fields']).toEqual(['root', 'textCapBytes']);
  });
});

describe('credentials', () => {
  it('stores credentials encrypted and never shows them, by view, list or JSON', async () => {
    const secret = 'sekret-value-12345';
    const view = await platform.networks.addHost({
      network: 'home',
      slug: 'archive',
      kind: 'bucket',
      config: { provider: 's3', bucket: 'archive', endpoint: 'http://127.0.0.1:9000' },
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: secret },
      privateOrigins: ['http://127.0.0.1:9000'],
    });
    expect(view.credentials).toEqual({ acquire: 'static', fields: ['accessKeyId', 'secretAccessKey'], stored: ['accessKeyId', 'secretAccessKey'] });
    expect(view.privateOrigins).toEqual(['http://127.0.0.1:9000']);
    const shown = JSON.stringify([view, await platform.networks.showHost({ network: 'home', host: 'archive' }), await platform.networks.listHosts('home')]);
    expect(shown).not.toContain(secret);
    expect(shown).not.toContain('AKIDEXAMPLE');
    const sealed = sqliteOf(platform).prepare("SELECT sealed FROM credential_records WHERE id = 'host/archive'").get() as { sealed: Buffer };
    expect(sealed.sealed.toString('latin1')).not.toContain(secret);
    expect(await platform.credentials.source({ scope: { network: 'home', owner: 'project' }, host: 'archive' }, { acquire: { type: 'static' }, present: [], origins: [], fields: [{ name: 'secretAccessKey', label: 's', secret: true }] }).fields()).toEqual({ secretAccessKey: secret });
  });

  it('removing a host deletes its credential; a new host under the slug starts from nothing left over', async () => {
    const scope = { network: 'home', owner: 'project' } as const;
    await platform.networks.removeHost({ network: 'home', host: 'archive' });
    expect(await platform.credentialStore.get(scope, 'host/archive')).toBeNull();
    // A record left behind (by a crash between the steps of a removal, say) with an OAuth grant in it.
    const stale = { fields: { accessKeyId: 'OLD', secretAccessKey: 'old-secret' }, oauth: { spec: 'x', issuer: 'https://idp.example', client: { source: 'dcr', clientId: 'c' }, accessToken: 'old-token' } };
    await platform.credentialStore.put(scope, 'host/archive', stale);
    await platform.networks.addHost({
      network: 'home',
      slug: 'archive',
      kind: 'bucket',
      config: { provider: 's3', bucket: 'archive', endpoint: 'https://s3.example.com' },
      credentials: { accessKeyId: 'NEW', secretAccessKey: 'new-secret' },
    });
    expect(await platform.credentialStore.get(scope, 'host/archive')).toEqual({ fields: { accessKeyId: 'NEW', secretAccessKey: 'new-secret' } });
    await platform.networks.removeHost({ network: 'home', host: 'archive' });
  });
});

describe('removeHost', () => {
  it('takes the catalog, the crawl runs and the credentials with it', async () => {
    await platform.networks.addHost({ network: 'home', slug: 'gone', kind: 'fs', config: { root: files } });
    await (await platform.sync({ network: 'home', host: 'gone' })).result;
    expect((await platform.search.search('bravo', { network: 'home', hosts: ['gone'] })).hits).toHaveLength(1);
    await platform.networks.removeHost({ network: 'home', host: 'gone' });
    expect((await platform.search.search('bravo', { network: 'home' })).hits).toEqual([]);
    const rows = sqliteOf(platform).prepare("SELECT count(*) AS n FROM catalog_entries e WHERE NOT EXISTS (SELECT 1 FROM hosts h WHERE h.id = e.host_id)").get() as { n: number };
    expect(rows.n).toBe(0);
    await expect(platform.networks.removeHost({ network: 'home', host: 'gone' })).rejects.toMatchObject({ code: 'not_found' });
    await expect(platform.networks.showHost({ network: 'nowhere', host: 'gone' })).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('no network "nowhere"') });
  });
});
