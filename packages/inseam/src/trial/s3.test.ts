/**
 * The bucket kind passes the trial on S3 through s3rver: the bucket host for provider `s3`, its
 * egress the real gate (policy from its own `describe().auth`, the loopback endpoint approved as
 * private, redirects returned as the EgressPort contract says), the endpoint s3rver behind a proxy
 * that verifies every SigV4 signature. The submit phase runs through the gate in audit mode, the
 * install phase in enforce mode on a scratch prefix.
 *
 * s3rver ignores If-Match on PUT, so the host cannot replace safely there: the probe it runs when
 * created finds that out, it declares `writes.replace: false`, and check 10 creates, reads back
 * and deletes, naming the replace step it left out.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EgressPort, EgressRequest } from '@inseam/connector';
import { createBucketHost } from '@inseam/connector-bucket';
import type { BucketHost } from '@inseam/connector-bucket';
import { UnavailableError } from '@neuralis/package-system/contracts';
import { createEgressGate, InMemoryEgressRecorder } from '../gate/index.js';
import type { EgressGate, HostEgressPolicy } from '../gate/index.js';
import { S3RVER_ACCESS_KEY_ID, startSigningCheckedS3 } from '../gate/__fixtures__/s3.js';
import type { SigningCheckedS3 } from '../gate/__fixtures__/s3.js';
import { REPLACE_NOT_DECLARED } from './checks/writes.js';
import { formatTrialReport, runTrial } from './index.js';
import type { TrialReport } from './index.js';

const BUCKET = 'inseam-trial';
const SECRET = `trial-secret-${randomBytes(12).toString('hex')}`;

let s3: SigningCheckedS3;
const recorder = new InMemoryEgressRecorder();
let gate: EgressGate;
let audit: EgressPort;
let enforce: EgressPort;
/** The port the host's requests go to right now; none until the gate is bound to what the host declares. */
let current: EgressPort | undefined;
const egress: EgressPort = {
  fetch: (request: EgressRequest) =>
    current === undefined ? Promise.reject(new UnavailableError('The gate is bound only after describe().')) : current.fetch(request),
};
let host: BucketHost;
let describedBeforeBinding: BucketHost;

function config(): Record<string, unknown> {
  return { provider: 's3', endpoint: s3.endpoint, bucket: BUCKET, prefix: 'team/files' };
}

function statuses(report: TrialReport): Record<number, string> {
  return Object.fromEntries(report.checks.map((check) => [check.id, check.status]));
}

beforeAll(async () => {
  s3 = await startSigningCheckedS3([BUCKET], () => SECRET);
  gate = createEgressGate({ recorder, retry: { baseDelayMs: 1 } });
  // As the platform does: the gate is bound to the host's own declaration, so a host is opened
  // (unbound) to be described first.
  describedBeforeBinding = await createBucketHost(config(), { egress });
  const auth = describedBeforeBinding.describe().auth;
  const policy: HostEgressPolicy = {
    hostId: 'trial-s3',
    auth,
    credentials: { fields: async () => ({ accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: SECRET }) },
    allowPrivateOrigins: [s3.endpoint],
    redirects: 'return',
  };
  audit = gate.forHost({ ...policy, mode: 'audit' });
  enforce = gate.forHost({ ...policy, mode: 'enforce' });
  current = enforce;
  host = await createBucketHost(config(), { egress, hostPageSize: 2 });
  const seed: [string, string][] = [
    ['a.txt', 'alpha\n'],
    ['notes/b%20c.md', '# b c — über\n'],
    ['report.csv', 'a,b\n1,2\n'],
    ['scratch/keep.txt', 'the scratch folder exists\n'],
  ];
  for (const [path, text] of seed) await host.write(path, new Response(text).body as ReadableStream<Uint8Array>);
});

afterAll(async () => {
  await gate?.close();
  await s3?.stop();
});

describe('the bucket host on S3 (s3rver) through the egress gate', () => {
  it('learns at creation that the endpoint ignores If-Match, and so does not claim replace', () => {
    expect(host.describe().writes).toMatchObject({ mimes: '*', create: true, replace: false, delete: true });
    // The probe went out once, signed, with an If-Match that cannot hold, and its scratch object is gone.
    const probes = s3.requests.filter((request) => request.url.includes('.inseam-conditional-probe-'));
    expect(probes.map((request) => request.method)).toEqual(['PUT', 'DELETE']);
    expect(probes[0]?.headers['if-match']).toBe('"00000000000000000000000000000000"');
    // A host whose probe could not be sent (no gate yet) does not know, and keeps the claim.
    expect(describedBeforeBinding.describe().writes?.replace).toBe(true);
  });

  it('passes the submit phase through the audit-mode gate, reaching only the s3rver origin', async () => {
    current = audit;
    recorder.clear();
    const report = await runTrial({ subject: { connector: host } });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(report.kind).toBe('bucket');
    expect(statuses(report)).toEqual({ 1: 'pass', 2: 'pass', 3: 'pass', 4: 'pass', 5: 'pass', 6: 'pass', 7: 'pass', 8: 'skip', 9: 'skip', 10: 'skip', 11: 'skip' });
    expect(report.checks[1]?.detail).toMatch(/order "newest": the host cannot/);
    expect(recorder.originsUsed()).toEqual([s3.endpoint]);
    expect(recorder.refusals()).toEqual([]);
    expect(recorder.records.every((record) => record.method === 'GET' || record.method === 'HEAD')).toBe(true);
  });

  it('passes the install phase on a scratch prefix: create, read back and delete, the replace step named as left out', async () => {
    current = enforce;
    recorder.clear();
    const before = s3.requests.length;
    const report = await runTrial({ subject: { connector: host }, phase: 'install', scratchPrefix: 'scratch' });
    expect(report.passed, formatTrialReport(report)).toBe(true);
    expect(statuses(report)).toMatchObject({ 8: 'skip', 9: 'skip', 10: 'pass', 11: 'skip' });
    const detail = report.checks[9]?.detail ?? '';
    const steps = 'created, read back, write() matches stat(), deleted (stat and list agree), a second delete is not_found, a stale ifMatch is refused and creates nothing';
    expect(detail).toBe(`text/plain: ${steps}; application/octet-stream: ${steps}; ${REPLACE_NOT_DECLARED}`);
    expect(report.leftovers).toEqual([]);
    expect(recorder.originsUsed()).toEqual([s3.endpoint]);
    expect(recorder.refusals()).toEqual([]);

    // Every request reached the endpoint signed with the stored secret; none was conditional.
    const during = s3.requests.slice(before);
    expect(during.filter((request) => request.signatureProblem !== null)).toEqual([]);
    expect(during.filter((request) => request.headers['if-match'] !== undefined)).toEqual([]);
    const written = during.filter((request) => request.method === 'PUT' || request.method === 'DELETE').map((request) => `${request.method} ${request.url}`);
    expect(written).toHaveLength(4);
    expect(written.every((line) => /^(PUT|DELETE) \/inseam-trial\/team\/files\/scratch\/inseam-trial-[^/]+$/.test(line))).toBe(true);
    // Nothing the trial made is left: the scratch folder holds what it held before.
    const left = await host.list({ prefix: 'scratch/' });
    expect(left.entries.map((entry) => entry.path)).toEqual(['scratch/keep.txt']);
  });
});
