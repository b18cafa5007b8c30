/**
 * `inseam connector new` and `inseam connector check`, in-process: a scaffold that checks clean
 * at once and is never written over, and an offline check that names each problem's path and the
 * section of the author's reference, for describe(), defaultScope, the config file and a schema.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SandboxHost } from '../../sandbox/index.js';
import { runCli } from '../program.js';
import { checkConnectorModule, formatModuleCheck, type CheckProblem, type ModuleCheckInput } from './connector-check.js';
import { capture } from './__fixtures__/cli.js';
import { exampleFile, exampleSource } from '../../trial/__fixtures__/examples.js';
import { brokenModule } from '../../trial/__fixtures__/broken/broken-connectors.js';

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'inseam-connector-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(() => {
  process.exitCode = undefined;
});

async function cli(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const out = capture();
  const err = capture();
  const code = await runCli(args, { stdout: out.stream, stderr: err.stream, stdin: capture().stream, env: {} });
  process.exitCode = undefined;
  return { code, stdout: out.text(), stderr: err.text() };
}

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

interface CheckJson {
  readonly kind: string | null;
  readonly ok: boolean;
  readonly problems: readonly { path: string; message: string; expected?: string; section: string }[];
  readonly durationMs: number;
}

async function checkJson(args: readonly string[]): Promise<{ code: number; outcome: CheckJson }> {
  const run = await cli(['connector', 'check', ...args, '--json']);
  return { code: run.code, outcome: JSON.parse(run.stdout) as CheckJson };
}

const tickets = fileURLToPath(exampleFile('tickets', 'connector.js'));
const ticketsHost = fileURLToPath(exampleFile('tickets', 'host.json'));


describe('inseam connector new', () => {
  it('writes a module, a config file and a README that check clean at once', async () => {
    const target = join(dir, 'weather');
    const run = await cli(['connector', 'new', 'weather', '--dir', target]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim().split('\n')).toEqual([join(target, 'connector.js'), join(target, 'host.json'), join(target, 'README.md')]);
    expect(run.stderr).toContain('docs/connectors/authoring.md');
    expect(await readFile(join(target, 'README.md'), 'utf8')).toMatch(/^# weather: an inseam connector\n/);
    // --schema takes JSON text or @file: a bare file name would be parsed as JSON.
    expect(await readFile(join(target, 'README.md'), 'utf8')).toContain('--schema @config.schema.json');
    expect(JSON.parse(await readFile(join(target, 'host.json'), 'utf8'))).toEqual({ config: { baseUrl: 'https://weather.example.com' }, credentials: { token: 'paste a read-only API token here' }, scratchPrefix: 'inseam-scratch' });
    const checked = await cli(['connector', 'check', join(target, 'connector.js'), '--config', join(target, 'host.json')]);
    expect(checked.code, checked.stdout).toBe(0);
    expect(checked.stdout).toMatch(/^inseam connector check — weather: OK\n {2}describe\(\): kind "weather"; capabilities list, stat, read;/);
    expect(checked.stdout).toContain('config file: its credentials fill every present template');
  });

  it('never writes over a file, and leaves nothing half written', async () => {
    const target = join(dir, 'taken');
    await cli(['connector', 'new', 'taken', '--dir', target]);
    await writeFile(join(target, 'README.md'), 'my own notes\n');
    await rm(join(target, 'connector.js'));
    const again = await cli(['connector', 'new', 'taken', '--dir', target]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/host\.json exists already; `inseam connector new` never overwrites a file\. .*\[already_exists\]/);
    expect(await readFile(join(target, 'README.md'), 'utf8')).toBe('my own notes\n');
    await expect(readFile(join(target, 'connector.js'), 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a kind that is not a kind name', async () => {
    const run = await cli(['connector', 'new', 'My Tickets', '--dir', join(dir, 'bad')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/"My Tickets" is not a kind name.*\[invalid_argument\]/);
  });
});

describe('inseam connector check', () => {
  it('passes an example, finding the host.json beside it, and reports what it checked', async () => {
    const run = await cli(['connector', 'check', tickets]);
    expect(run.code, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/^inseam connector check — tickets: OK\n/);
    expect(run.stdout).toContain('defaultScope: valid against the dimensions');
    expect(run.stdout).toContain('config file: its credentials fill every present template');
    expect(run.stdout).toMatch(/\ntime: \d+ ms\n$/);
  });

  it('names every describe() problem with its path and section, and exits 1', async () => {
    const patch = `connector.describe = () => {
      const description = base.describe();
      description.auth.present = [{ in: 'header', name: 'Authorization', value: 'Bearer {{api_token}}' }];
      description.dimensions.status.values = ['open', 'open'];
      return description;
    };`;
    const module = await file('broken-tickets.js', brokenModule(exampleSource('tickets'), patch));
    const { code, outcome } = await checkJson([module, '--config', ticketsHost]);
    expect(code).toBe(1);
    expect(outcome.ok).toBe(false);
    expect(outcome.kind).toBeNull();
    expect(outcome.problems.map((problem) => [problem.path, problem.section])).toEqual([
      ['auth.present[0].value', 'auth-present-templates'],
      ['auth.present', 'auth-present-templates'],
      ['dimensions.status.values', 'dimensions-value-formats'],
    ]);
    expect(formatModuleCheck({ kind: undefined, ok: false, problems: outcome.problems as CheckProblem[], notes: [] }, 'broken-tickets', 12)).toBe(
      [
        'inseam connector check — broken-tickets: 3 problems',
        '  auth.present[0].value: {{api_token}} names no declared field and no token the acquisition produces.',
        '     expected: one of {{token}}',
        '     see: docs/connectors/authoring.md#auth-present-templates',
        '  auth.present: acquire is "static" but present uses none of the fields.',
        '     expected: a present value using {{token}}',
        '     see: docs/connectors/authoring.md#auth-present-templates',
        '  dimensions.status.values: values repeats a value.',
        '     expected: distinct strings',
        '     see: docs/connectors/authoring.md#dimensions-value-formats',
        'time: 12 ms',
        '',
      ].join('\n'),
    );
  });

  it('is a usage error for a module that does not exist', async () => {
    const run = await cli(['connector', 'check', join(dir, 'missing.js')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/does not exist\. \[not_found\]/);
  });
});

describe('checkConnectorModule', () => {
  let sandbox: SandboxHost;
  const host = { baseUrl: 'https://tickets.example.com' };
  beforeAll(() => {
    sandbox = new SandboxHost();
  });
  afterAll(async () => {
    await sandbox.close();
  });

  const check = (source: string, input: Partial<ModuleCheckInput> = {}) => checkConnectorModule({ source, label: 'checked', config: host, ...input }, sandbox);

  it('checks defaultScope against the dimensions, as check 7 does', async () => {
    const patch = `connector.describe = () => ({ ...base.describe(), defaultScope: { rules: [{ exclude: { dim: 'folder', op: 'eq', value: 'x' } }] } });`;
    const outcome = await check(brokenModule(exampleSource('tickets'), patch));
    expect(outcome.problems).toEqual([expect.objectContaining({ path: 'defaultScope.rules[0].exclude.dim', section: 'default-scope', message: 'The dimension "folder" is not declared by connector kind "tickets".' })]);
  });

  it('runs offline: a module that fetches while it loads fails, naming the module shape', async () => {
    const eager = exampleSource('tickets').replace('const base = new URL(config.baseUrl);', 'const base = new URL(config.baseUrl);\n  await fetch(base.href);').replace('export function createConnector', 'export async function createConnector');
    const outcome = await check(eager);
    expect(outcome.ok).toBe(false);
    expect(outcome.problems).toEqual([expect.objectContaining({ path: 'module', section: 'sandbox-module-shape', message: expect.stringContaining('runs offline') })]);
  });

  it('names the config a module refuses', async () => {
    const outcome = await check(exampleSource('tickets'), { config: {} });
    expect(outcome.problems).toEqual([expect.objectContaining({ path: 'module', message: expect.stringContaining('config.baseUrl is required') })]);
  });

  it('requires the config file\'s credentials to fill the present templates', async () => {
    const outcome = await check(exampleSource('tickets'), { credentials: { tokn: 'x' } });
    expect(outcome.problems).toEqual([{ path: 'credentials.token', message: 'The config file has no credential "token", which auth.present uses.', expected: '"credentials": { "token": "…" } in the config file', section: 'auth-present-templates' }]);
  });

  it('checks a config schema: closed, valid, and the config matching it', async () => {
    const schema = { type: 'object', additionalProperties: false, required: ['baseUrl'], properties: { baseUrl: { type: 'string', title: 'Tracker URL', pattern: '^https://' }, pageSize: { type: 'integer', minimum: 1, maximum: 100 } } };
    const good = await check(exampleSource('tickets'), { schema, config: { ...host, pageSize: 50 } });
    expect(good.ok).toBe(true);
    expect(good.notes).toContain('config schema: closed and valid; the config file\'s config matches it');
    const open = await check(exampleSource('tickets'), { schema: { type: 'object', properties: {} } });
    expect(open.problems).toEqual([expect.objectContaining({ path: 'configSchema', section: 'configuration', message: expect.stringContaining('must be closed') })]);
    const formatted = await check(exampleSource('tickets'), { schema: { ...schema, properties: { ...schema.properties, baseUrl: { type: 'string', format: 'uri' } } } });
    expect(formatted.problems.map((problem) => [problem.path, problem.section])).toEqual([[expect.stringContaining('baseUrl'), 'configuration']]);
    const mismatch = await check(exampleSource('tickets'), { schema, config: { ...host, pageSize: 500 } });
    expect(mismatch.problems).toEqual([expect.objectContaining({ path: 'config', section: 'configuration', message: expect.stringContaining('field "pageSize"') })]);
  });
});
