// A runtime-gated connector. Every data call and every probe "starts the runtime" and counts it,
// so a test can show that the platform asked isRuntimeActive() and nothing else.
const state = (globalThis.__deskFixture ??= { active: false, starts: 0, probes: 0, runtimeChecks: 0, calls: 0 });

const TEXT = 'live desk notes';

class DeskConnector {
  kind = 'desk';
  portVersion = 4;

  constructor(ctx) {
    this.source = ctx.source;
  }

  capabilities() {
    return new Set(['list', 'read']);
  }

  async list(uri) {
    this.#start();
    // A test may make the port answer what it likes (an odd or hostile listing).
    if (state.listing !== undefined) return { entries: state.listing(uri, this.source) };
    return { entries: [{ uri: `${this.source}://notes.txt`, name: 'notes.txt', type: 'file', size: TEXT.length, mime: 'text/plain' }] };
  }

  async read(_uri, options = {}) {
    this.#start();
    const offset = options.range?.offset ?? 0;
    const end = options.range?.length === undefined ? TEXT.length : Math.min(TEXT.length, offset + options.range.length);
    const text = TEXT.slice(Math.min(offset, TEXT.length), end);
    return { text, mime: 'text/plain', size: TEXT.length, ...(options.range === undefined ? {} : { range: { offset, length: text.length } }) };
  }

  isRuntimeActive() {
    state.runtimeChecks += 1;
    return state.active;
  }

  async probeConnection() {
    state.probes += 1;
    this.#start();
    return { connected: true };
  }

  #start() {
    state.calls += 1;
    if (!state.active) state.starts += 1;
    state.active = true;
  }
}

export function createDeskConnector(ctx) {
  return new DeskConnector(ctx);
}
