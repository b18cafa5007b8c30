/**
 * `inseam connector new <kind>`: the files a new connector starts from — a working module for a
 * JSON API with bearer-token auth and cursor paging, a trial config file, and a README — written
 * into a new folder. Nothing existing is overwritten: when any of the files exists, nothing is
 * written and `already_exists` names it.
 */
import { mkdir, open, rm, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { AlreadyExistsError, InvalidArgumentError } from '@neuralis/package-system/contracts';

const KIND = /^[a-z][a-z0-9-]{0,62}$/;

const SCAFFOLD_FILES = ['connector.js', 'host.json', 'README.md'] as const;

/** The module: every rule of docs/connectors/authoring.md in its smallest working form. */
function scaffoldModule(kind: string): string {
  return `// inseam connector "${kind}": one ES module, no imports. It runs in inseam's sandbox, where
// fetch goes through the egress gate; the gate adds the credential (auth.present), the module
// never sees it. The rules: docs/connectors/authoring.md. Adapt the API calls and toEntry to
// your host, then: inseam connector check connector.js --config host.json
//                  inseam trial connector.js --config host.json --watch

// Entry.path is canonical: each segment percent-encoded, only A-Z a-z 0-9 - . _ ~ literal
// (authoring.md#identity-paths).
function encodeSegment(segment) {
  return encodeURIComponent(segment).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

function toEntryPath(hostPath) {
  return hostPath.split('/').map(encodeSegment).join('/');
}

function toHostPath(entryPath) {
  return entryPath.split('/').map(decodeURIComponent).join('/');
}

// An error the platform recognises by its code (authoring.md#errors-codes).
function hostError(code, message) {
  const error = new Error(message);
  error.code = code;
  return error;
}

export function createConnector(config) {
  if (typeof config.baseUrl !== 'string') throw hostError('invalid_argument', 'config.baseUrl is required, e.g. "https://${kind}.example.com".');
  const base = new URL(config.baseUrl);

  async function api(path, { query, headers } = {}) {
    const url = new URL(path, base);
    for (const [name, value] of Object.entries(query || {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return fetch(url.href, { headers: headers || {} });
  }

  async function check(response, doing) {
    if (response.ok) return response;
    await response.body?.cancel();
    if (response.status === 404) throw hostError('not_found', doing + ': not found');
    if (response.status === 401 || response.status === 403) throw hostError('permission_denied', doing + ': the token was refused');
    if (response.status === 429) throw hostError('rate_limited', doing + ': rate limited');
    if (response.status >= 500) throw hostError('unavailable', doing + ': the host answered ' + response.status);
    throw hostError('invalid_argument', doing + ': the host answered ' + response.status);
  }

  // One function makes every Entry, so list and stat agree (authoring.md#entries-field-forms).
  function toEntry(item) {
    return {
      path: toEntryPath(item.path),
      size: item.size,
      mtime: new Date(item.updated_at).toISOString(),
      etag: '"' + item.version + '"',
      mime: item.mime,
    };
  }

  return {
    describe() {
      return {
        kind: '${kind}',
        capabilities: ['list', 'stat', 'read'],
        auth: {
          fields: [{ name: 'token', label: 'API token', secret: true, help: 'Where a person creates a read-only token.' }],
          instructions: 'Create a read-only API token and paste it here.',
          acquire: { type: 'static' },
          present: [{ in: 'header', name: 'Authorization', value: 'Bearer {{token}}' }],
          origins: [base.origin],
        },
        dimensions: {
          updated: { type: 'datetime', from: 'mtime', ordering: true, description: 'When the item last changed.' },
          path: { type: 'path', from: 'path', description: 'The item\\'s path, percent-encoded per segment.' },
          size: { type: 'bytes', from: 'size', description: 'Size in bytes.' },
        },
        listing: 'free',
      };
    },

    // The host's page token is the cursor (authoring.md#listing-cursors); since is inclusive
    // (#listing-since); prefix is a string prefix of the path (#listing-prefix).
    async list({ prefix, cursor, since, order } = {}) {
      if (order === 'newest') throw hostError('unsupported', 'This host cannot list newest first.');
      const query = { cursor, updated_since: since, prefix: prefix ? toHostPath(prefix) : undefined };
      const page = await (await check(await api('/api/items', { query }), 'list')).json();
      const entries = page.items.map(toEntry).filter((entry) => entry.path.startsWith(prefix || ''));
      return page.next_cursor ? { entries, cursor: page.next_cursor } : { entries };
    },

    async stat(path) {
      const response = await api('/api/items/by-path', { query: { path: toHostPath(path) } });
      if (response.status === 404) {
        await response.body?.cancel();
        return null;
      }
      return toEntry(await (await check(response, 'stat ' + path)).json());
    },

    // range is [start, end), end exclusive; HTTP ranges are inclusive, hence end - 1; a 416
    // means the range starts at the end (authoring.md#reading-ranges).
    async read(path, { range } = {}) {
      if (range && range[0] >= range[1]) return new ReadableStream({ start: (c) => c.close() });
      const headers = range ? { Range: 'bytes=' + range[0] + '-' + (range[1] - 1) } : {};
      const response = await api('/api/items/content', { query: { path: toHostPath(path) }, headers });
      if (range && response.status === 416) {
        await response.body?.cancel();
        return new ReadableStream({ start: (c) => c.close() });
      }
      return (await check(response, 'read ' + path)).body;
    },
  };
}
`;
}

/** The trial config file: what createConnector receives, and the credential the gate presents. */
function scaffoldHostConfig(kind: string): string {
  return `${JSON.stringify({ config: { baseUrl: `https://${kind}.example.com` }, credentials: { token: 'paste a read-only API token here' }, scratchPrefix: 'inseam-scratch' }, null, 2)}\n`;
}

function scaffoldReadme(kind: string): string {
  return `# ${kind}: an inseam connector

A sandboxed connector module for inseam. The rules it follows, with an example for each, are in
docs/connectors/authoring.md (the author's reference); the interface is the connector skill's.

\`\`\`
connector.js   the module: one ES module, no imports
host.json      the trial's config file: "config" for createConnector, "credentials" for the gate
\`\`\`

## The loop

\`\`\`sh
inseam connector check connector.js --config host.json     # describe() and defaultScope, offline
inseam trial connector.js --config host.json --watch       # the eleven checks against the host, on every save
inseam trial connector.js --config host.json --phase install   # also writes, on scratchPrefix
\`\`\`

Every failed check ends with \`see: docs/connectors/authoring.md#<section>\`.

## Submitting

\`\`\`sh
inseam connector submit connector.js --name "${kind}" --schema @config.schema.json
\`\`\`

The schema is the closed JSON Schema of a host's config, rendered as the add-host form
(authoring.md#configuration); without one, install infers it from the first host's config.
`;
}

/**
 * Writes the three files into `dir` (created if missing). Throws `invalid_argument` for a kind
 * that is not a kind name and `already_exists` naming a file that is there already.
 */
export async function scaffoldConnector(kind: string, dir: string): Promise<string[]> {
  if (!KIND.test(kind)) throw new InvalidArgumentError(`${JSON.stringify(kind)} is not a kind name: use lowercase letters, digits and "-", starting with a letter (at most 63 characters).`);
  const contents: Record<(typeof SCAFFOLD_FILES)[number], string> = {
    'connector.js': scaffoldModule(kind),
    'host.json': scaffoldHostConfig(kind),
    'README.md': scaffoldReadme(kind),
  };
  await mkdir(dir, { recursive: true });
  const created: { readonly name: (typeof SCAFFOLD_FILES)[number]; readonly handle: FileHandle }[] = [];
  try {
    // Every file is created exclusively before any is written, so an existing one stops it all.
    for (const name of SCAFFOLD_FILES) {
      try {
        created.push({ name, handle: await open(join(dir, name), 'wx') });
      } catch (error) {
        if ((error as { code?: unknown }).code === 'EEXIST') throw new AlreadyExistsError(`${join(dir, name)} exists already; \`inseam connector new\` never overwrites a file. Choose another --dir.`, { details: { file: name } });
        throw error;
      }
    }
    for (const { name, handle } of created) await handle.writeFile(contents[name]);
  } catch (error) {
    await Promise.all(created.map(({ handle }) => handle.close()));
    await Promise.all(created.map(({ name }) => rm(join(dir, name), { force: true })));
    throw error;
  }
  await Promise.all(created.map(({ handle }) => handle.close()));
  return created.map(({ name }) => join(dir, name));
}
