// A runtime-gated connector whose runtime runs exactly while its package is enabled: it answers
// isRuntimeActive() from ctx.packageState() (the init context of this package, loaded for one
// network) and counts every data call as a start of the runtime, so a test sees none happen.
const state = (globalThis.__gatedFixture ??= { starts: 0, checks: 0, context: undefined });

export function init(ctx) {
  state.context = ctx;
}

export function createGatedConnector(ctx) {
  return {
    kind: 'gated',
    source: ctx.source,
    portVersion: 4,
    capabilities: () => new Set(['list', 'read']),
    isRuntimeActive() {
      state.checks += 1;
      return state.context.packageState().enabled;
    },
    async list() {
      state.starts += 1;
      return { entries: [{ uri: `${ctx.source}://live.txt`, name: 'live.txt', type: 'file', size: 4, mime: 'text/plain' }] };
    },
    async read() {
      state.starts += 1;
      return { text: 'live', mime: 'text/plain', size: 4 };
    },
  };
}
