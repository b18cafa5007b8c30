/**
 * A vitest globalSetup that starts one throwaway PostgreSQL cluster for the whole run and hands
 * its URL to every test file through INSEAM_TEST_DATABASE_URL, so files make databases on it
 * instead of each starting a cluster of its own (see test-postgres.ts). Wire it in with
 * `test.globalSetup: ['packages/inseam/src/store/postgres/__fixtures__/global-setup.ts']`; without
 * it every file starts its own cluster, which is correct, only slower.
 */
import { TEST_DATABASE_URL_ENV, startTestPostgres, type TestPostgres } from './test-postgres.js';

let server: TestPostgres | undefined;

export async function setup(): Promise<void> {
  if (process.env[TEST_DATABASE_URL_ENV] !== undefined && process.env[TEST_DATABASE_URL_ENV] !== '') return;
  server = await startTestPostgres();
  process.env[TEST_DATABASE_URL_ENV] = server.url;
}

export async function teardown(): Promise<void> {
  if (server === undefined) return;
  delete process.env[TEST_DATABASE_URL_ENV];
  await server.stop();
  server = undefined;
}
