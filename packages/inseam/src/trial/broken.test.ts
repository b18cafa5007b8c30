/**
 * Each deliberately broken connector fails exactly the check it breaks, and nothing else, with a
 * detail that says what was expected, what came back and how to fix it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrialReport, runTrial, TrialSandbox } from './index.js';
import { BROKEN_CONNECTORS, brokenModule } from './__fixtures__/broken/broken-connectors.js';
import { NOTES_SEED, exampleSource } from './__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from './__fixtures__/servers/notes-api.js';

let api: NotesApi;
let sandbox: TrialSandbox;
const example = exampleSource('notes-api');

beforeAll(async () => {
  api = await startNotesApi(NOTES_SEED);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await api.close();
});

const cases = BROKEN_CONNECTORS.flatMap((broken) => broken.phases.map((phase) => ({ ...broken, phase })));

describe('broken connectors', () => {
  it('cover every check 1–11', () => {
    expect(new Set(BROKEN_CONNECTORS.map((broken) => broken.breaks))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  });

  it.each(cases)('$name ($fault) fails check $breaks alone in the $phase phase, linking #$section', async ({ name, breaks, patch, phase, section }) => {
    const report = await runTrial({
      subject: { module: brokenModule(example, patch), label: name },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
      phase,
      eventWaitMs: 800,
      ...(phase === 'install' ? { scratchPrefix: 'scratch', rename: async (from: string, to: string) => api.rename(decodeURIComponent(from), decodeURIComponent(to)) } : {}),
    });
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect(failed.map((check) => check.id), formatTrialReport(report)).toEqual([breaks]);
    expect(report.passed).toBe(false);
    expect(failed[0]?.detail).toMatch(/^expected: .+\nactual: .+\nfix: .+\nsee: docs\/connectors\/authoring\.md#[a-z-]+$/);
    expect(failed[0]?.detail.endsWith(`see: docs/connectors/authoring.md#${section}`), failed[0]?.detail).toBe(true);
    expect([...api.files.values()].filter((file) => file.path.startsWith('scratch/'))).toEqual([]);
  });
});

describe('the other way to pass check 9', () => {
  it('a nativeId that a rename changes passes when watch emits the move', async () => {
    const patch = `const tag = (entry) => (entry === null ? null : { ...entry, nativeId: 'p:' + entry.path });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(tag) };
    };
    connector.stat = async (path) => tag(await base.stat(path));
    connector.write = async (path, body, options) => tag(await base.write(path, body, options));`;
    const report = await runTrial({
      subject: { module: brokenModule(example, patch), label: 'moves' },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
      phase: 'install',
      scratchPrefix: 'scratch',
      rename: async (from, to) => api.rename(decodeURIComponent(from), decodeURIComponent(to)),
    });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[8]?.detail).toMatch(/^the rename of scratch\/inseam-trial-\w+-rename-a\.txt to scratch\/inseam-trial-\w+-rename-b\.txt was emitted as a move event$/);
  });
});
