/**
 * Serving the web page: its files come from memory with the page's policy; nothing outside the
 * web folder can be reached; the files themselves load nothing from elsewhere, run no inline
 * script and never turn data into markup.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { removeDir, tempDir } from '../platform/__fixtures__/platforms.js';
import { call, startApi, type Api } from '../http/__fixtures__/api.js';
import { loadWebAssets, PAGE_CSP, registerWebPage, WEB_ROOT } from './assets.js';

let api: Api;

beforeAll(async () => {
  api = await startApi();
});

afterAll(async () => {
  await api?.close();
});

describe('the page and its files', () => {
  it('serves the page at / with a strict policy and no token', async () => {
    const page = await call(api, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('<script type="module" src="/web/js/app.js"></script>');
    const csp = String(page.headers['content-security-policy']);
    for (const directive of ["default-src 'self'", "script-src 'self'", "img-src 'self' blob: data:", "connect-src 'self'", "frame-ancestors 'none'", "object-src 'none'"]) expect(csp).toContain(directive);
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.headers['x-frame-options']).toBe('DENY');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
  });

  it('serves the scripts and styles with their types, and revalidates by ETag', async () => {
    const script = await call(api, 'GET', '/web/js/app.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['content-security-policy']).toBe(PAGE_CSP);
    expect(script.headers['cache-control']).toBe('no-cache');
    const etag = String(script.headers['etag']);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    const again = await call(api, 'GET', '/web/js/app.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect((await call(api, 'GET', '/web/app.css')).headers['content-type']).toBe('text/css; charset=utf-8');
    expect((await call(api, 'GET', '/web/favicon.svg')).headers['content-type']).toBe('image/svg+xml');
  });

  it('answers 404 for anything that is not one of its files, whatever the path says', async () => {
    for (const path of ['/web/nope.js', '/web/', '/web/../package.json', '/web/%2e%2e/package.json', '/web/..%2fpackage.json', '/web/js/../../src/web/assets.ts', '/web//etc/passwd', '/web/index.html']) {
      const answer = await call(api, 'GET', path);
      expect(answer.status, path).toBe(404);
      expect(answer.json().error.code, path).toBe('not_found');
      expect(answer.text, path).not.toContain('"name"');
    }
  });

  it('reads only files of known types, skipping dot files, and needs an index.html', async () => {
    const root = await tempDir('web-root');
    try {
      await mkdir(join(root, 'js'));
      await writeFile(join(root, 'index.html'), '<!doctype html>');
      await writeFile(join(root, 'js', 'a.js'), 'export {};');
      await writeFile(join(root, '.env'), 'SECRET=1');
      await writeFile(join(root, 'notes.txt'), 'not served');
      await mkdir(join(root, '.git'));
      await writeFile(join(root, '.git', 'config.json'), '{}');
      const assets = await loadWebAssets(root);
      expect([...assets.keys()].sort()).toEqual(['/', '/web/js/a.js']);
      const app = Fastify();
      await registerWebPage(app, { root });
      expect((await app.inject({ url: '/web/.env' })).statusCode).toBe(404);
      expect((await app.inject({ url: '/web/js/a.js' })).body).toBe('export {};');
      await app.close();
      await removeDir(join(root, 'index.html'));
      await expect(loadWebAssets(root)).rejects.toThrow(/no index.html/);
    } finally {
      await removeDir(root);
    }
  });
});

describe('what the files themselves do', () => {
  it('load only files of this server: every import and reference is a relative or /web/ path that exists', async () => {
    const assets = await loadWebAssets();
    const scripts = [...assets.entries()].filter(([path]) => path.endsWith('.js'));
    expect(scripts.length).toBeGreaterThan(5);
    for (const [path, asset] of scripts) {
      const text = asset.body.toString('utf8');
      for (const match of text.matchAll(/^import\s[^'"]*['"]([^'"]+)['"]/gm)) {
        const target = new URL(match[1]!, `http://page${path}`);
        expect(target.origin, `${path} imports ${match[1]}`).toBe('http://page');
        expect(assets.has(target.pathname), `${path} imports ${match[1]}`).toBe(true);
      }
      expect(text, path).not.toMatch(/\bimport\s*\(/);
      // No absolute URL in code: the only one is the SVG namespace, which names, never loads.
      expect(text, path).not.toMatch(/['"`]https?:\/\/(?!www\.w3\.org\/2000\/svg['"`])/);
    }
    const css = assets.get('/web/app.css')!.body.toString('utf8');
    expect(css).not.toMatch(/@import|url\(/);
    const html = assets.get('/')!.body.toString('utf8');
    for (const match of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      if (match[1]!.startsWith('/v1/')) continue;
      expect(assets.has(match[1]!), match[1]).toBe(true);
    }
  });

  it('run no inline script and never parse data as HTML', async () => {
    const assets = await loadWebAssets();
    const html = assets.get('/')!.body.toString('utf8');
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\son[a-z]+=/i);
    expect(html).not.toMatch(/\sstyle=/i);
    for (const [path, asset] of assets) {
      if (!path.endsWith('.js')) continue;
      const text = asset.body.toString('utf8');
      for (const sink of [/\.innerHTML\b/, /\.outerHTML\b/, /insertAdjacentHTML/, /document\.write/, /\beval\(/, /new Function\(/, /setTimeout\(\s*['"`]/, /\.srcdoc\b/]) {
        expect(text, `${path} uses ${sink}`).not.toMatch(sink);
      }
    }
  });

  it('ship from packages/inseam/web, which the package publishes', async () => {
    expect(WEB_ROOT.replace(/\\/g, '/')).toMatch(/packages\/inseam\/web\/$/);
    const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as { files: string[] };
    expect(manifest.files).toContain('web');
  });
});
