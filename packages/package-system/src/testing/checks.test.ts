import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../contracts/index.js';
import {
  describeBytesDifference,
  describeError,
  ensure,
  expectErrorCode,
  fail,
  failedChecks,
  fieldMismatches,
  formatCheckReport,
  listProblems,
  runCheck,
  sameBytes,
  skip,
  skippedCheck,
  summarizeChecks,
} from './checks.js';

const definition = { id: 'sample.check', name: 'a sample rule', capability: 'read' };

describe('runCheck', () => {
  it('records a pass with the detail the body returned and a duration', async () => {
    const record = await runCheck(definition, () => 'read 3 objects');
    expect(record).toEqual({ ...definition, status: 'pass', detail: 'read 3 objects', durationMs: expect.any(Number) });
  });

  it('spec: "skips carry reasons" — a skip is data with its reason', async () => {
    const record = await runCheck(definition, () => skip('exec: not declared'));
    expect(record).toMatchObject({ status: 'skip', detail: 'exec: not declared' });
    expect(skippedCheck(definition, 'why')).toEqual({ ...definition, status: 'skip', detail: 'why', durationMs: 0 });
  });

  it('a failure says what was expected, what came back and how to fix it', async () => {
    const record = await runCheck(definition, () => fail('size 3', 'size 4', 'report the stored size'));
    expect(record).toMatchObject({ status: 'fail', detail: 'expected: size 3\nactual: size 4\nfix: report the stored size' });
    const viaEnsure = await runCheck(definition, () => ensure(1 > 2, () => ({ expected: 'one above two', actual: 'it is not' })));
    expect(viaEnsure.detail).toBe('expected: one above two\nactual: it is not');
  });

  it('an unexpected exception fails the check instead of escaping', async () => {
    const record = await runCheck(definition, async () => {
      throw new TypeError('port.list is not a function');
    });
    expect(record).toMatchObject({
      status: 'fail',
      detail: 'expected: no unexpected error\nactual: the check threw a plain TypeError with no code ("port.list is not a function")',
    });
  });

  it('a body that never settles fails as timed out, and the runner returns', async () => {
    const record = await runCheck(definition, () => new Promise<never>(() => undefined), { timeoutMs: 30 });
    expect(record.status).toBe('fail');
    expect(record.detail).toContain('expected: the check finishes within 30 ms');
  });
});

describe('expectErrorCode', () => {
  it('returns the error when the code matches', async () => {
    const error = await expectErrorCode(() => Promise.reject(new NotFoundError()), 'not_found', { doing: 'read of a missing object' });
    expect(error).toBeInstanceOf(NotFoundError);
  });

  it('fails when the call succeeds, or fails with another code or with none', async () => {
    const succeeded = await runCheck(definition, () => expectErrorCode(() => ({ ok: true }), 'not_found', { doing: 'read' }).then(() => undefined));
    expect(succeeded.detail).toBe('expected: read fails with code "not_found"\nactual: it succeeded with {"ok":true}');
    const nodeError = Object.assign(new Error('ENOENT: no such file'), { code: 'ENOENT' });
    const wrongCode = await runCheck(definition, () => expectErrorCode(() => Promise.reject(nodeError), 'not_found', { doing: 'read', fix: 'type it' }).then(() => undefined));
    expect(wrongCode.detail).toBe('expected: read fails with code "not_found"\nactual: it threw Error with code "ENOENT" ("ENOENT: no such file")\nfix: type it');
  });
});

describe('reports', () => {
  it('passes when nothing failed (skips do not fail), and lists failures in order', () => {
    const pass = { ...definition, status: 'pass' as const, detail: 'ok', durationMs: 1 };
    const skipRecord = { ...definition, id: 'b', status: 'skip' as const, detail: 'x: not declared', durationMs: 0 };
    const failRecord = { ...definition, id: 'c', status: 'fail' as const, detail: 'expected: a\nactual: b', durationMs: 2 };
    expect(summarizeChecks('memory', [pass, skipRecord]).passed).toBe(true);
    const report = summarizeChecks('memory', [pass, failRecord, skipRecord]);
    expect(report.passed).toBe(false);
    expect(failedChecks(report)).toEqual([failRecord]);
    expect(formatCheckReport(report, 'Trial')).toBe(
      [
        'Trial — memory: FAILED (1 passed, 1 failed, 1 skipped)',
        'PASS sample.check [read] — a sample rule (1 ms)',
        '     ok',
        'FAIL c [read] — a sample rule (2 ms)',
        '     expected: a',
        '     actual: b',
        'SKIP b [read] — a sample rule (0 ms)',
        '     x: not declared',
      ].join('\n'),
    );
  });

  it('numeric ids work too, for the trial\'s checks 1–11', async () => {
    const record = await runCheck({ id: 4, name: 'stat(path) of a listed entry matches the listing' }, () => 'ok');
    expect(summarizeChecks('notion', [record]).checks[0]?.id).toBe(4);
  });

  it('describes thrown non-errors too', () => {
    expect(describeError('boom')).toBe('a thrown non-Error value "boom"');
  });
});

describe('shared comparison helpers', () => {
  it('fieldMismatches names each field the other side reports differently, skipping fields the reference lacks', () => {
    const listed = { path: 'a', size: 3, etag: 'e1', mime: undefined as string | undefined };
    expect(fieldMismatches(listed, { path: 'a', size: 3, etag: 'e1', mime: 'text/plain' }, ['path', 'size', 'etag', 'mime'], 'the listing')).toEqual([]);
    expect(fieldMismatches(listed, { path: 'a', size: 4, etag: 'e2', mime: undefined }, ['size', 'etag'], 'the listing')).toEqual([
      'size 4 where the listing has 3',
      'etag "e2" where the listing has "e1"',
    ]);
    expect(fieldMismatches(listed, null, ['size'], 'the listing')).toEqual(['size undefined where the listing has 3']);
    const sameInstant = (_field: string, a: unknown, b: unknown): boolean => Date.parse(String(a)) === Date.parse(String(b));
    expect(fieldMismatches({ mtime: '2024-05-01T00:00:00Z' }, { mtime: '2024-05-01T00:00:00.000Z' }, ['mtime'], 'x', sameInstant)).toEqual([]);
  });

  it('listProblems shows the first few and counts the rest', () => {
    expect(listProblems(['a', 'b'])).toBe('a; b');
    expect(listProblems(['a', 'b', 'c', 'd'], 2)).toBe('a; b; and 2 more');
  });

  it('describeBytesDifference locates the first differing byte and the lengths', () => {
    const written = new TextEncoder().encode('hello world');
    expect(sameBytes(written, written.slice())).toBe(true);
    expect(describeBytesDifference(written, written.slice())).toBe('');
    expect(describeBytesDifference(written, new TextEncoder().encode('hello_world'))).toBe('11 bytes; first difference at byte 5 (0x5f where 0x20 was expected)');
    expect(describeBytesDifference(written, new TextEncoder().encode('hello'))).toBe('5 bytes where 11 were expected; first difference at byte 5 (the end where 0x20 was expected)');
  });
});
