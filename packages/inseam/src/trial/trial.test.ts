/**
 * The trial's own rules, on small connectors: the caller's mistakes are typed errors, a module
 * that does not load fails check 1 alone, requests before describe() are refused, events from
 * watch and webhook are checked, and the config file form is enforced.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChangeEvent, Connector, Description, Entry } from '@inseam/connector';
import { hasErrorCode } from '@neuralis/package-system/contracts';
import * as trial from './index.js';
import { TRIAL_CHECKS, TrialSandbox, parseTrialConfig, readTrialConfigFile, runTrial, trialReportJson, type TrialReport } from './index.js';
import { eventProblem } from './checks/events.js';
import { contentDifference, writeSamples } from './checks/writes.js';

const DESCRIPTION: Description = {
  kind: 'memo',
  capabilities: ['list', 'stat', 'read'],
  auth: { acquire: { type: 'none' }, present: [], origins: [] },
  dimensions: { mtime: { type: 'datetime', from: 'mtime', ordering: true, description: 'When it changed.' } },
  listing: 'free',
};

/** An in-process, read-only connector over a few objects. */
function memo(overrides: Partial<Connector> = {}, description: Description = DESCRIPTION): Connector {
  const objects = new Map<string, { bytes: Uint8Array; entry: Entry }>();
  for (const [path, text, mtime] of [['a.txt', 'alpha text\n', '2024-05-02T00:00:00Z'], ['b%20c.txt', 'bravo charlie\n', '2024-05-01T00:00:00Z']] as const) {
    const bytes = new TextEncoder().encode(text);
    objects.set(path, { bytes, entry: { path, size: bytes.byteLength, mtime, etag: `"${path}"` } });
  }
  return {
    describe: () => description,
    list: async ({ prefix = '' } = {}) => ({ entries: [...objects.values()].map((object) => object.entry).filter((entry) => entry.path.startsWith(prefix)) }),
    stat: async (path) => objects.get(path)?.entry ?? null,
    read: async (path, options = {}) => {
      const bytes = objects.get(path)!.bytes;
      const [start, end] = options.range ?? [0, bytes.byteLength];
      return new Blob([bytes.slice(start, end)]).stream();
    },
    ...overrides,
  };
}

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

function check(report: TrialReport, id: number): { status: string; detail: string } {
  return report.checks.find((record) => record.id === id)!;
}

let sandbox: TrialSandbox;
let dir: string;

beforeAll(async () => {
  sandbox = new TrialSandbox();
  dir = await mkdtemp(join(tmpdir(), 'inseam-trial-'));
});
afterAll(async () => {
  await sandbox.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the trial module', () => {
  it('exports exactly its named API', () => {
    expect(Object.keys(trial).sort()).toEqual(
      ['AUTHORING_DOC', 'CHECK_SECTIONS', 'DOC_SECTIONS', 'TRIAL_CHECKS', 'TRIAL_PHASES', 'TrialSandbox', 'canonicalScratchPrefix', 'formatTrialReport', 'parseTrialConfig',
      'parseTrialSamples', 'readTrialConfigFile', 'runTrial', 'trialReportJson'].sort(),
    );
  });

  it('numbers the checks 1–11 as the skill document does', () => {
    expect(TRIAL_CHECKS.map((definition) => definition.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  });
});

describe("the caller's mistakes are typed errors", () => {
  it('an unknown phase, install without a scratch prefix, or a bad prefix is invalid_argument', async () => {
    const cases = [
      { phase: 'later' as never },
      { phase: 'install' as const },
      { phase: 'install' as const, scratchPrefix: '/' },
      { phase: 'install' as const, scratchPrefix: 'a/../b' },
    ];
    for (const options of cases) {
      const error = await runTrial({ subject: { connector: memo() }, ...options }).catch((caught: unknown) => caught);
      expect(hasErrorCode(error, 'invalid_argument'), String(error)).toBe(true);
    }
  });

  it('a scratch prefix is taken in canonical form', () => {
    expect(trial.canonicalScratchPrefix('team/my scratch/')).toBe('team/my%20scratch');
  });
});

describe('an in-process connector', () => {
  it('passes with no origins declared; the gate checks skip', async () => {
    const report = await runTrial({ subject: { connector: memo() } });
    expect(report.passed, trial.formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toEqual({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'skip', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'skip' });
    expect(check(report, 7).detail).toBe('describe() declares no defaultScope');
    expect(trialReportJson(report)).toMatchObject({ kind: 'memo', passed: true, origins: [], phase: 'submit' });
  });

  it('an invalid description fails check 1 alone, naming each problem and its fix', async () => {
    const broken = { ...DESCRIPTION, capabilities: ['list', 'read', 'fly'], dimensions: { mtime: { ...DESCRIPTION.dimensions['mtime']!, ordering: undefined } } } as unknown as Description;
    const report = await runTrial({ subject: { connector: memo({}, broken) } });
    expect(report.kind).toBe('unknown');
    expect(report.checks.filter((record) => record.status === 'fail').map((record) => record.id)).toEqual([1]);
    expect(check(report, 1).detail).toMatch(/^expected: .+\nactual: capabilities\[2\]: "fly" is not a host capability\.; dimensions: No dimension is marked ordering: true\.\nfix: describe\(\)\.capabilities\[2\] should be one of/);
    expect(check(report, 2).detail).toBe('the connector could not be loaded or described (see check 1)');
  });

  it('a watch that emits malformed events fails check 8 with each problem', async () => {
    const events: unknown[] = [{ type: 'move', path: 'a.txt' }, { type: 'put', path: '' }, { type: 'rename', path: 'a.txt' }, { type: 'put', path: 'a.txt' }];
    const connector = memo({
      watch: async (emit) => {
        for (const event of events) emit(event as ChangeEvent);
        return () => undefined;
      },
    }, { ...DESCRIPTION, capabilities: ['list', 'stat', 'read', 'watch'] });
    const report = await runTrial({ subject: { connector } });
    expect(report.checks.filter((record) => record.status === 'fail').map((record) => record.id)).toEqual([8]);
    expect(check(report, 8).detail).toContain('actual: a "move" event to "a.txt" has no from; a "put" event has an empty path; a "rename" event has type "rename", not put, delete, move or rescan');
  });

  it('a watch that stays quiet in the submit phase skips check 8 with the reason', async () => {
    let stopped = 0;
    const connector = memo({ watch: async () => () => void (stopped += 1) }, { ...DESCRIPTION, capabilities: ['list', 'stat', 'read', 'watch'] });
    const report = await runTrial({ subject: { connector } });
    expect(check(report, 8)).toMatchObject({ status: 'skip' });
    expect(check(report, 8).detail).toMatch(/nothing changed on the host during the trial/);
    expect(stopped).toBe(1);
  });

  it('listed entries sharing a nativeId fail check 9 even in the submit phase', async () => {
    const connector = memo();
    const list = connector.list.bind(connector);
    const stat = connector.stat.bind(connector);
    const report = await runTrial({
      subject: {
        connector: {
          ...connector,
          list: async (options) => ({ entries: (await list(options)).entries.map((entry) => ({ ...entry, nativeId: 'same' })) }),
          stat: async (path) => ({ ...(await stat(path))!, nativeId: 'same' }),
        },
      },
    });
    expect(report.checks.filter((record) => record.status === 'fail').map((record) => record.id)).toEqual([9]);
    expect(check(report, 9).detail).toContain('nativeId "same" on "a.txt" and "b%20c.txt"');
  });
});

describe('a sandboxed module', () => {
  const describeText = JSON.stringify({ ...DESCRIPTION, auth: { ...DESCRIPTION.auth, origins: ['https://api.memo.example'] } });

  it('that does not load fails check 1 alone; the rest skip with the reason', async () => {
    const report = await runTrial({ subject: { module: 'export function createConnector( {', label: 'syntax' }, sandbox });
    expect(statuses(report)).toEqual({ 1: 'fail', 2: 'skip', 3: 'skip', 4: 'skip', 5: 'skip', 6: 'skip', 7: 'skip', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'skip' });
    expect(check(report, 1).detail).toMatch(/^expected: the module loads and describe\(\) answers\nactual: loading failed with .+\nfix: export createConnector\(config\)/);
  });

  it('a request sent before describe() is validated is refused and fails check 11, naming the origin', async () => {
    const source = `export function createConnector() {
      fetch('https://early.example/hello').catch(() => {});
      const entry = { path: 'a', size: 1, mtime: '2024-05-01T00:00:00Z' };
      return {
        describe() { return ${describeText}; },
        async list() { return { entries: [entry] }; },
        async stat() { return entry; },
        async read(path, options) { return new ReadableStream({ start(c) { c.enqueue(new Uint8Array([65]).slice(...(options && options.range ? options.range : [0, 1]))); c.close(); } }); },
      };
    }`;
    const report = await runTrial({ subject: { module: source, label: 'early' }, sandbox });
    expect(report.checks.filter((record) => record.status === 'fail').map((record) => record.id)).toEqual([11]);
    expect(check(report, 11).detail).toContain('GET to https://early.example: sent before describe() was validated');
  });

  it('parses a sample webhook delivery for check 8, and fails a malformed event', async () => {
    const module = (events: string): string => `export default {
      describe() { return ${describeText}; },
      async list() { return { entries: [{ path: 'a', size: 1, mtime: '2024-05-01T00:00:00Z' }] }; },
      async stat() { return { path: 'a', size: 1, mtime: '2024-05-01T00:00:00Z' }; },
      async read(path, options) { return new ReadableStream({ start(c) { c.enqueue(new Uint8Array([65]).slice(...(options && options.range ? options.range : [0, 1]))); c.close(); } }); },
      async webhook(request) { const body = await request.json(); return ${events}; },
    };`;
    const sample = { headers: { 'x-memo-signature': 'abc' }, body: { changed: ['a', 'b'] } };
    const good = await runTrial({ subject: { module: module("body.changed.map((path) => ({ type: 'put', path }))"), label: 'hook' }, sandbox, webhookSample: sample });
    expect(check(good, 8)).toMatchObject({ status: 'pass', detail: 'the sample delivery parsed into 2 event(s)' });
    const bad = await runTrial({ subject: { module: module("[{ type: 'move', path: body.changed[0] }]"), label: 'hook' }, sandbox, webhookSample: sample });
    expect(bad.checks.filter((record) => record.status === 'fail').map((record) => record.id)).toEqual([8]);
    expect(check(bad, 8).detail).toMatch(/^expected: webhook\(request\) parses the sample delivery into change events\nactual: it failed with .*from is missing/);
    const none = await runTrial({ subject: { module: module('[]'), label: 'hook' }, sandbox });
    expect(check(none, 8)).toMatchObject({ status: 'skip' });
    expect(check(none, 8).detail).toMatch(/no sample delivery was given \(webhookSample in the config file\)/);
  });
});

describe('events and samples', () => {
  it('eventProblem accepts the four event types and names what is missing', () => {
    expect(eventProblem({ type: 'put', path: 'a' })).toBeUndefined();
    expect(eventProblem({ type: 'rescan', path: '' })).toBeUndefined();
    expect(eventProblem({ type: 'move', path: 'b', from: 'a' })).toBeUndefined();
    expect(eventProblem({ type: 'put', path: 'a', entry: { path: 'b' } })).toBe('a "put" event for "a" carries an entry whose path is "b"');
    expect(eventProblem(null)).toBe('null is not an event object');
  });

  it('one built-in sample per declared type; "*" is text and bytes; wildcards pick a member', () => {
    expect(writeSamples('*').map((item) => item.sample?.mime)).toEqual(['text/plain', 'application/octet-stream']);
    expect(writeSamples(['image/*', 'text/calendar', 'application/x-unknown']).map((item) => item.sample?.mime)).toEqual(['image/png', 'text/calendar', undefined]);
  });

  it('a connector\'s declared samples come first, at their paths, and cover their types', () => {
    const declared = [{ mime: 'application/json', path: '{name}/doc.json', body: '{"a":1}', replacement: '{"a":2}' }];
    const samples = writeSamples(['application/*', 'text/plain'], [], declared);
    expect(samples.map((item) => [item.declared, item.sample?.mime, item.sample?.path, item.sample?.extension])).toEqual([
      ['application/json', 'application/json', '{name}/doc.json', 'json'],
      ['text/plain', 'text/plain', undefined, 'txt'],
    ]);
    expect(new TextDecoder().decode(samples[0]?.sample?.body)).toBe('{"a":1}');
    expect(writeSamples('*', [], declared).map((item) => item.sample?.mime)).toEqual(['application/json', 'text/plain', 'application/octet-stream']);
  });
});

describe('the config file', () => {
  it('accepts DESIGN.md\'s form and the two optional keys', () => {
    const file = parseTrialConfig({ config: { url: 'https://x.example' }, credentials: { token: 't' }, scratchPrefix: 'scratch', allowPrivateOrigins: ['http://127.0.0.1:8080'], webhookSample: { body: {} } });
    expect(file).toMatchObject({ config: { url: 'https://x.example' }, credentials: { token: 't' }, scratchPrefix: 'scratch' });
  });

  it('reads the mailbox owner check 5 compares envelopes with', () => {
    const file = parseTrialConfig({ envelope: { ownAddresses: ['ada@example.com'], authservId: 'mx.example.com' } });
    expect(file.envelope).toEqual({ ownAddresses: ['ada@example.com'], authservId: 'mx.example.com' });
  });

  it('reads check 10 samples as text or base64, and they come before the built-in ones', () => {
    const vcard = (name: string) => `BEGIN:VCARD\r\nVERSION:4.0\r\nFN:${name}\r\nEND:VCARD\r\n`;
    const file = parseTrialConfig({
      samples: [
        { mime: 'text/vcard', extension: 'vcf', body: vcard('Ada'), replacement: vcard('Grace'), markers: ['FN:Ada', 'FN:Grace'] },
        { mime: 'image/png', extension: 'png', bodyBase64: 'iVBORw0KGgo=', replacementBase64: 'iVBORw0KGgoA' },
      ],
    });
    expect(file.samples?.[0]).toMatchObject({ mime: 'text/vcard', extension: 'vcf', markers: ['FN:Ada', 'FN:Grace'] });
    expect(new TextDecoder().decode(file.samples?.[0]?.body)).toBe(vcard('Ada'));
    expect([...(file.samples?.[1]?.body ?? [])].slice(0, 4)).toEqual([0x89, 0x50, 0x4e, 0x47]);
    const samples = writeSamples(['text/vcard', 'image/png', 'text/plain'], file.samples);
    expect(samples.map((item) => [item.declared, item.sample?.extension, item.sample?.body.byteLength])).toEqual([
      ['text/vcard', 'vcf', vcard('Ada').length],
      ['image/png', 'png', 8],
      ['text/plain', 'txt', 59],
    ]);
  });

  it('compares a normalising host\'s read-back by content: JSON values, text markers, other types as bytes', () => {
    const [json, text, png] = writeSamples(['application/json', 'text/calendar', 'image/png']).map((item) => item.sample!);
    const encode = (value: string): Uint8Array => new TextEncoder().encode(value);
    expect(contentDifference(json!, 'body', encode('{"text":"ünïcode ✓","ok":true,"sample":"inseam trial"}'), 'normalised')).toBe('');
    expect(contentDifference(json!, 'body', encode('{"text":"ünïcode ✓","ok":false,"sample":"inseam trial"}'), 'normalised')).toMatch(/not the value written/);
    expect(contentDifference(json!, 'body', encode('{"text":"ünïcode ✓","ok":true,"sample":"inseam trial"}'), 'exact')).toMatch(/^\d+ bytes/);
    const refolded = 'BEGIN:VCALENDAR\nPRODID:-//host//EN\nBEGIN:VEVENT\nSUMMARY:inseam trial\n  sample, replaced\nEND:VEVENT\nEND:VCALENDAR\n';
    expect(contentDifference(text!, 'replacement', encode(refolded), 'normalised')).toBe('');
    expect(contentDifference(text!, 'replacement', encode(refolded.replace('replaced', 'kept')), 'normalised')).toMatch(/no longer contains "inseam trial sample, replaced"/);
    expect(contentDifference(png!, 'body', png!.replacement, 'normalised')).toMatch(/first difference/);
  });

  it('refuses unknown keys, non-string credentials and an empty scratch prefix, naming the field', () => {
    const cases: [unknown, string][] = [
      [[], '$'],
      [{ config: {}, credential: {} }, 'credential'],
      [{ credentials: { token: 42 } }, 'credentials.token'],
      [{ scratchPrefix: '/' }, 'scratchPrefix'],
      [{ webhookSample: { headers: { a: 1 }, body: '' } }, 'webhookSample.headers'],
      [{ samples: {} }, 'samples'],
      [{ samples: [{ mime: 'text/vcard', extension: 'vcf', body: 'a', replacement: 'a' }] }, 'samples[0].replacement'],
      [{ samples: [{ mime: 'text/vcard', extension: 'vcf', body: 'a', bodyBase64: 'YQ==', replacement: 'b' }] }, 'samples[0].body'],
      [{ samples: [{ mime: 'Text/VCard', extension: 'vcf', body: 'a', replacement: 'b' }] }, 'samples[0].mime'],
      [{ samples: [{ mime: 'text/vcard', extension: '.vcf', body: 'a', replacement: 'b' }] }, 'samples[0].extension'],
      [{ samples: [{ mime: 'text/vcard', extension: 'vcf', body: 'a', replacement: 'b', markers: ['a'] }] }, 'samples[0].markers'],
      [{ samples: [{ mime: 'text/vcard', extension: 'vcf', body: 'a', replacement: 'b', size: 1 }] }, 'samples[0].size'],
      [{ envelope: [] }, 'envelope'],
      [{ envelope: { ownAddress: ['ada@example.com'] } }, 'envelope.ownAddress'],
      [{ envelope: { ownAddresses: 'ada@example.com' } }, 'envelope.ownAddresses'],
      [{ envelope: { ownAddresses: ['Ada Lovelace'] } }, 'envelope.ownAddresses'],
      [{ envelope: { authservId: 'mx example com' } }, 'envelope.authservId'],
    ];
    for (const [value, field] of cases) {
      let error: unknown;
      try {
        parseTrialConfig(value);
      } catch (caught) {
        error = caught;
      }
      expect(hasErrorCode(error, 'invalid_config')).toBe(true);
      expect((error as { details: { field: string } }).details.field).toBe(field);
    }
  });

  it('a file that is not JSON is invalid_config without quoting its text', async () => {
    const path = join(dir, 'bad.json');
    await writeFile(path, '{"credentials": {"token": "top-secret-value"');
    const error = await readTrialConfigFile(path).catch((caught: unknown) => caught as Error);
    expect(hasErrorCode(error, 'invalid_config')).toBe(true);
    expect((error as Error).message).not.toContain('top-secret');
  });
});
