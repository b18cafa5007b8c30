/**
 * The data directory's record of connector config schemas that passed the package system's
 * checks (`CheckedSchemaRecord`): every start loads the same built-in manifests, and checking their
 * schemas against the draft-07 meta-schema and compiling them in strict mode was the largest piece
 * of a command's start. A key names the exact schema text and the exact checker, so nothing but
 * a schema that passed this checker is ever skipped.
 *
 * The file is a list of hex keys, one a line, rewritten whole (to a temporary file, then renamed)
 * when a key is added, so a reader never sees half a file; two processes adding at once may lose one
 * of their keys, which costs only a check at the next start. A file that cannot be read or holds
 * anything but keys counts as empty. It lives beside the store and the master key, under the same
 * 0700 directory: whoever can write it can already write the store.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { CheckedSchemaRecord } from '@neuralis/package-system/manifest';

/** Keys kept; the oldest go first. A deployment has a few dozen schemas at most. */
const MAX_KEYS = 512;
const KEY = /^[0-9a-f]{64}$/u;

export class CheckedSchemaFile implements CheckedSchemaRecord {
  readonly #path: string;
  readonly #keys: Set<string>;

  constructor(path: string) {
    this.#path = path;
    this.#keys = new Set(readKeys(path));
  }

  has(key: string): boolean {
    return this.#keys.has(key);
  }

  add(key: string): void {
    if (!KEY.test(key) || this.#keys.has(key)) return;
    this.#keys.add(key);
    for (const old of this.#keys) {
      if (this.#keys.size <= MAX_KEYS) break;
      this.#keys.delete(old);
    }
    const temporary = `${this.#path}.${process.pid}.tmp`;
    try {
      writeFileSync(temporary, `${[...this.#keys].join('\n')}\n`, { mode: 0o600 });
      renameSync(temporary, this.#path);
    } catch {
      // Only a start's speed depends on the file: a read-only data directory checks every time.
    }
  }
}

function readKeys(path: string): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return [];
  }
  const lines = text.split('\n').filter((line) => line !== '');
  return lines.every((line) => KEY.test(line)) ? lines : [];
}
