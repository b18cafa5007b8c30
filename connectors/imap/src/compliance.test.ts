import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { createImapPort } from './factory.js';
import { IMAP_CONNECTOR_ENTRY } from './manifest.js';
import { mail, startMailServer } from './__fixtures__/mail.js';
import type { MailServer } from './__fixtures__/mail.js';

describe('ConnectorPort compliance (imap on Dovecot)', () => {
  let server: MailServer;
  beforeAll(async () => {
    server = await startMailServer();
    await server.append('INBOX', mail({ subject: 'one' }), mail({ subject: 'two' }), mail({ subject: 'three', attachments: [{ name: 'a.png', type: 'image/png', bytes: new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 1, 2, 3]) }] }));
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('passes every check of the shared harness', async () => {
    const host = server.host();
    const port = await createImapPort({ packageId: '@inseam/connector-imap', packageRoot: '/', source: 'mail', config: server.config(), scope: 'project' }, { host });
    const listed = await port.list('mail://INBOX');
    const first = listed.entries.find((entry) => entry.name.endsWith('.eml'))!;
    const content = (await port.read(first.uri)).text;
    // The harness's scratch tree writes arbitrary files, which a mailbox does not hold; writes are tested in writes.test.ts.
    const report = await runCompliance({ port, manifest: IMAP_CONNECTOR_ENTRY, fixture: { uri: first.uri, content } });
    expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
    const passed = report.checks.filter((check) => check.status === 'pass').map((check) => check.id);
    expect(passed).toEqual(expect.arrayContaining(['capabilities.match', 'list.paging', 'read.content', 'read.range', 'stat.matches-list', 'walk.tree', 'probe.connection']));
  });
});
