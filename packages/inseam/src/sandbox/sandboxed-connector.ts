/**
 * A loaded sandboxed module, seen from the platform as a host `Connector`: the same interface the
 * built-in kinds implement, so the trial, the crawler and the ConnectorPort adapter treat both
 * alike. Every call is checked against the claimed capabilities before it is sent (a call outside
 * them is `unsupported`, naming the kind and method), and every answer is checked and rebuilt
 * before it is returned (see results.ts).
 *
 * `describe()` answers the description validated at load; the module's describe() is not asked
 * again. `watch()` resolves to an async unsubscribe; if the sandbox runtime is discarded, the
 * watcher receives one `rescan` event and nothing after it (watch again).
 */
import type { ChangeEvent, Connector, Description, Entry, HostCapability, HostListOptions, HostListPage, HostReadOptions } from '@inseam/connector';
import { ConnectorFailedError, InvalidArgumentError, TooLargeError, UnsupportedOperationError } from '@neuralis/package-system/contracts';
import type { CallMethod } from './protocol.js';
import { readChangeEvents, readEntry, readListPage, readStat } from './results.js';

export interface ModuleCalls {
  call(method: CallMethod, args: readonly unknown[], body?: ReadableStream<Uint8Array>): Promise<{ readonly value?: unknown; readonly stream?: ReadableStream<Uint8Array> }>;
  watch(emit: (event: ChangeEvent) => void): Promise<() => Promise<void>>;
  dispose(): void;
}

/** Largest webhook body handed to a module. */
export const MAX_WEBHOOK_BYTES = 1024 * 1024;

export class SandboxedConnector implements Connector {
  /** The label the module was loaded under (a kind or host slug). */
  readonly label: string;
  readonly #description: Description;
  readonly #calls: ModuleCalls;

  constructor(label: string, description: Description, calls: ModuleCalls) {
    this.label = label;
    this.#description = description;
    this.#calls = calls;
  }

  describe(): Description {
    return this.#description;
  }

  /** Throws `invalid_argument` for options of the wrong type. */
  async list(options: HostListOptions = {}): Promise<HostListPage> {
    this.#require('list');
    const args: { prefix?: string; cursor?: string; since?: string; order?: 'newest' } = {};
    for (const key of ['prefix', 'cursor', 'since'] as const) {
      const value = options[key];
      if (value === undefined) continue;
      if (typeof value !== 'string') throw new InvalidArgumentError(`list option ${key} must be a string.`);
      args[key] = value;
    }
    if (options.order !== undefined) {
      if (options.order !== 'newest') throw new InvalidArgumentError('list option order may only be "newest".');
      args.order = 'newest';
    }
    return readListPage((await this.#calls.call('list', [args])).value);
  }

  async stat(path: string): Promise<Entry | null> {
    this.#require('stat');
    return readStat((await this.#calls.call('stat', [checkPath(path)])).value);
  }

  /** `range` is `[start, end)`; a negative, fractional or reversed range is `invalid_argument`. */
  async read(path: string, options: HostReadOptions = {}): Promise<ReadableStream<Uint8Array>> {
    this.#require('read');
    const args: unknown[] = [checkPath(path)];
    if (options.range !== undefined) {
      const [start, end] = options.range;
      if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
        throw new InvalidArgumentError('A read range is [start, end) with integers 0 ≤ start ≤ end.');
      }
      args.push({ range: [start, end] });
    }
    const { stream } = await this.#calls.call('read', args);
    if (stream === undefined) throw new ConnectorFailedError(`The ${this.label} connector's read() produced no stream.`);
    return stream;
  }

  async write(path: string, body: ReadableStream<Uint8Array>, options: { readonly ifMatch?: string } = {}): Promise<Entry> {
    this.#require('write');
    if (!(body instanceof ReadableStream)) throw new InvalidArgumentError('A write body must be a ReadableStream of bytes.');
    if (options.ifMatch !== undefined && typeof options.ifMatch !== 'string') throw new InvalidArgumentError('ifMatch must be a string.');
    const args = [checkPath(path), options.ifMatch === undefined ? {} : { ifMatch: options.ifMatch }];
    return readEntry((await this.#calls.call('write', args, body)).value, 'write', 'the result');
  }

  async delete(path: string): Promise<void> {
    this.#require('delete');
    await this.#calls.call('delete', [checkPath(path)]);
  }

  async watch(emit: (event: ChangeEvent) => void): Promise<() => Promise<void>> {
    this.#require('watch');
    if (typeof emit !== 'function') throw new InvalidArgumentError('watch needs an emit function.');
    return this.#calls.watch(emit);
  }

  /**
   * Hands an incoming webhook request to the module. The body is read here (at most
   * MAX_WEBHOOK_BYTES, else `too_large`); a module without webhook() answers `unsupported`.
   */
  async webhook(request: Request): Promise<ChangeEvent[]> {
    if (!(request instanceof Request)) throw new InvalidArgumentError('webhook needs a Request.');
    const bytes = request.body === null ? undefined : await readCapped(request.body, MAX_WEBHOOK_BYTES);
    const headers: [string, string][] = [];
    request.headers.forEach((value, name) => headers.push([name, value]));
    const spec = {
      url: request.url,
      method: request.method,
      headers,
      ...(bytes === undefined ? {} : { body: Buffer.from(bytes).toString('base64') }),
    };
    return readChangeEvents((await this.#calls.call('webhook', [spec])).value, 'webhook');
  }

  /** Unloads the module; calls in flight fail with `unavailable`. */
  dispose(): void {
    this.#calls.dispose();
  }

  #require(capability: HostCapability): void {
    if (!this.#description.capabilities.includes(capability)) throw new UnsupportedOperationError(this.#description.kind, capability);
  }
}

function checkPath(path: unknown): string {
  if (typeof path !== 'string') throw new InvalidArgumentError('A host path must be a string.');
  if (path.includes('\0')) throw new InvalidArgumentError('A host path must not contain a NUL byte.');
  return path;
}

async function readCapped(body: ReadableStream<Uint8Array>, cap: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let total = 0;
  const reader = body.getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel();
      throw new TooLargeError(`A webhook body may be at most ${cap} bytes.`, { details: { cap } });
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}
