/**
 * An S3 bucket host on the platform, against s3rver on loopback behind a proxy that verifies
 * every SigV4 signature: the port and the crawler both send through the egress gate, which signs
 * with the host's stored credential; the connector never holds it.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3RVER_ACCESS_KEY_ID, startSigningCheckedS3, type SigningCheckedS3 } from '../gate/__fixtures__/s3.js';
import { openTestPlatform, removeDir, tempDir } from './__fixtures__/platforms.js';
import type { Platform } from './platform.js';

const SECRET = `platform-s3-${randomBytes(8).toString('hex')}`;
let s3: SigningCheckedS3;
let dataDir: string;
let platform: Platform;

beforeAll(async () => {
  s3 = await startSigningCheckedS3(['team'], () => SECRET);
  dataDir = await tempDir('platform-s3');
  platform = await openTestPlatform(dataDir);
  await platform.networks.init('home');
});

afterAll(async () => {
  await platform.close();
  await s3.stop();
  await removeDir(dataDir);
});

describe('an S3 bucket host', () => {
  it('writes and reads through its port and crawls, every request signed by the gate', async () => {
    await platform.networks.addHost({
      network: 'home',
      slug: 'team',
      kind: 'bucket',
      config: { provider: 's3', bucket: 'team', endpoint: s3.endpoint, prefix: 'shared' },
      credentials: { accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: SECRET },
      privateOrigins: [s3.endpoint],
    });
    const record = await platform.networks.hostRecord({ network: 'home', host: 'team' });
    const port = await platform.kinds.openPort(record);
    await port.write!('team://plans/q3.md', 'the lighthouse plan');
    expect((await port.read('team://plans/q3.md')).text).toBe('the lighthouse plan');
    const run = await (await platform.sync({ network: 'home', host: 'team' })).result;
    expect(run, JSON.stringify(run.error)).toMatchObject({ state: 'completed', counters: expect.objectContaining({ entries: 1, indexed: 1 }) });
    expect((await platform.search.search('lighthouse', { network: 'home' })).hits.map((hit) => hit.address)).toEqual(['inseam://home/team/plans/q3.md']);
    expect(s3.requests.length).toBeGreaterThan(0);
    expect(s3.requests.filter((request) => request.signatureProblem !== null)).toEqual([]);
    expect(platform.egressLog.originsUsed('home/team')).toEqual([s3.endpoint]);
  });

  it('a wrong stored secret fails the crawl as refused credentials, without the secret in the error', async () => {
    await platform.networks.addHost({
      network: 'home',
      slug: 'wrong',
      kind: 'bucket',
      config: { provider: 's3', bucket: 'team', endpoint: s3.endpoint },
      credentials: { accessKeyId: S3RVER_ACCESS_KEY_ID, secretAccessKey: 'not-the-secret-0000' },
      privateOrigins: [s3.endpoint],
    });
    const run = await (await platform.sync({ network: 'home', host: 'wrong' })).result;
    expect(run).toMatchObject({ state: 'failed', error: { code: 'permission_denied' } });
    expect(JSON.stringify(run.error)).not.toContain('not-the-secret-0000');
  });
});
