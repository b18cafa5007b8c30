/**
 * Input objects as the service takes them: copied field by field into fresh objects, so only the
 * fields an operation defines are read (once) and anything else on them — a `session`, a
 * `userId`, a `canRead` — never reaches a check. Malformed fields are `invalid_argument` naming
 * the field.
 */
import { InvalidArgumentError } from '@neuralis/package-system/contracts';
import type { ListDetail } from '@neuralis/package-system/contracts';
import type { Target } from './access.js';
import type { FsReadOptions } from './types.js';

export const DEFAULT_LIST_LIMIT = 1000;
export const MAX_LIST_LIMIT = 1000;
/** Names-only pages are a fifth the size of full ones, so they may hold more. */
export const DEFAULT_NAMES_LIST_LIMIT = 5000;
export const MAX_NAMES_LIST_LIMIT = 10_000;

export type ListCursor = { readonly mode: 'live'; readonly value: string } | { readonly mode: 'catalog'; readonly after: string };

export function inputObject(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new InvalidArgumentError(`${name} must be an object.`, { details: { argument: name } });
  return value as Record<string, unknown>;
}

export function optionalString(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new InvalidArgumentError(`${name} must be a string.`, { details: { argument: name } });
  return value;
}

export function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'boolean') throw new InvalidArgumentError(`${name} must be true or false.`, { details: { argument: name } });
  return value;
}

export function optionalStrings(value: unknown, name: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new InvalidArgumentError(`${name} must be an array of strings.`, { details: { argument: name } });
  return [...(value)];
}

export function copyRange(value: unknown): { readonly offset: number; readonly length?: number } | undefined {
  if (value === undefined) return undefined;
  const range = inputObject(value, 'range');
  const offset = range['offset'];
  const length = range['length'];
  if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
    throw new InvalidArgumentError('range.offset must be a whole number of bytes, 0 or more.', { details: { argument: 'range.offset' } });
  }
  if (length !== undefined && (typeof length !== 'number' || !Number.isSafeInteger(length) || length < 0)) {
    throw new InvalidArgumentError('range.length must be a whole number of bytes, 0 or more.', { details: { argument: 'range.length' } });
  }
  return length === undefined ? { offset } : { offset, length };
}

export function copyReadOptions(value: unknown): FsReadOptions {
  const given = inputObject(value, 'options');
  const range = copyRange(given['range']);
  const lines = given['lines'] === undefined ? undefined : inputObject(given['lines'], 'lines');
  const maxBytes = given['maxBytes'];
  if (maxBytes !== undefined && typeof maxBytes !== 'number') throw new InvalidArgumentError('maxBytes must be a number of bytes.', { details: { argument: 'maxBytes' } });
  return {
    ...(range === undefined ? {} : { range }),
    ...(lines === undefined ? {} : { lines: { start: lines['start'] as number, ...(lines['count'] === undefined ? {} : { count: lines['count'] as number }) } }),
    ...(maxBytes === undefined ? {} : { maxBytes }),
  };
}

export function copyWriteOptions(value: unknown): { ifMatch?: string; createOnly?: boolean; mime?: string } {
  const given = inputObject(value, 'options');
  const ifMatch = optionalString(given['ifMatch'], 'ifMatch');
  const createOnly = optionalBoolean(given['createOnly'], 'createOnly');
  const mime = optionalString(given['mime'], 'mime');
  return { ...(ifMatch === undefined ? {} : { ifMatch }), ...(createOnly === undefined ? {} : { createOnly }), ...(mime === undefined ? {} : { mime }) };
}

export interface CopiedExecRequest {
  readonly command: string;
  readonly cwd: string;
  readonly timeout?: unknown;
  readonly env?: unknown;
  readonly background?: boolean;
}

/** The request's own fields only; the loader's guard validates timeout and env again. */
export function copyExecRequest(value: unknown): CopiedExecRequest {
  const given = inputObject(value, 'request');
  const command = given['command'];
  const cwd = given['cwd'];
  if (typeof command !== 'string' || command === '') throw new InvalidArgumentError('command must be a non-empty string.', { details: { argument: 'command' } });
  if (typeof cwd !== 'string') throw new InvalidArgumentError('cwd must be the address of a directory.', { details: { argument: 'cwd' } });
  const background = optionalBoolean(given['background'], 'background');
  return {
    command,
    cwd,
    ...(given['timeout'] === undefined ? {} : { timeout: given['timeout'] }),
    ...(given['env'] === undefined ? {} : { env: given['env'] }),
    ...(background === undefined ? {} : { background }),
  };
}

/**
 * The port's request: the cwd as the host's source URI. `background` never goes through: exec
 * refuses it before dispatch, and a detached start is detached by being one.
 */
export function execRequest(copied: CopiedExecRequest, target: Target): { command: string; cwd: string; timeout?: number; env?: Record<string, string> } {
  return {
    command: copied.command,
    cwd: target.uri,
    ...(copied.timeout === undefined ? {} : { timeout: copied.timeout as number }),
    ...(copied.env === undefined ? {} : { env: copied.env as Record<string, string> }),
  };
}

export function listLimit(value: unknown, detail: ListDetail): number {
  const max = detail === 'names' ? MAX_NAMES_LIST_LIMIT : MAX_LIST_LIMIT;
  if (value === undefined) return detail === 'names' ? DEFAULT_NAMES_LIST_LIMIT : DEFAULT_LIST_LIMIT;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new InvalidArgumentError(`limit must be a whole number from 1 to ${max}${detail === 'names' ? ' for a names-only listing' : ''}.`, { details: { argument: 'limit' } });
  }
  return value;
}

export function listDetail(value: unknown): ListDetail {
  if (value === undefined || value === 'full' || value === 'names') return value ?? 'full';
  throw new InvalidArgumentError("detail must be 'full' or 'names'.", { details: { argument: 'detail' } });
}

export function encodeListCursor(mode: 'l' | 'c', value: string): string {
  return `${mode}.${Buffer.from(value, 'utf8').toString('base64url')}`;
}

export function decodeListCursor(value: unknown): ListCursor | undefined {
  if (value === undefined) return undefined;
  const match = typeof value === 'string' ? /^([lc])\.([A-Za-z0-9_-]*)$/.exec(value) : null;
  if (match === null) throw new InvalidArgumentError('The cursor is not one this listing returned.', { details: { argument: 'cursor' } });
  const decoded = Buffer.from(match[2]!, 'base64url').toString('utf8');
  return match[1] === 'l' ? { mode: 'live', value: decoded } : { mode: 'catalog', after: decoded };
}

export function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 1) throw new InvalidArgumentError(`${name} must be a whole number, 1 or more.`, { details: { argument: name } });
  return value;
}
