// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });
// Tests rewrite this line to prove a changed module is imported again on rescan.
export const REVISION = 1;
log.imports['drop-r' + REVISION] = (log.imports['drop-r' + REVISION] ?? 0) + 1;

export function createDropConnector(ctx) {
  return {
    kind: 'dropnote',
    source: ctx.source,
    portVersion: 4,
    capabilities: () => new Set(['list', 'read']),
    async list() {
      return { entries: [] };
    },
    async read() {
      const text = 'revision ' + REVISION;
      return { text, mime: 'text/plain', size: text.length };
    },
  };
}
