// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });
log.imports['shell-connector'] = (log.imports['shell-connector'] ?? 0) + 1;

// No "main": the factory module's own init receives the context.
export function init(ctx) {
  log.events.push('init:fixture-shell');
  log.inits.push(ctx);
}

export function createShellConnector(ctx) {
  log.events.push(`factory:${ctx.source}`);
  log.contexts.push(ctx);
  return {
    kind: 'shell',
    source: ctx.source,
    portVersion: 4,
    capabilities: () => new Set(['list', 'read', 'exec', 'execDetached']),
    async list() {
      return { entries: [] };
    },
    async read() {
      return { text: '', mime: 'text/plain', size: 0 };
    },
    async exec(request) {
      log.events.push(`exec:${request.command}`);
      log.execRequests.push(request);
      return { exitCode: 0, stdout: 'ran ' + request.command, stderr: '', truncated: false, durationMs: 1 };
    },
    detached: {
      async start(request) {
        log.events.push(`start:${request.command}`);
        return { runId: 'run-1' };
      },
      async status(runId) {
        log.events.push(`status:${runId}`);
        return { runId, state: 'running', exitCode: null, startedAt: '2025-01-01T00:00:00Z', outputBytes: 0 };
      },
      async output(runId, since) {
        log.events.push(`output:${runId}`);
        return { data: '', next: since, done: false };
      },
      async kill(runId) {
        log.events.push(`kill:${runId}`);
        return { acknowledged: true };
      },
      async release(runId) {
        log.events.push(`release:${runId}`);
      },
    },
  };
}
