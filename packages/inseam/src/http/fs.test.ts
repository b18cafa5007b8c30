/**
 * The filesystem routes over real HTTP (undici against the server on 127.0.0.1): listings, stat,
 * byte ranges, pages, writes with If-Match / If-None-Match, deletes, search — and the refusals:
 * permission denials, bad addresses, oversized reads and writes, concurrent writes.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, FILES, q, startApi, type Api } from './__fixtures__/api.js';

let api: Api;

beforeAll(async () => {
  api = await startApi({ maxWriteBytes: 64 * 1024 });
});

afterAll(async () => {
  await api?.close();
});

describe('listing and stat', () => {
  it('lists a directory, leaving out what the caller may not read', async () => {
    const answer = await call(api, 'GET', `/v1/fs/list?address=${q('files://docs')}`, { token: api.reader });
    expect(answer.status).toBe(200);
    const page = answer.json();
    expect(page.address).toBe('inseam://home/files/docs');
    expect(page.entries.map((entry: { name: string }) => entry.name)).toEqual(['plan.md']);
    expect(page.source).toBe('live');
  });

  it('pages a listing with limit and cursor', async () => {
    const first = (await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&limit=1`, { token: api.reader })).json();
    expect(first.entries).toHaveLength(1);
    expect(typeof first.cursor).toBe('string');
    const second = (await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&limit=1&cursor=${q(first.cursor)}`, { token: api.reader })).json();
    expect(second.entries).toHaveLength(1);
    expect(second.entries[0].name).not.toBe(first.entries[0].name);
  });

  it('lists names and types only with detail=names, and refuses another detail with 400', async () => {
    const full = (await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}`, { token: api.reader })).json();
    const names = (await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&detail=names`, { token: api.reader })).json();
    expect(names.entries.map((entry: { name: string; type: string }) => `${entry.name} ${entry.type}`)).toEqual(full.entries.map((entry: { name: string; type: string }) => `${entry.name} ${entry.type}`));
    expect(names.entries.every((entry: Record<string, unknown>) => entry['size'] === undefined && entry['etag'] === undefined)).toBe(true);
    expect((await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&detail=sizes`, { token: api.reader })).status).toBe(400);
    // Names-only pages may hold up to 10,000 entries; full ones 1,000.
    expect((await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&detail=names&limit=10000`, { token: api.reader })).status).toBe(200);
    const over = await call(api, 'GET', `/v1/fs/list?address=${q('inseam://home/files/')}&limit=1001`, { token: api.reader });
    expect(over.json().error).toMatchObject({ code: 'invalid_argument', details: { argument: 'limit' } });
  });

  it('stats an object', async () => {
    const answer = await call(api, 'GET', `/v1/fs/stat?address=${q('files://docs/plan.md')}`, { token: api.reader });
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ address: 'inseam://home/files/docs/plan.md', type: 'file', size: Buffer.byteLength(FILES['docs/plan.md']), mime: 'text/markdown', source: 'live' });
  });
});

describe('reads', () => {
  const plan = FILES['docs/plan.md'];

  it('downloads an object with its etag, type and length', async () => {
    const answer = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(plan);
    expect(answer.headers['content-type']).toContain('text/markdown');
    expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(plan)));
    expect(answer.headers['accept-ranges']).toBe('bytes');
    expect(answer.headers['etag']).toMatch(/^".+"$/);
  });

  it('answers HEAD with the headers alone', async () => {
    const answer = await request(`${api.url}/v1/fs/read?address=${q('files://big.txt')}`, { method: 'HEAD', headers: { authorization: `Bearer ${api.reader}` } });
    expect(answer.statusCode).toBe(200);
    expect(answer.headers['content-length']).toBe(String(FILES['big.txt'].length));
    expect((await answer.body.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers ranges with 206 and Content-Range', async () => {
    const size = Buffer.byteLength(plan);
    const cases: [string, number, number][] = [
      ['bytes=2-5', 2, 5],
      ['bytes=10-', 10, size - 1],
      ['bytes=-4', size - 4, size - 1],
      ['bytes=30-9999', 30, size - 1],
    ];
    for (const [range, first, last] of cases) {
      const answer = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader, headers: { range } });
      expect(answer.status, range).toBe(206);
      expect(answer.headers['content-range'], range).toBe(`bytes ${first}-${last}/${size}`);
      expect(answer.text, range).toBe(Buffer.from(plan).subarray(first, last + 1).toString());
    }
  });

  it('answers a range past the end with 416 and a typed error', async () => {
    const answer = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader, headers: { range: 'bytes=5000-' } });
    expect(answer.status).toBe(416);
    expect(answer.headers['content-range']).toBe(`bytes */${Buffer.byteLength(plan)}`);
    expect(answer.json().error).toMatchObject({ code: 'invalid_argument', details: { reason: 'range_not_satisfiable' } });
  });

  it('ignores Range forms it does not serve, answering the whole object', async () => {
    for (const range of ['bytes=0-1,4-5', 'items=0-3', 'bytes=9-2', 'bytes=x-']) {
      const answer = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader, headers: { range } });
      expect(answer.status, range).toBe(200);
      expect(answer.text, range).toBe(plan);
    }
  });

  it('answers 304 when If-None-Match names the current etag', async () => {
    const first = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader });
    const again = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/plan.md')}`, { token: api.reader, headers: { 'if-none-match': first.headers['etag'] as string } });
    expect(again.status).toBe(304);
    expect(again.bytes.length).toBe(0);
  });

  it('reads pages as JSON, and refuses a whole read of text over the cap with 413 too_large', async () => {
    const page = await call(api, 'GET', `/v1/fs/page?address=${q('files://big.txt')}&offset=16&length=8`, { token: api.reader });
    expect(page.status).toBe(200);
    expect(page.json()).toMatchObject({ encoding: 'text', content: '0123456789abcdef'.slice(0, 8), offset: 16, length: 8, nextOffset: 24 });
    const whole = await call(api, 'GET', `/v1/fs/page?address=${q('files://big.txt')}&maxBytes=1024`, { token: api.reader });
    expect(whole.status).toBe(413);
    expect(whole.json().error).toMatchObject({ code: 'too_large', details: { size: FILES['big.txt'].length, cap: 1024 } });
    const lines = await call(api, 'GET', `/v1/fs/page?address=${q('files://docs/plan.md')}&line=2&lines=1`, { token: api.reader });
    expect(lines.json()).toMatchObject({ content: 'Ship the harbour crane on Tuesday.\n', lines: { start: 2, count: 1 } });
  });
});

describe('refusals', () => {
  it('denies what the permission tree denies, with the right named', async () => {
    const read = await call(api, 'GET', `/v1/fs/read?address=${q('files://docs/private/salary.txt')}`, { token: api.reader });
    expect(read.status).toBe(403);
    expect(read.json().error).toMatchObject({ code: 'permission_denied', details: { right: 'read', host: 'files' } });
    expect(read.text).not.toContain(api.folder);
    const write = await call(api, 'PUT', `/v1/fs/write?address=${q('files://docs/private/new.txt')}`, { token: api.reader, body: 'x' });
    expect(write.status).toBe(403);
    expect(write.json().error.details.right).toBe('write');
    expect(await readFile(join(api.folder, 'docs/private/new.txt')).catch(() => null)).toBeNull();
  });

  it('answers bad addresses with 400 invalid_uri and unknown hosts with 404', async () => {
    for (const bad of ['files://docs/../../etc/passwd', 'not an address', 'files://a%00b', 'inseam://Home/files/x']) {
      const answer = await call(api, 'GET', `/v1/fs/stat?address=${q(bad)}`, { token: api.reader });
      expect(answer.status, bad).toBe(400);
      expect(answer.json().error.code, bad).toBe('invalid_uri');
    }
    const unknown = await call(api, 'GET', `/v1/fs/stat?address=${q('nohost://a')}`, { token: api.reader });
    expect(unknown.status).toBe(404);
    expect(unknown.json().error.code).toBe('not_found');
    const missing = await call(api, 'GET', `/v1/fs/stat?address=${q('files://nothing-here.txt')}`, { token: api.reader });
    expect(missing.status).toBe(404);
  });

  it('refuses a network the token is not limited to', async () => {
    await api.platform.networks.init('work');
    const answer = await call(api, 'GET', `/v1/fs/stat?address=${q('inseam://work/pad/')}`, { token: api.reader });
    expect(answer.status).toBe(403);
    expect(answer.json().error.code).toBe('permission_denied');
    const header = await call(api, 'GET', '/v1/hosts', { token: api.reader, headers: { 'inseam-network': 'work' } });
    expect(header.status).toBe(403);
  });

  it('refuses a missing address, an unknown query field and a bad limit with 400 invalid_argument', async () => {
    const missing = await call(api, 'GET', '/v1/fs/list', { token: api.reader });
    expect(missing.status).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_argument', details: { argument: 'querystring.address' } });
    const extra = await call(api, 'GET', `/v1/fs/stat?address=${q('files://docs')}&userId=root`, { token: api.reader });
    expect(extra.status).toBe(400);
    expect(extra.json().error.message).toContain('userId');
    const limit = await call(api, 'GET', `/v1/fs/list?address=${q('files://docs')}&limit=0`, { token: api.reader });
    expect(limit.status).toBe(400);
  });

  it('refuses a body over the write limit with 413 too_large, writing nothing', async () => {
    const answer = await call(api, 'PUT', `/v1/fs/write?address=${q('files://huge.bin')}`, { token: api.reader, body: Buffer.alloc(64 * 1024 + 1, 1) });
    expect(answer.status).toBe(413);
    expect(answer.json().error).toMatchObject({ code: 'too_large', details: { cap: 64 * 1024 } });
    expect(await readFile(join(api.folder, 'huge.bin')).catch(() => null)).toBeNull();
  });
});

describe('writes', () => {
  it('creates, replaces with If-Match, refuses a stale etag with 412, and creates only with If-None-Match: *', async () => {
    const url = `/v1/fs/write?address=${q('files://w/a.txt')}`;
    const created = await call(api, 'PUT', url, { token: api.reader, body: 'one', headers: { 'if-none-match': '*', 'content-type': 'text/plain' } });
    expect(created.status).toBe(201);
    const etag = created.headers['etag'] as string;
    expect(created.json()).toMatchObject({ address: 'inseam://home/files/w/a.txt', size: 3 });
    const again = await call(api, 'PUT', url, { token: api.reader, body: 'dup', headers: { 'if-none-match': '*' } });
    expect(again.status).toBe(409);
    expect(again.json().error.code).toBe('already_exists');
    const replaced = await call(api, 'PUT', url, { token: api.reader, body: 'two!', headers: { 'if-match': etag } });
    expect(replaced.status).toBe(200);
    expect(replaced.headers['etag']).not.toBe(etag);
    const stale = await call(api, 'PUT', url, { token: api.reader, body: 'three', headers: { 'if-match': etag } });
    expect(stale.status).toBe(412);
    expect(stale.json().error.code).toBe('precondition_failed');
    expect(await readFile(join(api.folder, 'w/a.txt'), 'utf8')).toBe('two!');
    const star = await call(api, 'PUT', `/v1/fs/write?address=${q('files://w/none.txt')}`, { token: api.reader, body: 'x', headers: { 'if-match': '*' } });
    expect(star.status).toBe(412);
    const weak = await call(api, 'PUT', url, { token: api.reader, body: 'x', headers: { 'if-match': `W/${replaced.headers['etag'] as string}` } });
    expect(weak.status).toBe(400);
  });

  it('writes an empty object from a request without a body', async () => {
    for (const headers of [{}, { 'content-length': '0' }] as Record<string, string>[]) {
      const answer = await call(api, 'PUT', `/v1/fs/write?address=${q('files://w/empty.txt')}`, { token: api.reader, headers });
      expect(answer.status).toBe(200);
      expect(answer.json().size).toBe(0);
    }
    expect(await readFile(join(api.folder, 'w/empty.txt'), 'utf8')).toBe('');
  });

  it('lets exactly one of two concurrent writes with the same If-Match win, leaving no torn file', async () => {
    const url = `/v1/fs/write?address=${q('files://race.txt')}`;
    const base = await call(api, 'PUT', url, { token: api.reader, body: 'base' });
    const etag = base.headers['etag'] as string;
    for (let round = 0; round < 5; round += 1) {
      const current = (await call(api, 'GET', `/v1/fs/stat?address=${q('files://race.txt')}`, { token: api.reader })).json().etag as string;
      const bodies = [Buffer.alloc(48 * 1024, 'a'), Buffer.alloc(40 * 1024, 'b')];
      const answers = await Promise.all(bodies.map((body) => call(api, 'PUT', url, { token: api.reader, body, headers: { 'if-match': `"${current}"` } })));
      const statuses = answers.map((answer) => answer.status).sort();
      expect(statuses, `round ${round}`).toEqual([200, 412]);
      const winner = bodies[answers.findIndex((answer) => answer.status === 200)]!;
      expect((await readFile(join(api.folder, 'race.txt'))).equals(winner)).toBe(true);
    }
    expect(etag).toMatch(/^".+"$/);
  });

  it('deletes with If-Match, and refuses a recursive delete over a denied child', async () => {
    const written = await call(api, 'PUT', `/v1/fs/write?address=${q('files://gone/x.txt')}`, { token: api.reader, body: 'x' });
    const stale = await call(api, 'DELETE', `/v1/fs/delete?address=${q('files://gone/x.txt')}`, { token: api.reader, headers: { 'if-match': '"not-the-etag"' } });
    expect(stale.status).toBe(412);
    const removed = await call(api, 'DELETE', `/v1/fs/delete?address=${q('files://gone/x.txt')}`, { token: api.reader, headers: { 'if-match': written.headers['etag'] as string } });
    expect(removed.status).toBe(204);
    expect(await readFile(join(api.folder, 'gone/x.txt')).catch(() => null)).toBeNull();
    const denied = await call(api, 'DELETE', `/v1/fs/delete?address=${q('files://docs')}&recursive=true`, { token: api.reader });
    expect(denied.status).toBe(403);
    expect(await readFile(join(api.folder, 'docs/private/salary.txt'), 'utf8')).toBe(FILES['docs/private/salary.txt']);
  });
});

describe('search', () => {
  it('finds synced content the caller may read, never the rest', async () => {
    await (await api.platform.sync({ network: 'home', host: 'files' })).result;
    const hits = await call(api, 'GET', '/v1/search?q=harbour&mode=keyword', { token: api.reader });
    expect(hits.status).toBe(200);
    expect(hits.json().hits.map((hit: { address: string }) => hit.address)).toEqual(['inseam://home/files/docs/plan.md']);
    const secret = await call(api, 'GET', '/v1/search?q=secret&mode=keyword', { token: api.reader });
    expect(secret.json().hits).toEqual([]);
    const filtered = await call(api, 'GET', `/v1/search?q=alpha&where=${q('mime=text/plain')}&host=files&mode=keyword`, { token: api.reader });
    expect(filtered.json().hits.map((hit: { path: string }) => hit.path)).toEqual(['notes/a.txt']);
  });
});
