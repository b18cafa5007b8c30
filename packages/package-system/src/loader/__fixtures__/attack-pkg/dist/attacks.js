// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });
log.imports['attacks'] = (log.imports['attacks'] ?? 0) + 1;

/** A plain, honest list/read port; each attack below bends one thing about it. */
function port(kind, source, extra = {}) {
  return {
    kind,
    source,
    portVersion: 4,
    capabilities: () => new Set(['list', 'read']),
    async list() {
      return { entries: [] };
    },
    async read() {
      return { text: kind, mime: 'text/plain', size: kind.length };
    },
    ...extra,
  };
}

// Returns one instance for every source.
let single;
export function singleton(ctx) {
  single ??= port('singleton', ctx.source);
  return single;
}

// Returns one instance and rewrites its source to look like a fresh one.
let shared;
export function chameleon(ctx) {
  if (shared === undefined) shared = port('chameleon', ctx.source);
  else shared.source = ctx.source;
  return shared;
}

// capabilities() answers honestly once, then claims more.
export function shifty(ctx) {
  log.capabilityCalls[ctx.source] = 0;
  return port('shifty', ctx.source, {
    capabilities() {
      log.capabilityCalls[ctx.source] += 1;
      return log.capabilityCalls[ctx.source] === 1 ? new Set(['list', 'read']) : new Set(['list', 'read', 'write', 'delete']);
    },
  });
}

// Waits for the test to release it (log.gates[source] = a promise), then reports its config label.
export async function slow(ctx) {
  log.events.push(`slow:start:${ctx.source}:${ctx.config.label ?? ''}`);
  await log.gates[ctx.source];
  log.events.push(`slow:end:${ctx.source}:${ctx.config.label ?? ''}`);
  return port('slow', ctx.source, {
    async read() {
      const text = ctx.config.label ?? '';
      return { text, mime: 'text/plain', size: text.length };
    },
  });
}

// Declares write but has no write method.
export function liar(ctx) {
  return port('liar', ctx.source, { capabilities: () => new Set(['list', 'read', 'write']) });
}

// Declares only list/read but carries a delete method.
export function overreach(ctx) {
  return port('overreach', ctx.source, {
    async delete() {
      log.events.push('overreach:delete');
    },
  });
}

// Declares execDetached but has no detached facet.
export function facetless(ctx) {
  return port('facetless', ctx.source, {
    capabilities: () => new Set(['list', 'read', 'exec', 'execDetached']),
    async exec() {
      return { exitCode: 0, stdout: '', stderr: '', truncated: false, durationMs: 0 };
    },
  });
}

// Has a detached facet it never declared.
export function stowaway(ctx) {
  return port('stowaway', ctx.source, {
    capabilities: () => new Set(['list', 'read', 'exec']),
    async exec() {
      return { exitCode: 0, stdout: '', stderr: '', truncated: false, durationMs: 0 };
    },
    detached: {
      async start() {
        log.events.push('stowaway:start');
        return { runId: 'x' };
      },
      async status(runId) {
        return { runId, state: 'running', exitCode: null, startedAt: '2025-01-01T00:00:00Z', outputBytes: 0 };
      },
      async output(runId, since) {
        return { data: '', next: since, done: true };
      },
      async kill() {
        return { acknowledged: true };
      },
      async release() {},
    },
  });
}

// Built against port version 1: exec(command, cwd).
export function legacy(ctx) {
  return port('legacy', ctx.source, {
    portVersion: 1,
    capabilities: () => new Set(['list', 'read', 'exec']),
    async exec(command, cwd) {
      log.events.push(`legacy:exec:${command}:${cwd}`);
      return { exitCode: 0, stdout: String(command), stderr: '', truncated: false, durationMs: 0 };
    },
  });
}

// A version this loader has never heard of.
export function future(ctx) {
  return port('future', ctx.source, { portVersion: 9 });
}

// Throws an untyped error whose message carries a host path.
export function crasher() {
  throw new Error('could not open /home/operator/.secrets/token');
}

// Claims to be bound to a source it was not created for.
export function impostor() {
  return port('impostor', 'elsewhere');
}
