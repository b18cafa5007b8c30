// One file, token.txt, whose text is the package credential the platform resolves for this
// binding's call — the owner's, for a user's or agent's vault. The connector names no owner:
// it cannot, and the platform's call context supplies it.
const NAME = 'token.txt';

class VaultConnector {
  kind = 'vault';
  portVersion = 4;

  constructor(ctx) {
    this.source = ctx.source;
  }

  capabilities() {
    return new Set(['list', 'read', 'stat']);
  }

  async #text() {
    const resolved = await globalThis.__ownedFixture.credentials.resolveCredential('vault-token', {});
    return resolved === null ? 'none' : resolved.value;
  }

  async list() {
    return { entries: [await this.#entry()] };
  }

  async read() {
    const text = await this.#text();
    return { text, mime: 'text/plain', size: text.length };
  }

  async stat() {
    return this.#entry();
  }

  async #entry() {
    return { uri: `${this.source}://${NAME}`, name: NAME, type: 'file', size: (await this.#text()).length, mime: 'text/plain' };
  }
}

export function createVaultConnector(ctx) {
  return new VaultConnector(ctx);
}
