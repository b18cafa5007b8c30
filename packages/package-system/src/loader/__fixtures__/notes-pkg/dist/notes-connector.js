// What the loader made this module do, for the tests to read.
const log = (globalThis.__loaderFixtures ??= { imports: {}, inits: [], contexts: [], events: [], execRequests: [], capabilityCalls: {}, gates: {}, instances: {} });
log.imports['notes-connector'] = (log.imports['notes-connector'] ?? 0) + 1;

class NotesConnector {
  kind = 'notes';
  portVersion = 4;

  constructor(ctx) {
    this.source = ctx.source;
    this.folder = ctx.config.folder;
    this.files = new Map([['hello.txt', 'hello from ' + ctx.config.folder]]);
  }

  capabilities() {
    return new Set(['list', 'read', 'write', 'stat']);
  }

  async list() {
    return { entries: [...this.files.keys()].map((name) => this.#entry(name)) };
  }

  async read(uri) {
    const name = uri.slice(this.source.length + 3);
    const text = this.files.get(name) ?? '';
    return { text, mime: 'text/plain', size: text.length };
  }

  async write(uri, content) {
    const name = uri.slice(this.source.length + 3);
    this.files.set(name, String(content));
    return this.#entry(name);
  }

  async stat(uri) {
    return this.#entry(uri.slice(this.source.length + 3));
  }

  #entry(name) {
    return { uri: `${this.source}://${name}`, name, type: 'file', size: (this.files.get(name) ?? '').length };
  }
}

export function createNotesConnector(ctx) {
  log.events.push(`factory:${ctx.source}`);
  log.contexts.push(ctx);
  const instance = new NotesConnector(ctx);
  log.instances[ctx.source] = instance;
  return instance;
}
