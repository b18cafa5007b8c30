import { describe, expect, it } from 'vitest';
import { CAPABILITY_MEMBERS, CONNECTOR_CAPABILITIES } from '../../contracts/index.js';
import type { ConnectorFactoryContext, ConnectorPort, SessionContext } from '../../contracts/index.js';
import {
  MEMORY_EXEC_FEATURE,
  createMemoryConnector,
  memoryConnectorFactory,
  memoryConnectorManifest,
  memoryConnectorManifestFor,
  memoryUri,
} from './memory-connector.js';

const session: SessionContext = { userId: 'u1', projectId: 'p1', features: new Set([MEMORY_EXEC_FEATURE]) };

function member<K extends keyof ConnectorPort>(port: ConnectorPort, key: K): NonNullable<ConnectorPort[K]> {
  const value = port[key];
  if (value === undefined) throw new Error(`no ${String(key)} member`);
  return value;
}

function codeOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => 'resolved',
    (error: { code?: unknown }) => error.code,
  );
}

describe('binary reads', () => {
  const png = Uint8Array.from({ length: 64 }, (_, index) => index);

  it('spec: "bytes is base64 raw bytes, emitted for binary MIME types (image/*, video/*, application/pdf) when the size fits the per-MIME inline cap"', async () => {
    const pdf = new TextEncoder().encode('%PDF-1.7 tiny');
    const port = createMemoryConnector({ files: { 'a.png': png, 'b.pdf': pdf, 'c.mp4': png } });
    const image = await port.read('mem://a.png');
    expect(image).toMatchObject({ mime: 'image/png', size: 64, bytes: Buffer.from(png).toString('base64') });
    expect(image.omitted).toBeUndefined();
    expect((await port.read('mem://b.pdf')).bytes).toBe(Buffer.from(pdf).toString('base64'));
    expect((await port.read('mem://c.mp4')).mime).toBe('video/mp4');
  });

  it('spec: "Over the cap, leave bytes unset and surface a short text marker" — with omitted naming the cap', async () => {
    const port = createMemoryConnector({ files: { 'a.png': png, 'b.jpg': png }, inlineCaps: { 'image/png': 32 } });
    const over = await port.read('mem://a.png');
    expect(over.bytes).toBeUndefined();
    expect(over.omitted).toEqual({ reason: 'over_inline_cap', cap: 32 });
    expect(over.text).toBe('[image/png, 64 B: over the 32 B inline cap; not included]');
    // The cap is per MIME: image/jpeg still falls under the image/* default.
    expect((await port.read('mem://b.jpg')).bytes).toBe(Buffer.from(png).toString('base64'));
  });

  it('a ranged binary read within the cap returns just those bytes', async () => {
    const port = createMemoryConnector({ files: { 'a.png': png }, inlineCaps: { 'image/*': 8 } });
    const part = await port.read('mem://a.png', { range: { offset: 10, length: 4 } });
    expect(part.bytes).toBe(Buffer.from([10, 11, 12, 13]).toString('base64'));
    expect(part.range).toEqual({ offset: 10, length: 4 });
    expect(part.size).toBe(64);
  });

  it('other binary types read as a marker without bytes', async () => {
    const port = createMemoryConnector({ files: { 'x.zip': png } });
    const result = await port.read('mem://x.zip');
    expect(result).toMatchObject({ mime: 'application/zip', text: '[application/zip, 64 B: binary content; not included]' });
    expect(result.bytes).toBeUndefined();
  });
});

describe('text reads', () => {
  it('spec: "A text object larger than the text cap without a range: too_large, naming the cap"', async () => {
    const port = createMemoryConnector({ files: { 'big.txt': 'x'.repeat(100) }, textCapBytes: 50 });
    await expect(port.read('mem://big.txt')).rejects.toMatchObject({ code: 'too_large', details: { cap: 50, size: 100 } });
    expect((await port.read('mem://big.txt', { range: { offset: 0, length: 50 } })).text).toBe('x'.repeat(50));
  });

  it('spec: "A range past the end returns an empty result with range.length 0; a negative offset or length is invalid_argument"', async () => {
    const port = createMemoryConnector({ files: { 'a.txt': 'hello' } });
    expect(await port.read('mem://a.txt', { range: { offset: 99 } })).toMatchObject({ text: '', range: { offset: 99, length: 0 }, size: 5 });
    expect(await codeOf(port.read('mem://a.txt', { range: { offset: 0, length: -1 } }))).toBe('invalid_argument');
  });

  it('refuses URIs of another source and dot segments with invalid_uri', async () => {
    const port = createMemoryConnector({ source: 'notes', files: { 'a.txt': 'a' } });
    expect(await codeOf(port.read('mem://a.txt'))).toBe('invalid_uri');
    expect(await codeOf(port.read('notes://x/../a.txt'))).toBe('invalid_uri');
    expect(await codeOf(port.list('notes://%2e%2e'))).toBe('invalid_uri');
  });
});

describe('listing', () => {
  const files = Object.fromEntries(['e', 'a', 'c', 'b', 'd'].map((name) => [`dir/${name}.txt`, name]));

  it('spec: "Lists the direct children of a directory, one page at a time, in a stable order" — pages resume after the cursor', async () => {
    const port = createMemoryConnector({ files });
    const first = await port.list('mem://dir', { limit: 2 });
    expect(first.entries.map((entry) => entry.name)).toEqual(['a.txt', 'b.txt']);
    const second = await port.list('mem://dir', { limit: 2, cursor: first.cursor });
    expect(second.entries.map((entry) => entry.name)).toEqual(['c.txt', 'd.txt']);
    const third = await port.list('mem://dir', { limit: 2, cursor: second.cursor });
    expect(third).toEqual({ entries: [expect.objectContaining({ name: 'e.txt', uri: 'mem://dir/e.txt', size: 1 })] });
  });

  it('spec: "An unknown or stale cursor: invalid_argument" — a cursor from another directory is refused', async () => {
    const port = createMemoryConnector({ files: { ...files, 'other/x.txt': 'x', 'other/y.txt': 'y' } });
    const page = await port.list('mem://dir', { limit: 1 });
    expect(await codeOf(port.list('mem://other', { cursor: page.cursor }))).toBe('invalid_argument');
    expect(await codeOf(port.list('mem://dir', { cursor: 'garbage' }))).toBe('invalid_argument');
    expect(await codeOf(port.list('mem://dir', { limit: 0 }))).toBe('invalid_argument');
  });

  it('encodes names canonically, percent-encoded per segment', async () => {
    const port = createMemoryConnector({ files: { 'a b/ü#1.txt': 'x' } });
    const [directory] = (await port.list('mem://')).entries;
    expect(directory).toMatchObject({ uri: 'mem://a%20b', name: 'a b', type: 'directory' });
    const [file] = (await port.list('mem://a%20b')).entries;
    expect(file).toMatchObject({ uri: 'mem://a%20b/%C3%BC%231.txt', name: 'ü#1.txt', type: 'file' });
    expect(memoryUri('mem', 'a b/ü#1.txt')).toBe(file?.uri);
  });
});

describe('writes and deletes', () => {
  it('spec: "ifMatch not equal to the current etag (or the object missing): precondition_failed" and nothing is written', async () => {
    const port = createMemoryConnector();
    const write = member(port, 'write');
    const v1 = await write('mem://a.txt', 'v1');
    await write('mem://a.txt', 'v2', { ifMatch: v1.etag });
    expect(await codeOf(write('mem://a.txt', 'v3', { ifMatch: v1.etag }))).toBe('precondition_failed');
    expect(await codeOf(write('mem://new.txt', 'x', { ifMatch: v1.etag }))).toBe('precondition_failed');
    expect((await port.read('mem://a.txt')).text).toBe('v2');
    expect(await codeOf(port.read('mem://new.txt'))).toBe('not_found');
  });

  it('spec: "equal etags mean equal content" — the etag is a content hash', async () => {
    const port = createMemoryConnector();
    const write = member(port, 'write');
    const a = await write('mem://a.txt', 'same');
    const b = await write('mem://b.txt', new TextEncoder().encode('same'));
    const c = await write('mem://c.txt', 'different');
    expect(a.etag).toBe(b.etag);
    expect(c.etag).not.toBe(a.etag);
  });

  it('refuses createOnly onto an existing object, writes onto a directory, and writes below a file', async () => {
    const port = createMemoryConnector({ files: { 'd/a.txt': 'a' } });
    const write = member(port, 'write');
    expect(await codeOf(write('mem://d/a.txt', 'b', { createOnly: true }))).toBe('already_exists');
    expect(await codeOf(write('mem://d', 'b'))).toBe('is_a_directory');
    expect(await codeOf(write('mem://', 'b'))).toBe('is_a_directory');
    expect(await codeOf(write('mem://d/a.txt/child', 'b'))).toBe('not_a_directory');
    expect((await port.read('mem://d/a.txt')).text).toBe('a');
  });

  it('spec: "A non-empty directory without recursive: precondition_failed. The root itself: permission_denied"', async () => {
    const port = createMemoryConnector({ files: { 'd/a.txt': 'a' } });
    const remove = member(port, 'delete');
    expect(await codeOf(remove('mem://d'))).toBe('precondition_failed');
    expect(await codeOf(remove('mem://'))).toBe('permission_denied');
    expect(await codeOf(remove('mem://missing'))).toBe('not_found');
    await remove('mem://d', { recursive: true });
    expect((await port.list('mem://')).entries).toEqual([]);
  });
});

describe('walk and scanContent', () => {
  it('walks depth first below the directory, honouring maxDepth', async () => {
    const port = createMemoryConnector({ files: { 'r/a/x.txt': 'x', 'r/b.txt': 'b', 'r/a/y/z.txt': 'z' } });
    const walked: string[] = [];
    for await (const entry of member(port, 'walk')('mem://r')) walked.push(entry.uri);
    expect(walked).toEqual(['mem://r/a', 'mem://r/a/x.txt', 'mem://r/a/y', 'mem://r/a/y/z.txt', 'mem://r/b.txt']);
    const shallow: string[] = [];
    for await (const entry of member(port, 'walk')('mem://r', { maxDepth: 1 })) shallow.push(entry.uri);
    expect(shallow).toEqual(['mem://r/a', 'mem://r/b.txt']);
  });

  it('spec: "binary and oversized files are yielded with skipped set, never with content"', async () => {
    const port = createMemoryConnector({ files: { 'a.txt': 'short', 'b.txt': 'much longer text', 'c.png': new Uint8Array([1, 2]) } });
    const chunks: unknown[] = [];
    for await (const chunk of member(port, 'scanContent')('mem://', { maxBytesPerObject: 8 })) {
      chunks.push({ uri: chunk.entry.uri, text: chunk.text, skipped: chunk.skipped });
    }
    expect(chunks).toEqual([
      { uri: 'mem://a.txt', text: 'short', skipped: undefined },
      { uri: 'mem://b.txt', text: undefined, skipped: 'too_large' },
      { uri: 'mem://c.png', text: undefined, skipped: 'binary' },
    ]);
  });
});

describe('capabilities and manifest', () => {
  it('spec: "every other capability gates an optional method on the port" — a subset has exactly its members', () => {
    const port = createMemoryConnector({ capabilities: ['list', 'read', 'stat'] });
    expect([...port.capabilities()]).toEqual(['list', 'read', 'stat']);
    for (const capability of CONNECTOR_CAPABILITIES) {
      const present = (port as unknown as Record<string, unknown>)[CAPABILITY_MEMBERS[capability]] !== undefined;
      expect([capability, present]).toEqual([capability, ['list', 'read', 'stat'].includes(capability)]);
    }
  });

  it('spec: "list and read are mandatory" — a capability list without them is refused', () => {
    expect(() => createMemoryConnector({ capabilities: ['list', 'write'] })).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });

  it('spec: "Declaring the exec capability requires declaring execRequires beside it"', () => {
    expect(memoryConnectorManifest.execRequires).toEqual([MEMORY_EXEC_FEATURE]);
    expect(memoryConnectorManifestFor(['list', 'read', 'execDetached']).execRequires).toEqual([MEMORY_EXEC_FEATURE]);
    expect(memoryConnectorManifestFor(['list', 'read']).execRequires).toBeUndefined();
    expect(memoryConnectorManifest.configSchema).toMatchObject({ type: 'object', additionalProperties: false });
  });

  it('spec: "always read ctx.source instead of hard-coding a scheme" — the factory binds the context source', async () => {
    const context: ConnectorFactoryContext = { packageId: 'p', packageRoot: '/pkg', source: 'notes-u1', config: {}, scope: 'user' };
    const port = await memoryConnectorFactory(context);
    expect(port.source).toBe('notes-u1');
    expect((await port.list('notes-u1://')).entries).toEqual([]);
  });

  it('spec: "resolveOsUri never fabricates" — memory has no host path and says so with os_uri_unresolvable', async () => {
    const port = createMemoryConnector({ files: { 'a.txt': 'a' } });
    expect(await codeOf(member(port, 'resolveOsUri')('mem://a.txt'))).toBe('os_uri_unresolvable');
    expect(await codeOf(member(port, 'resolveOsUri')('mem://missing'))).toBe('not_found');
  });
});

describe('exec (fake shell)', () => {
  it('spec: "Return exitCode, stdout, stderr, truncated, durationMs"', async () => {
    const port = createMemoryConnector();
    const result = await member(port, 'exec')({ command: 'echo hello "big world" && exit 3', cwd: 'mem://' }, { session });
    expect(result).toMatchObject({ exitCode: 3, stdout: 'hello big world\n', stderr: '', truncated: false });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('spec: "A timeout ends the process and returns with exitCode: null and timedOut: true"', async () => {
    const port = createMemoryConnector();
    const result = await member(port, 'exec')({ command: 'echo before; sleep 30; echo after', cwd: 'mem://', timeout: 20 }, { session });
    expect(result).toMatchObject({ exitCode: null, timedOut: true, stdout: 'before\n' });
  });

  it('cuts output at the cap and says so with truncated', async () => {
    const port = createMemoryConnector({ outputCapBytes: 8 });
    const result = await member(port, 'exec')({ command: 'echo 0123456789', cwd: 'mem://' }, { session });
    expect(result).toMatchObject({ stdout: '01234567', truncated: true, exitCode: 0 });
  });

  it('an aborted signal ends the run like a kill', async () => {
    const port = createMemoryConnector();
    const controller = new AbortController();
    const running = member(port, 'exec')({ command: 'sleep 30', cwd: 'mem://' }, { session, signal: controller.signal });
    controller.abort();
    expect(await running).toMatchObject({ exitCode: null });
  });

  it('refuses a bad cwd (invalid_uri, not_found, not_a_directory) and an empty command (invalid_argument)', async () => {
    const port = createMemoryConnector({ files: { 'a.txt': 'a' } });
    const exec = member(port, 'exec');
    expect(await codeOf(exec({ command: 'echo', cwd: 'other://' }, { session }))).toBe('invalid_uri');
    expect(await codeOf(exec({ command: 'echo', cwd: 'mem://nope' }, { session }))).toBe('not_found');
    expect(await codeOf(exec({ command: 'echo', cwd: 'mem://a.txt' }, { session }))).toBe('not_a_directory');
    expect(await codeOf(exec({ command: ' ', cwd: 'mem://' }, { session }))).toBe('invalid_argument');
  });

  it('spec: "connectors without execDetached refuse background with unsupported", naming kind, operation and argument', async () => {
    const port = createMemoryConnector({ capabilities: ['list', 'read', 'exec'] });
    await expect(member(port, 'exec')({ command: 'echo', cwd: 'mem://', background: true }, { session })).rejects.toMatchObject({
      code: 'unsupported',
      details: { kind: 'memory', operation: 'exec', argument: 'background' },
    });
  });
});

describe('detached runs', () => {
  it('spec: "A kill is an acknowledgement — report the real end through status"; release forgets the run', async () => {
    const detached = member(createMemoryConnector(), 'detached');
    const { runId } = await detached.start({ command: 'echo started; sleep 30', cwd: 'mem://' }, { session });
    const running = await detached.status(runId, 50);
    expect(running).toMatchObject({ runId, state: 'running', exitCode: null, outputBytes: 8 });
    expect(await detached.output(runId, 2)).toEqual({ data: 'arted\n', next: 8, done: false });
    expect(await detached.kill(runId, 'someone')).toEqual({ acknowledged: true });
    const ended = await detached.status(runId, 1000);
    expect(ended).toMatchObject({ state: 'killed', exitCode: null, endedAt: expect.any(String) });
    expect(await detached.output(runId, 8)).toEqual({ data: '', next: 8, done: true });
    await detached.release(runId);
    expect(await codeOf(detached.status(runId))).toBe('not_found');
    expect(await codeOf(detached.output(runId, 0))).toBe('not_found');
  });

  it('a run that finishes reports exited with its exit code; a timed-out run reports failed', async () => {
    const detached = member(createMemoryConnector(), 'detached');
    const done = await detached.start({ command: 'echo hi && exit 4', cwd: 'mem://' }, { session });
    expect(await detached.status(done.runId, 1000)).toMatchObject({ state: 'exited', exitCode: 4 });
    const slow = await detached.start({ command: 'sleep 30', cwd: 'mem://', timeout: 10 }, { session });
    expect(await detached.status(slow.runId, 1000)).toMatchObject({ state: 'failed', exitCode: null });
  });

  it('refuses a negative offset with invalid_argument', async () => {
    const detached = member(createMemoryConnector(), 'detached');
    const { runId } = await detached.start({ command: 'echo x', cwd: 'mem://' }, { session });
    expect(await codeOf(detached.output(runId, -1))).toBe('invalid_argument');
    await detached.release(runId);
  });
});
