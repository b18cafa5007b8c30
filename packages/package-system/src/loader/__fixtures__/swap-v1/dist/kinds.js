// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });
log.imports['swap-v1'] = (log.imports['swap-v1'] ?? 0) + 1;

function port(kind, source) {
  return {
    kind,
    source,
    portVersion: 4,
    capabilities: () => new Set(['list', 'read']),
    async list() {
      return { entries: [] };
    },
    async read() {
      return { text: `${kind} v1`, mime: 'text/plain', size: 8 };
    },
  };
}

export const alpha = (ctx) => port('alpha', ctx.source);
export const beta = (ctx) => port('beta', ctx.source);
