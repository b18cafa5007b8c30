import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../contracts/errors.js';
import { CONTAINMENT_ERROR_CODES, fromSystemError } from './errors.js';

const HOST_PATH = '/home/someone/private/data';

function systemError(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: failed, open '${HOST_PATH}/x'`), { code, path: `${HOST_PATH}/x`, syscall: 'open' });
}

describe('fromSystemError', () => {
  it.each([
    ['ENOENT', 'not_found'],
    ['ENOTDIR', 'not_a_directory'],
    ['EACCES', 'permission_denied'],
    ['EPERM', 'permission_denied'],
    ['EROFS', 'permission_denied'],
    ['ELOOP', 'invalid_path'],
    ['ENAMETOOLONG', 'invalid_path'],
    ['EEXIST', 'already_exists'],
    ['EISDIR', 'is_a_directory'],
    ['ENXIO', 'unsupported_file_type'],
    ['ENODEV', 'unsupported_file_type'],
    ['EOPNOTSUPP', 'unsupported_file_type'],
    ['EMFILE', 'unavailable'],
    ['ENFILE', 'unavailable'],
    ['EIO', 'unavailable'],
    ['ESOMETHINGNEW', 'unavailable'],
  ])('spec: %s maps to %s, a fixed code, and the message drops the path', (errno, code) => {
    for (const site of ['root', 'target'] as const) {
      const error = fromSystemError(systemError(errno), site);
      expect(error.code).toBe(code);
      expect(CONTAINMENT_ERROR_CODES).toContain(error.code);
      expect(error.message).not.toContain(HOST_PATH);
      expect(JSON.stringify(error.toJSON())).not.toContain(HOST_PATH);
      expect(error.cause).toBeUndefined();
      expect(error.details).toMatchObject({ errno, reason: site });
    }
  });

  it('spec: a non-system error still maps into the fixed set', () => {
    expect(fromSystemError(new TypeError(`bad ${HOST_PATH}`), 'target').code).toBe('unavailable');
    expect(fromSystemError(undefined, 'target').message).not.toContain(HOST_PATH);
  });

  it('spec: CONTAINMENT_ERROR_CODES is a fixed subset of the contract codes', () => {
    expect(CONTAINMENT_ERROR_CODES.every((code) => (ERROR_CODES as readonly string[]).includes(code))).toBe(true);
  });
});
