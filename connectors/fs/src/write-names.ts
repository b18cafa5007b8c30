/**
 * Names of the temp files write() creates beside their target. Listings leave them out, so a
 * crawler never sees a half-written file. Fixed-length names keep the temp name valid even when
 * the target's own name is at the filesystem's length limit.
 */
import { randomBytes } from 'node:crypto';

const TEMP_NAME = /^\.inseam-[0-9a-f]{16}\.tmp$/;
const TEMP_NAME_LENGTH = '.inseam-'.length + 16 + '.tmp'.length;

export function isTempName(name: string): boolean {
  return name.length === TEMP_NAME_LENGTH && name.charCodeAt(0) === 46 && TEMP_NAME.test(name);
}

export function newTempName(): string {
  return `.inseam-${randomBytes(8).toString('hex')}.tmp`;
}
