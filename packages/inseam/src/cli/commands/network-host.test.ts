/**
 * `inseam network` and `inseam host`, in-process on a temp data directory: output, `--json`,
 * exit codes, refusals that store nothing, and credentials that are never printed.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir, writeFiles } from '../../platform/__fixtures__/platforms.js';
import { SqliteStore } from '../../store/index.js';
import { cli } from './__fixtures__/cli.js';

let dataDir: string;
let files: string;
const SECRET = 'sekret-cli-value-4242';

beforeAll(async () => {
  dataDir = await tempDir('cli-hosts');
  files = await tempDir('cli-hosts-files');
  await writeFiles(files, { 'a.txt': 'alpha' });
});

afterAll(async () => {
  await removeDir(dataDir);
  await removeDir(files);
});

const run = (...args: string[]) => cli(dataDir, args);

describe('inseam network', () => {
  it('init creates a network with its pad; ls lists it; --json on both', async () => {
    const init = await run('network', 'init', 'home', '--label', 'Home');
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toMatch(/^Created network home with 2 hosts:\n {2}pad +bucket +inseam:\/\/home\/pad\/\n {2}vector +vector +inseam:\/\/home\/vector\/ {2}\(from @inseam\/connector-vector\)\n$/);
    const json = await run('network', 'init', 'work', '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({ network: { slug: 'work', label: 'work' }, hosts: [{ slug: 'pad', kind: 'bucket' }, { slug: 'vector', kind: 'vector' }], skipped: [] });
    const ls = await run('network', 'ls');
    expect(ls.stdout.split('\n')[0]).toMatch(/^NETWORK +LABEL +HOSTS +CREATED$/);
    expect(ls.stdout).toMatch(/\nhome +Home +2 +\d{4}-/);
    expect((JSON.parse((await run('network', 'ls', '--json')).stdout) as { slug: string; hosts: number }[]).map((n) => [n.slug, n.hosts])).toEqual([
      ['home', 2],
      ['work', 2],
    ]);
  });

  it('exits 2 with the code for a bad slug or a taken one', async () => {
    expect(await run('network', 'init', 'home')).toMatchObject({ code: 2, stderr: expect.stringMatching(/exists already.*\[already_exists\]\n$/) });
    expect(await run('network', 'init', 'Bad_Slug')).toMatchObject({ code: 2, stderr: expect.stringContaining('[invalid_uri]') });
    expect(await run('network', 'init')).toMatchObject({ code: 2, stderr: expect.stringContaining("missing required argument 'slug'") });
  });
});

describe('inseam host', () => {
  it('adds, lists, shows and removes an fs host', async () => {
    const added = await run('host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--label', 'My notes', '--description', 'Meeting notes');
    expect(added).toMatchObject({ code: 0, stdout: 'Added host inseam://home/notes/ (fs).\n' });
    const ls = await run('host', 'ls', 'home');
    expect(ls.stdout).toMatch(/^HOST +KIND +LABEL +ORIGIN +ADDRESS\nnotes +fs +My notes +- +inseam:\/\/home\/notes\/\npad +bucket +Pad +- +inseam:\/\/home\/pad\/\nvector +vector +Semantic index +@inseam\/connector-vector +inseam:\/\/home\/vector\/\n$/);
    const show = await run('host', 'show', 'inseam://home/notes');
    expect(show.stdout).toContain('description:  Meeting notes\n');
    expect(show.stdout).toContain(`config:       ${JSON.stringify({ root: files })}\n`);
    const json = JSON.parse((await run('host', 'show', 'home/notes', '--json')).stdout) as Record<string, unknown>;
    expect(json).toMatchObject({ slug: 'notes', kind: 'fs', label: 'My notes', credentials: { acquire: 'none', fields: [], stored: [] } });
    expect(await run('host', 'rm', 'home/notes')).toMatchObject({ code: 0, stdout: 'Removed host inseam://home/notes/.\n' });
    expect(await run('host', 'rm', 'home/notes')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('refuses bad hosts, configs, scopes and arguments with exit 2, storing nothing', async () => {
    const scopeFile = join(dataDir, 'scope.json');
    await writeFile(scopeFile, JSON.stringify({ rules: [{ exclude: { dim: 'colour', op: 'eq', value: 'red' } }] }));
    const before = (await run('host', 'ls', 'home', '--json')).stdout;
    const cases: [string[], RegExp][] = [
      [['host', 'add', 'home', '--kind', 'fs'], /network\/host.*\[invalid_argument\]/],
      [['host', 'add', 'Home/notes', '--kind', 'fs'], /network slug "Home".*\[invalid_uri\]/],
      [['host', 'add', 'home/No', '--kind', 'fs'], /host slug "No".*\[invalid_uri\]/],
      [['host', 'add', 'nowhere/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files })], /no network "nowhere".*\[not_found\]/],
      [['host', 'add', 'home/notes', '--config', JSON.stringify({ root: files })], /Name the kind with --kind.*\[invalid_argument\]/],
      [['host', 'add', 'home/notes', '--kind', 'gdrive'], /gdrive.*\[kind_not_registered\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', '{"root": '], /--config is not JSON.*\[invalid_config\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', '{"root":"relative"}'], /field "root".*\[invalid_config\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--scope', `@${scopeFile}`], /colour.*\[scope_invalid\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--scope', `@${join(dataDir, 'missing.json')}`], /does not exist.*\[not_found\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--credential', `password=${SECRET}`], /take no credentials.*\[invalid_argument\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--credential', SECRET], /field=value.*\[invalid_argument\]/],
      [['host', 'add', 'home/notes', '--kind', 'fs', '--config', JSON.stringify({ root: files }), '--ownership', 'everyone'], /--ownership.*\[invalid_argument\]/],
      [['host', 'add', 'home/pad', '--kind', 'fs', '--config', JSON.stringify({ root: files })], /has a host "pad".*\[already_exists\]/],
      [['host', 'show', 'home/nope'], /no host "nope".*\[not_found\]/],
      [['host', 'rm', 'home/pad'], /own bucket.*\[invalid_argument\]/],
    ];
    for (const [args, message] of cases) {
      const refused = await run(...args);
      expect(refused.code, `${args.join(' ')}\n${refused.stderr}`).toBe(2);
      expect(refused.stderr).toMatch(message);
      expect(refused.stderr + refused.stdout).not.toContain(SECRET);
    }
    expect((await run('host', 'ls', 'home', '--json')).stdout).toBe(before);
  });

  it('stores credentials given inline, from a file or from stdin, and never prints them', async () => {
    const secretFile = join(dataDir, 'secret.txt');
    await writeFile(secretFile, `${SECRET}\n`);
    const config = JSON.stringify({ provider: 's3', bucket: 'archive', endpoint: 'http://127.0.0.1:9000' });
    const added = await run('host', 'add', 'home/archive', '--kind', 'bucket', '--config', config, '--credential', 'accessKeyId=AKIDCLI', '--credential', `secretAccessKey=@${secretFile}`, '--allow-private-origin', 'http://127.0.0.1:9000', '--json');
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ credentials: { acquire: 'static', stored: ['accessKeyId', 'secretAccessKey'] }, privateOrigins: ['http://127.0.0.1:9000'] });
    const stdin = new PassThrough();
    stdin.end(`${SECRET}\n`);
    const piped = await cli(dataDir, ['host', 'add', 'home/archive2', '--kind', 'bucket', '--config', config, '--credential', 'accessKeyId=AKIDCLI', '--credential', 'secretAccessKey=-'], { stdin });
    expect(piped.code, piped.stderr).toBe(0);
    const outputs = [added, piped, await run('host', 'show', 'home/archive'), await run('host', 'show', 'home/archive2', '--json'), await run('host', 'ls', 'home'), await run('host', 'ls', 'home', '--json')];
    for (const output of outputs) {
      expect(output.stdout + output.stderr).not.toContain(SECRET);
      expect(output.stdout + output.stderr).not.toContain('AKIDCLI');
    }
    expect(outputs[2]!.stdout).toContain('credentials:      static; stored: accessKeyId, secretAccessKey\n');
  });

  it('lists kinds and discoverable sources', async () => {
    const kinds = JSON.parse((await run('host', 'kinds', '--json')).stdout) as { kind: string }[];
    expect(kinds.map((kind) => kind.kind)).toEqual(['bucket', 'fs', 'imap', 'local', 'machine', 'vector']);
    expect((await run('host', 'kinds')).stdout).toMatch(/\nfs +Folder +disk +list read write/);
    expect(JSON.parse((await run('host', 'discover', 'home', '--json')).stdout)).toEqual([]);
    expect(await run('host', 'discover', 'nowhere')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
  });

  it('webhook-url refuses a host whose connector takes no webhooks and a bad --base, and revokes a URL', async () => {
    expect(await run('host', 'webhook-url', 'home/pad')).toMatchObject({ code: 2, stderr: expect.stringContaining('[unsupported]') });
    expect(await run('host', 'webhook-url', 'home/pad', '--base', 'ftp://inseam.example.com')).toMatchObject({ code: 2, stderr: expect.stringContaining('--base') });
    expect(await run('host', 'webhook-url', 'home/nope')).toMatchObject({ code: 2, stderr: expect.stringContaining('[not_found]') });
    expect(await run('host', 'webhook-url', 'home/pad', '--revoke')).toMatchObject({ code: 0, stdout: 'Host home/pad has no webhook URL.\n' });
    const store = SqliteStore.open({ path: join(dataDir, 'inseam.db') });
    try {
      await store.webhookKeys.set({ network: 'home', host: 'pad' }, 'f'.repeat(64));
    } finally {
      await store.close();
    }
    expect(JSON.parse((await run('host', 'webhook-url', 'home/pad', '--revoke', '--json')).stdout)).toEqual({ revoked: true });
    expect(JSON.parse((await run('host', 'webhook-url', 'home/pad', '--revoke', '--json')).stdout)).toEqual({ revoked: false });
  });
});
