/**
 * What comes back from a sandboxed module is untrusted data. These functions parse it without
 * letting it reach the platform's prototypes, check it against the host Connector types, and
 * rebuild each value from its known fields only (unknown fields are dropped). A value that breaks
 * the contract fails the call with `connector_failed`, naming the method and the field.
 */
import type { ChangeEvent, Entry, Envelope, HostListPage } from '@inseam/connector';
import {
  AlreadyExistsError,
  ConnectorFailedError,
  InvalidArgumentError,
  IsADirectoryError,
  NotADirectoryError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  RateLimitedError,
  SandboxLimitError,
  TimeoutError,
  TooLargeError,
  UnavailableError,
  UnsupportedOperationError,
  type ConnectorError,
} from '@neuralis/package-system/contracts';
import type { ModuleErrorInfo, SandboxLimitKind } from './protocol.js';

/** Keys a merge elsewhere could turn into prototype writes; they never survive parsing. */
export const POISON_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);
const MAY_CARRY_POISON = /"(?:__proto__|constructor|prototype)"\s*:/;

/**
 * JSON.parse that drops every `__proto__`, `constructor` and `prototype` key at any depth. (Plain
 * JSON.parse makes `__proto__` an own property rather than a prototype, but code that later merges
 * the value by assignment would write through it.) The reviver runs only when such a key appears.
 */
export function parseUntrustedJson(text: string): unknown {
  if (!MAY_CARRY_POISON.test(text)) return JSON.parse(text) as unknown;
  return JSON.parse(text, (key, value: unknown) => (POISON_KEYS.has(key) ? undefined : value)) as unknown;
}

function fail(method: string, where: string, problem: string): never {
  throw new ConnectorFailedError(`The connector's ${method}() broke the Connector contract: ${where} ${problem}`, {
    details: { method, field: where },
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function optionalString(value: Record<string, unknown>, key: string, method: string, where: string): string | undefined {
  const v = value[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') fail(method, `${where}.${key}`, 'is not a string.');
  return v;
}

function readEnvelope(value: unknown, method: string, where: string): Envelope {
  if (!isRecord(value)) fail(method, where, 'is not an object.');
  const direction = value['direction'];
  if (direction !== 'sent' && direction !== 'received' && direction !== 'owned') fail(method, `${where}.direction`, 'is not sent, received or owned.');
  const rawParties = value['parties'];
  if (!Array.isArray(rawParties)) fail(method, `${where}.parties`, 'is not an array.');
  const parties = rawParties.map((party, index) => {
    if (!isRecord(party) || typeof party['identity'] !== 'string' || typeof party['role'] !== 'string') {
      fail(method, `${where}.parties[${index}]`, 'is not { identity, role } strings.');
    }
    return { identity: party['identity'], role: party['role'] };
  });
  const envelope: { -readonly [K in keyof Envelope]: Envelope[K] } = { direction, parties };
  const auth = value['auth'];
  if (auth !== undefined && auth !== null) {
    if (!isRecord(auth)) fail(method, `${where}.auth`, 'is not an object.');
    const result: { dkim?: boolean; spf?: boolean; dmarc?: boolean } = {};
    for (const key of ['dkim', 'spf', 'dmarc'] as const) {
      const flag = auth[key];
      if (flag === undefined || flag === null) continue;
      if (typeof flag !== 'boolean') fail(method, `${where}.auth.${key}`, 'is not a boolean.');
      result[key] = flag;
    }
    envelope.auth = result;
  }
  const list = optionalString(value, 'list', method, where);
  if (list !== undefined) envelope.list = list;
  return envelope;
}

/** Checks one Entry and rebuilds it from its known fields. */
export function readEntry(value: unknown, method: string, where: string): Entry {
  if (!isRecord(value)) fail(method, where, 'is not an object.');
  const path = value['path'];
  if (typeof path !== 'string') fail(method, `${where}.path`, 'is not a string.');
  const entry: { -readonly [K in keyof Entry]: Entry[K] } = { path };
  const size = value['size'];
  if (size !== undefined && size !== null) {
    if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) fail(method, `${where}.size`, 'is not a non-negative integer.');
    entry.size = size;
  }
  for (const key of ['mtime', 'etag', 'mime', 'nativeHash', 'nativeId'] as const) {
    const text = optionalString(value, key, method, where);
    if (text !== undefined) entry[key] = text;
  }
  if (entry.mtime !== undefined && Number.isNaN(Date.parse(entry.mtime))) fail(method, `${where}.mtime`, 'is not an RFC 3339 date.');
  if (value['envelope'] !== undefined && value['envelope'] !== null) entry.envelope = readEnvelope(value['envelope'], method, `${where}.envelope`);
  const extra = value['extra'];
  if (extra !== undefined && extra !== null) {
    if (!isRecord(extra)) fail(method, `${where}.extra`, 'is not an object.');
    entry.extra = extra;
  }
  return entry;
}

export function readListPage(value: unknown): HostListPage {
  if (!isRecord(value)) fail('list', 'the result', 'is not { entries, cursor? }.');
  const entries = value['entries'];
  if (!Array.isArray(entries)) fail('list', 'entries', 'is not an array.');
  const page: { entries: Entry[]; cursor?: string } = { entries: entries.map((entry, index) => readEntry(entry, 'list', `entries[${index}]`)) };
  const cursor = optionalString(value, 'cursor', 'list', 'the result');
  if (cursor !== undefined && cursor !== '') page.cursor = cursor;
  return page;
}

export function readStat(value: unknown): Entry | null {
  return value === null || value === undefined ? null : readEntry(value, 'stat', 'the result');
}

const EVENT_TYPES: ReadonlySet<string> = new Set(['put', 'delete', 'move', 'rescan']);

export function readChangeEvent(value: unknown, method: string, where: string): ChangeEvent {
  if (!isRecord(value)) fail(method, where, 'is not an object.');
  const type = value['type'];
  if (typeof type !== 'string' || !EVENT_TYPES.has(type)) fail(method, `${where}.type`, 'is not put, delete, move or rescan.');
  const path = value['path'];
  if (typeof path !== 'string') fail(method, `${where}.path`, 'is not a string.');
  const event: { -readonly [K in keyof ChangeEvent]: ChangeEvent[K] } = { type: type as ChangeEvent['type'], path };
  const from = optionalString(value, 'from', method, where);
  if (type === 'move' && from === undefined) fail(method, `${where}.from`, 'is missing; a move names where it came from.');
  if (from !== undefined) event.from = from;
  if (value['entry'] !== undefined && value['entry'] !== null) event.entry = readEntry(value['entry'], method, `${where}.entry`);
  return event;
}

export function readChangeEvents(value: unknown, method: string): ChangeEvent[] {
  if (!Array.isArray(value)) fail(method, 'the result', 'is not an array of change events.');
  return value.map((event, index) => readChangeEvent(event, method, `[${index}]`));
}

const MAX_MODULE_MESSAGE = 300;

/** Codes a module may raise deliberately; they pass through with the module's (cut) message. */
const PASSTHROUGH: Readonly<Record<string, (message: string) => ConnectorError>> = {
  not_found: (m) => new NotFoundError(m),
  already_exists: (m) => new AlreadyExistsError(m),
  precondition_failed: (m) => new PreconditionFailedError(m),
  permission_denied: (m) => new PermissionDeniedError(m),
  invalid_argument: (m) => new InvalidArgumentError(m),
  rate_limited: (m) => new RateLimitedError(m),
  unavailable: (m) => new UnavailableError(m),
  timeout: (m) => new TimeoutError(m),
  too_large: (m) => new TooLargeError(m),
  is_a_directory: (m) => new IsADirectoryError(m),
  not_a_directory: (m) => new NotADirectoryError(m),
};

export function moduleText(value: string | undefined): string {
  const text = (value ?? '').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, ' ').trim();
  return text.length > MAX_MODULE_MESSAGE ? `${text.slice(0, MAX_MODULE_MESSAGE)}…` : text;
}

/**
 * The typed error for a failed call. A limit breach is `sandbox_limit`; a module error carrying
 * one of the passthrough codes keeps that code; `unsupported` names the kind describe() declared
 * (the label until then) and the method, followed by the module's own message, which says what is
 * not supported; anything else (a bug, a TypeError, a crash) is `connector_failed`.
 */
export function callError(label: string, method: string, error: ModuleErrorInfo, limit: SandboxLimitKind | undefined, kind?: string): ConnectorError {
  const text = moduleText(error.message);
  if (limit !== undefined) {
    return new SandboxLimitError(`${label}: ${method}() failed: ${text || `the ${limit} limit was broken`}`, { details: { limit, module: label, method } });
  }
  const code = error.code;
  if (code === 'unsupported') {
    const unsupported = new UnsupportedOperationError(kind ?? label, method, undefined, { details: { module: label } });
    if (text !== '') unsupported.message = `${unsupported.message.slice(0, -1)}: ${text}`;
    return unsupported;
  }
  const make = code === undefined ? undefined : PASSTHROUGH[code];
  if (make !== undefined) return make(`${label}: ${text || code}`);
  const name = moduleText(error.name) || 'Error';
  return new ConnectorFailedError(`The ${label} connector failed in ${method}(): ${name}: ${text}`, { details: { module: label, method } });
}
