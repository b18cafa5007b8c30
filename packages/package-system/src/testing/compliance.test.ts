import { describe, expect, it } from 'vitest';
import { BROKEN_CONNECTORS } from './broken/broken-connectors.js';
import type { BrokenConnectorName } from './broken/broken-connectors.js';
import {
  COMPLIANCE_CHECKS,
  createMemoryConnector,
  failedChecks,
  formatComplianceReport,
  memoryConnectorManifest,
  memoryConnectorManifestFor,
  runCompliance,
} from './index.js';
import type { ConnectorCapability } from '../contracts/index.js';
import type { ComplianceReport } from './index.js';

function statusOf(report: ComplianceReport, id: string): { status: string; detail: string } {
  const check = report.checks.find((item) => item.id === id);
  if (check === undefined) throw new Error(`no check ${id} in the report`);
  return { status: check.status, detail: check.detail };
}

describe('the reference memory connector', () => {
  it('spec: "it exercises every declared capability" — all nine declared, with a scratch directory: nothing fails, every capability check runs', async () => {
    const port = createMemoryConnector({ source: 'mem' });
    const report = await runCompliance({ port, manifest: memoryConnectorManifest, scratch: 'mem://scratch' });
    expect(failedChecks(report)).toEqual([]);
    expect(report.passed).toBe(true);
    expect(report.kind).toBe('memory');
    expect(report.checks.map((check) => check.id)).toEqual(COMPLIANCE_CHECKS.map((check) => check.id));
    const skipped = report.checks.filter((check) => check.status === 'skip').map((check) => [check.id, check.detail]);
    expect(skipped).toEqual([
      ['capabilities.undeclared-refused', 'every capability is declared; nothing to refuse'],
      ['runtime-gated.active', 'runtimeGated: not declared'],
    ]);
  });

  it('cleans up after itself: the scratch run directory is deleted and no detached run is left', async () => {
    const port = createMemoryConnector({ source: 'mem' });
    await runCompliance({ port, manifest: memoryConnectorManifest, scratch: 'mem://scratch' });
    expect((await port.list('mem://scratch')).entries).toEqual([]);
  });

  it('spec: "an undeclared operation is refused with unsupported" — a read-only variant with a fixture passes, and skips carry reasons', async () => {
    const capabilities = ['list', 'read', 'stat'] as const;
    const port = createMemoryConnector({ source: 'docs', capabilities, files: { 'guide/intro.md': '# Intro\nhello\n', 'guide/more.md': 'more' } });
    const report = await runCompliance({
      port,
      manifest: memoryConnectorManifestFor(capabilities),
      scratch: 'docs://tmp',
      fixture: { uri: 'docs://guide/intro.md', content: '# Intro\nhello\n' },
    });
    expect(failedChecks(report)).toEqual([]);
    expect(statusOf(report, 'capabilities.undeclared-refused')).toEqual({
      status: 'pass',
      detail: expect.stringContaining('write, walk, scanContent, delete, exec, detached.start'),
    });
    expect(statusOf(report, 'write.if-match')).toEqual({ status: 'skip', detail: 'write: not declared' });
    expect(statusOf(report, 'exec.run')).toEqual({ status: 'skip', detail: 'exec: not declared' });
    expect(statusOf(report, 'scratch.setup')).toEqual({ status: 'skip', detail: 'write: not declared' });
    expect(statusOf(report, 'read.content').status).toBe('pass');
    expect(statusOf(report, 'list.paging').status).toBe('pass');
    expect(statusOf(report, 'read.binary')).toEqual({
      status: 'skip',
      detail: 'read: no binary object: give a scratch directory (with write declared) or an image, video or PDF fixture',
    });
  });

  it('spec: "connectors without execDetached refuse background with unsupported" — exec without execDetached passes', async () => {
    const capabilities = ['list', 'read', 'write', 'delete', 'exec'] as const;
    const port = createMemoryConnector({ source: 'box', capabilities });
    const report = await runCompliance({ port, manifest: memoryConnectorManifestFor(capabilities), scratch: 'box://work' });
    expect(failedChecks(report)).toEqual([]);
    expect(statusOf(report, 'capabilities.undeclared-refused').detail).toContain('exec(background)');
    expect(statusOf(report, 'exec.run').status).toBe('pass');
    expect(statusOf(report, 'execDetached.lifecycle')).toEqual({ status: 'skip', detail: 'execDetached: not declared' });
  });

  it('without scratch or fixture, write skips with "no scratch directory given" and read checks say how to give a known file', async () => {
    const port = createMemoryConnector({ source: 'mem', files: { 'a.txt': 'a', 'b.txt': 'b' } });
    const report = await runCompliance({ port, manifest: memoryConnectorManifest });
    expect(failedChecks(report)).toEqual([]);
    expect(statusOf(report, 'scratch.setup')).toEqual({ status: 'skip', detail: 'write: no scratch directory given' });
    expect(statusOf(report, 'write.create-replace')).toEqual({ status: 'skip', detail: 'write: no scratch directory given' });
    expect(statusOf(report, 'read.content').detail).toBe('no known file: give a scratch directory (with write declared) or a fixture');
    expect(statusOf(report, 'list.paging').status).toBe('pass');
  });

  it('a binary fixture is checked against the binary-read rule, including the over-cap marker', async () => {
    const png = Uint8Array.from({ length: 300 }, (_, index) => index % 256);
    const capabilities = ['list', 'read'] as const;
    const port = createMemoryConnector({ source: 'pics', capabilities, files: { 'x.png': png }, inlineCaps: { 'image/png': 100 } });
    const report = await runCompliance({ port, manifest: memoryConnectorManifestFor(capabilities), fixture: { uri: 'pics://x.png', content: png } });
    expect(failedChecks(report)).toEqual([]);
    expect(statusOf(report, 'read.binary').detail).toBe('image/png: over the 100-byte cap, marker "[image/png, 300 B: over the 100 B inline cap; not included]"');
  });
});

/**
 * What each broken connector must fail, and nothing else. Where one fault breaks two rules (a
 * plain Error for a missing read also breaks "read after delete is not_found"), both are named.
 */
const EXPECTED_FAILURES: Record<BrokenConnectorName, { readonly rule: string; readonly fails: readonly string[] }> = {
  writeDeclaredWithoutMember: { rule: 'each declared capability has its member', fails: ['capabilities.members'] },
  detachedFacetUndeclared: { rule: 'a facet without the capability is the same error as a capability without the facet', fails: ['capabilities.members'] },
  claimsUndeclaredCapability: { rule: 'capabilities() must exactly match capabilities[] declared in the manifest', fails: ['capabilities.match'] },
  missingExecRequires: { rule: 'declaring the exec capability requires declaring execRequires beside it', fails: ['manifest.exec-requires'] },
  portVersion3: { rule: 'CONNECTOR_PORT_VERSION = 4; pin the version as a literal', fails: ['port.version'] },
  statDisagreesWithList: { rule: 'stat(path) of a listed entry matches the listing', fails: ['stat.matches-list'] },
  cursorDoesNotRoundTrip: { rule: 'a cursor round-trips', fails: ['list.paging'] },
  listOfFileSucceeds: { rule: 'list of a file: not_a_directory', fails: ['errors.not-a-directory'] },
  plainErrorForMissing: { rule: 'throw the typed errors; read of a missing object is not_found', fails: ['delete.removes', 'errors.not-found'] },
  dotDotAccepted: { rule: 'a URI with ./.. segments is refused with invalid_uri before anything is touched', fails: ['errors.invalid-uri'] },
  binaryWithoutBytes: { rule: 'bytes is base64 for binary MIME types within the inline cap; over it a marker', fails: ['read.binary'] },
  walkIgnoresMaxDepth: { rule: 'walk maxDepth 1 lists direct children only', fails: ['walk.tree'] },
  scanContentLeaksBinary: { rule: 'binary files are yielded with skipped set, never with content', fails: ['scanContent.text'] },
  ignoresIfMatch: { rule: 'ifMatch not equal to the current etag: precondition_failed, nothing written', fails: ['write.if-match'] },
  createOnlyOverwrites: { rule: 'createOnly and the object exists: already_exists, nothing written', fails: ['write.create-only'] },
  deleteLeavesObject: { rule: 'delete removes an object; then stat/read are not_found', fails: ['delete.removes', 'scratch.cleanup'] },
  backgroundNotRefused: { rule: 'an undeclared operation is refused with unsupported naming kind, operation and argument', fails: ['capabilities.undeclared-refused'] },
  execWithoutDuration: { rule: 'exec returns exitCode, stdout, stderr, truncated, durationMs', fails: ['exec.run'] },
  releaseKeepsRun: { rule: 'release forgets the run; afterwards every verb answers not_found', fails: ['execDetached.lifecycle'] },
  statInventsMissing: { rule: 'stat of a missing object: not_found', fails: ['stat.matches-list', 'delete.removes'] },
  probeLeaksPath: { rule: 'reason is a fixed enum so the signal stays parseable and never leaks a raw filesystem path', fails: ['probe.connection'] },
  osUriRelative: { rule: 'resolveOsUri never fabricates: the real host path or OsUriUnresolvableError', fails: ['os-uri.resolve'] },
  runtimeGatedWithoutProbe: { rule: 'for runtimeGated, the platform reads the connector\'s isRuntimeActive() member', fails: ['runtime-gated.active'] },
};

describe('deliberately broken connectors fail exactly the check they break', () => {
  for (const [name, expected] of Object.entries(EXPECTED_FAILURES) as [BrokenConnectorName, (typeof EXPECTED_FAILURES)[BrokenConnectorName]][]) {
    it(`spec: "${expected.rule}" — ${name} (${BROKEN_CONNECTORS[name].breaks}) fails ${expected.fails.join(' and ')}`, async () => {
      const report = await runCompliance(BROKEN_CONNECTORS[name].subject());
      expect(report.passed).toBe(false);
      expect(failedChecks(report).map((check) => check.id).sort()).toEqual([...expected.fails].sort());
      for (const check of failedChecks(report)) expect(check.detail).toMatch(/^expected: .+\nactual: .+/);
    });
  }

  it('covers every broken connector in the set', () => {
    expect(Object.keys(EXPECTED_FAILURES).sort()).toEqual(Object.keys(BROKEN_CONNECTORS).sort());
  });
});

describe('failure details say what was expected and what came back', () => {
  it('a plain Error where not_found is due names the missing code and the class to throw', async () => {
    const report = await runCompliance(BROKEN_CONNECTORS.plainErrorForMissing.subject());
    expect(statusOf(report, 'errors.not-found').detail).toBe(
      [
        'expected: read of a missing object fails with code "not_found"',
        'actual: it threw a plain Error with no code ("ENOENT: no such file or directory")',
        'fix: throw NotFoundError (code "not_found") from @neuralis/package-system/contracts',
      ].join('\n'),
    );
  });

  it('a capability mismatch names what is declared but not offered and what is offered but not declared', async () => {
    const report = await runCompliance(BROKEN_CONNECTORS.claimsUndeclaredCapability.subject());
    expect(statusOf(report, 'capabilities.match').detail).toContain('offered but not declared: stat');
  });

  it('a facet without the capability is named as such', async () => {
    const report = await runCompliance(BROKEN_CONNECTORS.detachedFacetUndeclared.subject());
    expect(statusOf(report, 'capabilities.members').detail).toContain('has a detached facet but does not declare execDetached');
  });

  it('the text format lists every check with its status and indents failure details', async () => {
    const report = await runCompliance(BROKEN_CONNECTORS.portVersion3.subject());
    const text = formatComplianceReport(report);
    expect(text.split('\n')[0]).toMatch(/^ConnectorPort compliance — memory: FAILED \(\d+ passed, 1 failed, \d+ skipped\)$/);
    expect(text).toContain('FAIL port.version — portVersion is pinned to the literal 4');
    expect(text).toContain('     expected: portVersion 4\n     actual: portVersion 3');
  });
});

describe('a connector that never answers', () => {
  it('fails the waiting check as timed out and still finishes the report', async () => {
    const capabilities: ConnectorCapability[] = ['list', 'read', 'stat'];
    const port = { ...createMemoryConnector({ source: 'slow', capabilities, files: { 'a.txt': 'aaaa', 'b.txt': 'b' } }) };
    port.stat = () => new Promise(() => undefined);
    const report = await runCompliance(
      { port, manifest: memoryConnectorManifestFor(capabilities), fixture: { uri: 'slow://a.txt', content: 'aaaa' } },
      { checkTimeoutMs: 150 },
    );
    expect(failedChecks(report).map((check) => check.id)).toEqual(['stat.matches-list']);
    expect(statusOf(report, 'stat.matches-list').detail).toContain('expected: the check finishes within 150 ms');
  });
});
