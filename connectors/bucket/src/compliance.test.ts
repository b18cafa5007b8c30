import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { BUCKET_CONNECTOR_ENTRY } from './manifest.js';
import { openProvider, PROVIDERS } from './__fixtures__/providers.js';
import type { ProviderFixture } from './__fixtures__/providers.js';

describe.each(PROVIDERS)('ConnectorPort compliance (%s)', (name) => {
  let provider: ProviderFixture;
  beforeAll(async () => {
    provider = await openProvider(name);
  });
  afterAll(async () => {
    await provider.close();
  });

  it('passes every check of the shared harness', async () => {
    const port = await provider.port();
    await port.write(`${port.source}://fixture/hello.txt`, 'hello, compliance');
    await port.write(`${port.source}://fixture/second.txt`, 'a second entry, so paging can be exercised');
    // The harness sets its scratch tree up with createOnly writes, which s3rver cannot enforce and
    // the S3 store therefore refuses (unsupported); against s3rver the harness gets the fixture
    // only, and port.test.ts covers writes and deletes on S3.
    const report = await runCompliance({
      port,
      manifest: BUCKET_CONNECTOR_ENTRY,
      ...(name === 'pad' ? { scratch: `${port.source}://scratch` } : {}),
      fixture: { uri: `${port.source}://fixture/hello.txt`, content: 'hello, compliance' },
    });
    expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
    const passed = report.checks.filter((check) => check.status === 'pass').map((check) => check.id);
    expect(passed).toEqual(
      expect.arrayContaining(['capabilities.match', 'list.paging', 'read.content', 'read.range', 'stat.matches-list', 'walk.tree', 'probe.connection']),
    );
    if (name === 'pad') expect(passed).toEqual(expect.arrayContaining(['write.if-match', 'write.create-only', 'delete.removes', 'scratch.cleanup']));
  });
});
