/**
 * Each deliberately broken connector fails exactly the check it breaks, and nothing else, with a
 * detail that says what was expected, what came back and how to fix it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatTrialReport, runTrial, TrialSandbox, trialReportJson } from './index.js';
import { BROKEN_CONNECTORS, FIXED_SHAPE_PATCH, MAIL_OWNER, MAIL_SEED, UPDATE_SEQUENCE, brokenModule, mailEnvelopes } from './__fixtures__/broken/broken-connectors.js';
import { NOTES_SEED, exampleSource } from './__fixtures__/examples.js';
import { startNotesApi, type NotesApi } from './__fixtures__/servers/notes-api.js';

let api: NotesApi;
/** The same API serving a mailbox of raw messages. */
let mail: NotesApi;
let sandbox: TrialSandbox;
const example = exampleSource('notes-api');

beforeAll(async () => {
  api = await startNotesApi(NOTES_SEED);
  mail = await startNotesApi(MAIL_SEED);
  sandbox = new TrialSandbox();
});
afterAll(async () => {
  await sandbox.close();
  await api.close();
  await mail.close();
});

const cases = BROKEN_CONNECTORS.flatMap((broken) => broken.phases.map((phase) => ({ ...broken, phase })));

describe('broken connectors', () => {
  it('cover every check 1–11', () => {
    expect(new Set(BROKEN_CONNECTORS.map((broken) => broken.breaks))).toEqual(new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]));
  });

  it.each(cases)('$name ($fault) fails check $breaks alone in the $phase phase, linking #$section', async ({ name, breaks, patch, phase, section, leaves, host }) => {
    const server = host === 'mail' ? mail : api;
    const report = await runTrial({
      subject: { module: brokenModule(example, patch), label: name },
      config: { baseUrl: server.origin, pageSize: 2, pollMs: 25, ...(host === 'mail' ? MAIL_OWNER : {}) },
      credentials: { token: server.token },
      allowPrivateOrigins: [server.origin],
      sandbox,
      phase,
      eventWaitMs: 800,
      ...(phase === 'install' ? { scratchPrefix: 'scratch', rename: async (from: string, to: string) => server.rename(decodeURIComponent(from), decodeURIComponent(to)) } : {}),
    });
    const failed = report.checks.filter((check) => check.status === 'fail');
    expect(failed.map((check) => check.id), formatTrialReport(report)).toEqual([breaks]);
    expect(report.passed).toBe(false);
    expect(failed[0]?.detail).toMatch(/^expected: .+\nactual: .+\nfix: .+\nsee: docs\/connectors\/authoring\.md#[a-z-]+$/);
    expect(failed[0]?.detail.endsWith(`see: docs/connectors/authoring.md#${section}`), failed[0]?.detail).toBe(true);
    const onHost = [...server.files.values()].filter((file) => file.path.startsWith('scratch/'));
    // What the trial could not remove is listed in the report, for a person to remove by hand.
    expect(report.leftovers).toEqual(onHost.map((file) => file.path).sort());
    expect(trialReportJson(report).leftovers).toEqual(report.leftovers);
    expect(onHost.length > 0).toBe(leaves === true);
    for (const file of onHost) server.files.delete(file.id);
  });
});

const install = {
  config: () => ({ baseUrl: api.origin, pageSize: 2, pollMs: 25 }),
  rename: async (from: string, to: string) => api.rename(decodeURIComponent(from), decodeURIComponent(to)),
};

async function trial(patch: string, label: string, phase: 'submit' | 'install', extra: Partial<Parameters<typeof runTrial>[0]> = {}) {
  return runTrial({
    subject: { module: brokenModule(example, patch), label },
    config: install.config(),
    credentials: { token: api.token },
    allowPrivateOrigins: [api.origin],
    sandbox,
    phase,
    eventWaitMs: 800,
    ...(phase === 'install' ? { scratchPrefix: 'scratch', rename: install.rename } : {}),
    ...extra,
  });
}

describe('a host whose writable objects have a fixed shape (<id>/doc.json)', () => {
  it('passes with the samples it declares, written where it says', async () => {
    const report = await trial(FIXED_SHAPE_PATCH, 'fixed-shape', 'install');
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[9]?.detail).toMatch(/^application\/json at \{name\}\/doc\.json: created, .*replaced with ifMatch, stale ifMatch refused, .*deleted \(stat and list agree\), a second delete is not_found, a stale ifMatch is precondition_failed and creates nothing$/);
    expect(report.leftovers).toEqual([]);
  });

  it('fails check 10 when it does not declare them: the trial\'s own names are refused', async () => {
    const undeclared = `${FIXED_SHAPE_PATCH}
    connector.describe = () => ({ ...described, writes: { mimes: ['application/json'], create: true, replace: true, delete: true } });`;
    const report = await trial(undeclared, 'fixed-shape-undeclared', 'install');
    // Nothing could be written, so check 8 has no event to wait for and skips rather than failing.
    expect(report.checks.filter((check) => check.status === 'fail').map((check) => check.id), formatTrialReport(report)).toEqual([9, 10]);
    expect(report.checks[7]?.status).toBe('skip');
    expect(report.checks[9]?.detail).toContain('only <id>/doc.json objects can be written');
  });
});

describe('a delete-only host (a mail catcher, a queue)', () => {
  const deleteOnly = `connector.describe = () => {
      const description = base.describe();
      return { ...description, capabilities: description.capabilities.filter((capability) => capability !== 'write'), writes: { create: false, replace: false, delete: true } };
    };
    delete connector.write;`;

  it('passes check 10 by deleting an object planted by the host\'s own means, and seeing it gone', async () => {
    const report = await trial(deleteOnly, 'delete-only', 'install', { plant: async () => api.add('scratch/planted message.txt', 'delivered to the catcher\n') });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[9]?.detail).toBe('delete-only: the planted scratch/planted%20message.txt deleted (stat and list agree), a second delete is not_found');
    expect([...api.files.values()].filter((file) => file.path.startsWith('scratch/'))).toEqual([]);
  });

  it('skips check 10 without a way to plant one, saying what it needs', async () => {
    const report = await trial(deleteOnly, 'delete-only-unplanted', 'install');
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[9]).toMatchObject({ status: 'skip', detail: expect.stringContaining('the plant option') });
  });

  it('fails check 10 when its delete does nothing', async () => {
    const report = await trial(`${deleteOnly}
    connector.delete = async () => undefined;`, 'delete-only-noop', 'install', { plant: async () => api.add('scratch/kept.txt', 'never deleted\n') });
    expect(report.checks.filter((check) => check.status === 'fail').map((check) => check.id), formatTrialReport(report)).toEqual([10]);
    expect(report.checks[9]?.detail).toContain('see: docs/connectors/authoring.md#writing-delete');
    expect(report.leftovers).toEqual(['scratch/kept.txt']);
    for (const file of [...api.files.values()].filter((item) => item.path.startsWith('scratch/'))) api.files.delete(file.id);
  });
});

describe('a read-only connector that reads over POST (a search API)', () => {
  // stat asks the host's search endpoint, which answers reads over POST.
  const searching = (declared: boolean) => `const described = base.describe();
    const search = new URL('/api/v1/search', config.baseUrl);
    connector.describe = () => {
      const { writes, ...rest } = described;
      return {
        ...rest,
        capabilities: described.capabilities.filter((capability) => capability !== 'write' && capability !== 'delete'),
        auth: { ...described.auth${declared ? ", readEndpoints: [{ method: 'POST', origin: search.origin, path: search.pathname }]" : ''} },
      };
    };
    delete connector.write;
    delete connector.delete;
    connector.stat = async (path) => {
      const response = await fetch(search.href, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ path: toApiPath(path) }) });
      if (!response.ok) throw hostError('unavailable', 'search answered ' + response.status);
      const { files } = await response.json();
      return files.length === 0 ? null : base.stat(path);
    };`;

  it('passes the submit phase when it declares the endpoint, and the report names it for the person approving', async () => {
    const before = api.requests.filter((request) => request === 'POST /api/v1/search').length;
    const report = await trial(searching(true), 'post-reads', 'submit');
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(api.requests.filter((request) => request === 'POST /api/v1/search').length).toBeGreaterThan(before);
    expect(report.readEndpoints).toEqual([`POST ${api.origin}/api/v1/search`]);
    expect(trialReportJson(report).readEndpoints).toEqual(report.readEndpoints);
    expect(formatTrialReport(report)).toContain(`POST as reads (declared): POST ${api.origin}/api/v1/search`);
  });

  it('fails check 11 when it does not, naming auth.readEndpoints as the fix', async () => {
    const report = await trial(searching(false), 'post-reads-undeclared', 'submit');
    expect(report.passed).toBe(false);
    expect(report.checks[10]).toMatchObject({ status: 'fail', detail: expect.stringContaining('auth.readEndpoints') });
    expect(report.readEndpoints).toEqual([]);
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

describe('since along every ordering type', () => {
  it('an integer update sequence whose since keeps the value itself passes', async () => {
    const patch = `${UPDATE_SEQUENCE}connector.list = (options = {}) => numberedList(options.since === undefined ? options : { ...options, since: new Date(Number(options.since) * 1000).toISOString() });`;
    const report = await runTrial({
      subject: { module: brokenModule(example, patch), label: 'update-sequence' },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
    });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[1]?.detail).toMatch(/since 1714636800 lists the newest entry \(inclusive\)/);
  });

  it('the failure of an empty since names the integer and how to compare it', async () => {
    const broken = BROKEN_CONNECTORS.find((item) => item.name === 'update-sequence-since-empty')!;
    const report = await runTrial({
      subject: { module: brokenModule(example, broken.patch), label: broken.name },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
    });
    const detail = report.checks[1]?.detail ?? '';
    expect(detail).toMatch(/^expected: list\(\{ since: "1714636800" \}\) lists every entry whose seq \(an integer, the ordering dimension\) is at or after it/);
    expect(detail).toMatch(/\nactual: it lists nothing, so it leaves out \["journal\/2024-05-02\.md"\], whose seq is exactly 1714636800\n/);
    expect(detail).toMatch(/\nfix: keep entries whose value is >= Number\(since\)/);
  });
});

describe('the read sample', () => {
  const options = () => ({
    config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
    credentials: { token: api.token },
    allowPrivateOrigins: [api.origin],
    sandbox,
  });

  it('names its seed, and the same seed reads the same objects', async () => {
    const first = await runTrial({ subject: { module: example, label: 'seeded' }, ...options(), seed: 7 });
    const again = await runTrial({ subject: { module: example, label: 'seeded' }, ...options(), seed: 7 });
    expect(first.checks[4]?.status, formatTrialReport(first)).toBe('pass');
    expect(first.checks[4]?.detail).toMatch(/^read smallest "trash\/old\.txt" \(4 bytes\), largest "notes\/%C3%9Cn%C3%AF[^"]*" \(\d+ bytes\), 3 at random of 6 over 3 pages \(seed 7\)/);
    expect(again.checks[4]?.detail).toBe(first.checks[4]?.detail);
  });

  it('a wrong size past the smallest object fails naming the object, why it was read and the seed', async () => {
    const broken = BROKEN_CONNECTORS.find((item) => item.name === 'only-smallest-read-right')!;
    const report = await runTrial({ subject: { module: brokenModule(example, broken.patch), label: broken.name }, ...options(), seed: 7 });
    const detail = report.checks[4]?.detail ?? '';
    expect(detail).toMatch(/^expected: read\("notes\/%C3%9Cn%C3%AF[^"]*"\) \(the largest listed object within the 1 MiB read budget; read sample seed 7\) streams the object's \d+ bytes \(its listed size\)\nactual: it streamed 15 bytes\nfix: list as size the number of bytes read\(\) streams/);
  });

  it('refuses a seed that is not a 32-bit unsigned integer', async () => {
    await expect(runTrial({ subject: { module: example, label: 'seeded' }, ...options(), seed: -1 })).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(runTrial({ subject: { module: example, label: 'seeded' }, ...options(), seed: 1.5 })).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});

describe('messages', () => {
  const run = (patch: string, label: string, phase: 'submit' | 'install' = 'submit') =>
    runTrial({
      subject: { module: brokenModule(example, patch), label },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
      phase,
      eventWaitMs: 800,
      ...(phase === 'install' ? { scratchPrefix: 'scratch' } : {}),
    });

  it('an unsupported answer in check 10 names the kind (not the file), keeps the connector\'s reason and says how to fix it', async () => {
    const broken = BROKEN_CONNECTORS.find((item) => item.name === 'replace-unsupported')!;
    const report = await run(broken.patch, 'connector', 'install');
    const detail = report.checks[9]?.detail ?? '';
    expect(detail).toContain('("Connector kind "notes-api" does not support operation "write": conditional replace is not available on this plan")');
    expect(detail).toMatch(/\nfix: the connector answered unsupported for what its description declares: .*writes\.replace: false/);
  });

  it('check 8 waits for no event when no write of the trial succeeded', async () => {
    const patch = `connector.write = async () => { const error = new Error('the API is read-only today'); error.code = 'unsupported'; throw error; };`;
    const report = await run(patch, 'no-writes', 'install');
    expect(report.checks[9]?.status, formatTrialReport(report)).toBe('fail');
    expect(report.checks[7]?.status, formatTrialReport(report)).toBe('skip');
    expect(report.checks[7]?.detail).toMatch(/nothing changed on the host during the trial/);
  });

  it('check 4 does not call two identical unparseable mtimes a mismatch (check 3 names the form)', async () => {
    // An HTTP date, as the Last-Modified header gives it: Date.parse reads it, RFC 3339 does not.
    const patch = `const vague = (entry) => (entry === null ? null : { ...entry, mtime: new Date(entry.mtime).toUTCString() });
    connector.list = async (options) => {
      const page = await base.list(options);
      return { ...page, entries: page.entries.map(vague) };
    };
    connector.stat = async (path) => vague(await base.stat(path));`;
    const report = await run(patch, 'vague-mtime');
    expect(report.checks[2]?.status, formatTrialReport(report)).toBe('fail');
    expect(report.checks[3]?.status, formatTrialReport(report)).toBe('pass');
  });
});

describe('a newest-first listing sorted in memory', () => {
  it('fails check 2 naming what its first page cost against the whole listing, and the fix', async () => {
    const broken = BROKEN_CONNECTORS.find((item) => item.name === 'newest-sorted-in-memory')!;
    const report = await runTrial({
      subject: { module: brokenModule(example, broken.patch), label: broken.name },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
    });
    const detail = report.checks[1]?.detail ?? '';
    // Six entries, two a page: the whole listing is three requests, and so is the sorted first page.
    expect(detail).toMatch(/^expected: the first page of list\(\{ order: "newest" \}\) costs fewer requests than the whole listing \(list\(\{\}\) took 3 over 3 pages, its first page 1\)/);
    expect(detail).toMatch(/\nactual: it sent 3 requests for its first page, at least as many as the whole listing/);
    expect(detail).toMatch(/\nfix: pass order to the host .*throw an error with code "unsupported" for order — never fetch a whole listing to sort it in memory\n/);
    expect(report.honoursOrder).toBe(false);
  });

  it('the example, which asks the host for newest first, passes and says what its first page cost', async () => {
    const report = await runTrial({
      subject: { module: example, label: 'newest-streamed' },
      config: { baseUrl: api.origin, pageSize: 2, pollMs: 25 },
      credentials: { token: api.token },
      allowPrivateOrigins: [api.origin],
      sandbox,
    });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[1]?.detail).toMatch(/newest first verified over 4 entries; its first page took 1 request \(the whole listing 3\)$/);
    expect(report.honoursOrder).toBe(true);
  });
});

describe('envelopes against the message headers', () => {
  const mailTrial = (patch: string, label: string, phase: 'submit' | 'install', extra: Partial<Parameters<typeof runTrial>[0]> = {}, config: Record<string, unknown> = MAIL_OWNER) =>
    runTrial({
      subject: { module: brokenModule(example, patch), label },
      config: { baseUrl: mail.origin, pageSize: 2, pollMs: 25, ...config },
      credentials: { token: mail.token },
      allowPrivateOrigins: [mail.origin],
      sandbox,
      phase,
      eventWaitMs: 800,
      ...(phase === 'install' ? { scratchPrefix: 'scratch', rename: async (from: string, to: string) => mail.rename(decodeURIComponent(from), decodeURIComponent(to)) } : {}),
      ...extra,
    });

  it.each(['submit', 'install'] as const)('a connector that reads them from the headers passes (%s phase)', async (phase) => {
    const report = await mailTrial(mailEnvelopes(), 'mail-envelopes', phase);
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.checks[4]?.detail).toContain('; envelopes of 4 of 4 messages agree with their headers (parties, auth, list, direction)');
  });

  it('each fake names the message, what its header states and the fix', async () => {
    const named = (name: string) => BROKEN_CONNECTORS.find((item) => item.name === name)!.patch;
    const invented = (await mailTrial(named('envelope-invented-recipient'), 'invented', 'submit')).checks[4]?.detail ?? '';
    expect(invented).toMatch(/^expected: the envelope of "mail\/inbox\/2024-04-30%20hello\.eml" names only parties its header states/);
    expect(invented).toContain('actual: it names mailto:ada@example.com as to, which the To header does not carry (it has no address)');
    expect(invented).toMatch(/\nfix: take the parties from the message's From, Sender, Reply-To, To, Cc and Bcc headers only/);
    const passed = (await mailTrial(named('envelope-auth-always-pass'), 'always-pass', 'submit')).checks[4]?.detail ?? '';
    expect(passed).toContain('(authserv-id "mx.example.com"): no auth\nactual: it has {"dkim":true,"spf":true,"dmarc":true}');
    expect(passed).toMatch(/\nfix: take dkim, spf and dmarc only from the topmost Authentication-Results header whose authserv-id is the owner's receiving host/);
    const sent = (await mailTrial(named('envelope-always-sent'), 'always-sent', 'submit')).checks[4]?.detail ?? '';
    expect(sent).toContain('is received: its From or Sender is not one of the owner\'s addresses (ada@example.com)\nactual: it is "sent"');
  });

  it('an entry that names its raw message in extra.rawMessage is held to that message\'s header', async () => {
    // A mail catcher's JSON summary: not itself a message, but it says where its raw form is.
    const summaries = (fake?: string) => `${mailEnvelopes(fake)}
    const summary = (entry) => (entry === null || entry.envelope === undefined ? entry : { ...entry, mime: 'application/vnd.catcher+json', extra: { ...entry.extra, rawMessage: entry.path } });
    const enveloping = connector.list;
    connector.list = async (options) => {
      const page = await enveloping(options);
      return { ...page, entries: page.entries.map(summary) };
    };
    const statting = connector.stat;
    connector.stat = async (path) => summary(await statting(path));`;
    const faithful = await mailTrial(summaries(), 'catcher', 'submit');
    expect(faithful.passed, formatTrialReport(faithful)).toBe(true);
    expect(faithful.checks[4]?.detail).toContain('envelopes of 4 of 4 messages agree');
    const faked = await mailTrial(summaries(`(envelope) => ({ ...envelope, direction: 'sent' })`), 'catcher-sent', 'submit');
    expect(faked.checks.filter((check) => check.status === 'fail').map((check) => check.id), formatTrialReport(faked)).toEqual([5]);
    expect(faked.checks[4]?.detail).toMatch(/^expected: the envelope of "mail\/inbox\/2024-04-30%20hello\.eml" is received: its From or Sender is not one of the owner's addresses/);
  });

  it('the trial\'s own envelope option overrides the config: the owner\'s host decides which results count', async () => {
    // Trusting the sender's own host (mail.example.org) instead of Ada's, the faithful connector's results are wrong.
    const report = await mailTrial(mailEnvelopes(), 'mail-other-host', 'submit', { envelope: { ownAddresses: ['ada@example.com'], authservId: 'mail.example.org' } });
    expect(report.checks[4]?.status, formatTrialReport(report)).toBe('fail');
    expect(report.checks[4]?.detail).toContain('(authserv-id "mail.example.org"): {"dkim":true,"spf":true,"dmarc":true}');
  });

  it('without an authserv-id or own addresses it still refuses results no header states, and says what it could not compare', async () => {
    const faithful = await mailTrial(mailEnvelopes(), 'mail-unconfigured', 'submit', {}, { authservId: 'mx.example.com' });
    expect(faithful.passed, formatTrialReport(faithful)).toBe(true);
    expect(faithful.checks[4]?.detail).toContain('(parties, auth, list); direction not compared (no own addresses configured)');
    const named = BROKEN_CONNECTORS.find((item) => item.name === 'envelope-auth-always-pass')!.patch;
    const report = await mailTrial(named, 'always-pass-unconfigured', 'submit', {}, {});
    expect(report.checks[4]?.detail).toContain('actual: it has auth.dkim true where no Authentication-Results header states dkim');
  });
});
