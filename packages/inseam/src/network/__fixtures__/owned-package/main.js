// The package's init: keeps the resolver the loader injected, which every binding shares.
export async function init(ctx) {
  globalThis.__ownedFixture = { credentials: ctx.credentials };
}
