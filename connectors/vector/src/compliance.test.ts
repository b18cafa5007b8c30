import { expect, test } from 'vitest';
import { failedChecks, formatComplianceReport, runCompliance } from '@neuralis/package-system/testing';
import { MemoryIndex, record } from './__fixtures__/memory-index.js';
import { VECTOR_CONNECTOR_ENTRY, createVectorPort, recordJson } from './index.js';

test('the vector kind passes the package-system compliance harness', async () => {
  // The platform's index is over its store; the harness checks the port, so an index in memory serves.
  const index = new MemoryIndex()
    .add({ host: 'notes', path: 'docs/plan.md', record: record('m', { chunks: [{ start: 0, end: 40 }] }) })
    .add({ host: 'notes', path: 'docs/sub/deep.md', record: record('m') })
    .add({ host: 'notes', path: 'readme.md', record: record('m', { state: 'pending', contentKey: null, indexedAt: null }) })
    .add({ host: 'mail', path: 'inbox/1.eml', record: record('m', { state: 'failed', error: { code: 'rate_limited', message: 'slow' }, attempts: 2 }) });
  const port = createVectorPort(
    { packageId: '@inseam/connector-vector', packageRoot: '/nonexistent', source: 'vector', config: {}, scope: 'project' },
    { index, access: { readable: () => true } },
  );
  const entry = (await index.entry('notes', 'docs/plan.md'))!;
  const report = await runCompliance({ port, manifest: VECTOR_CONNECTOR_ENTRY, fixture: { uri: 'vector://notes/docs/plan.md', content: recordJson(entry) } });
  expect(failedChecks(report), formatComplianceReport(report)).toEqual([]);
  // Read only, not runtime-gated, no exec: exactly these checks have nothing to exercise.
  expect(report.checks.filter((check) => check.status === 'skip').map((check) => check.id).sort()).toEqual(
    ['delete.removes', 'exec.run', 'execDetached.lifecycle', 'manifest.exec-requires', 'read.binary', 'runtime-gated.active', 'scanContent.text', 'scratch.cleanup', 'scratch.setup', 'write.create-only', 'write.create-replace', 'write.if-match'].sort(),
  );
});
