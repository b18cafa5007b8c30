/** Connector module sources for tests: a valid description and helpers to wrap method bodies. */

export const DESCRIPTION = {
  kind: 'demo',
  capabilities: ['list', 'read', 'stat', 'write', 'delete', 'watch'],
  auth: { acquire: { type: 'none' }, present: [], origins: ['http://127.0.0.1'] },
  dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
  listing: 'free',
  writes: { mimes: '*', create: true, replace: true, delete: true },
} as const;

/**
 * A module exporting createConnector(config) whose connector has the standard describe() and the
 * given members (JavaScript object-literal members, e.g. `async list(opts) { ... }`).
 */
export function connectorModule(members: string, description: unknown = DESCRIPTION): string {
  return `export function createConnector(config) {
  return {
    describe() { return ${JSON.stringify(description)}; },
    ${members}
  };
}`;
}

/**
 * A connector whose list({ prefix }) runs `prefix` as the body of an async function and returns
 * its JSON result as `entries[0].extra.value`; errors come back as `extra.error`. Lets one loaded
 * module run many snippets.
 */
export const RUNNER = connectorModule(`
    async list(opts) {
      const AsyncFunction = (async function () {}).constructor;
      try {
        const value = await new AsyncFunction('config', opts.prefix)(config);
        return { entries: [{ path: 'r', extra: { value: value === undefined ? null : value } }] };
      } catch (error) {
        return { entries: [{ path: 'r', extra: { error: String(error && error.name) + ': ' + String(error && error.message) } }] };
      }
    },
    async read(path) { return new ReadableStream({ start(c) { c.close(); } }); },
    async stat(path) { return null; },
`);
