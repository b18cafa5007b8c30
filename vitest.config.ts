import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "inseam-source" condition, so tests
// run against src/ without a build step; the name is ours alone, so no third-party package that
// ships a "source" condition gets its TypeScript loaded. Vitest 4 runs tests in the server (SSR) environment, where
// workspace packages count as external: both condition lists are needed there.
const conditions = ['inseam-source'];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ['packages/*/src/**/*.test.ts', 'connectors/*/src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // One throwaway PostgreSQL cluster serves every test file that needs one (each makes its own
    // database or schema on it); without it each such file would start a cluster of its own.
    globalSetup: ['packages/inseam/src/store/postgres/__fixtures__/global-setup.ts'],
  },
});
