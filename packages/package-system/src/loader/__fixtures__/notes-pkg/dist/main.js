// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });

export async function init(ctx) {
  log.events.push('init:fixture-notes');
  log.inits.push(ctx);
}
