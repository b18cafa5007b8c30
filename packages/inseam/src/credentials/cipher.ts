/**
 * Sealing one record. AES-256-GCM with a 16-byte tag, a fresh random 12-byte IV per write, and
 * the record's scope and id as associated data (see scope.ts), so a ciphertext that is altered,
 * or moved to another record, fails authentication instead of decrypting to someone else's secret.
 *
 * Sealed layout (one BLOB): `version (1 byte) = 1 | iv (12) | tag (16) | ciphertext`.
 *
 * The AES key is not the master key itself: HKDF-SHA256 derives one key for records and one for
 * the key check (an HMAC the store keeps to tell a wrong master key from a damaged record).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { InvalidConfigError, UnavailableError } from '@neuralis/package-system/contracts';
import { MASTER_KEY_BYTES } from './master-key.js';

const FORMAT_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const HEADER_BYTES = 1 + IV_BYTES + TAG_BYTES;
const ALGORITHM = 'aes-256-gcm';

function derive(masterKey: Uint8Array, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `inseam credentials ${purpose}`, 32));
}

export class RecordCipher {
  readonly #recordKey: Buffer;
  readonly #checkKey: Buffer;

  /** Throws `invalid_config` when the master key is not 32 bytes. */
  constructor(masterKey: Uint8Array) {
    if (masterKey.length !== MASTER_KEY_BYTES) {
      throw new InvalidConfigError(`The master key must be exactly ${MASTER_KEY_BYTES} bytes.`, { details: { reason: 'master_key_malformed' } });
    }
    this.#recordKey = derive(masterKey, 'record key v1');
    this.#checkKey = derive(masterKey, 'key check v1');
  }

  /** A value that identifies the master key without revealing it; the store remembers the first one. */
  keyCheck(): Buffer {
    return createHmac('sha256', this.#checkKey).update('inseam credential store key check').digest();
  }

  seal(plaintext: Uint8Array, associatedData: Uint8Array): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.#recordKey, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData);
    const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, cipher.getAuthTag(), ciphertext]);
  }

  /**
   * The plaintext of `sealed`. Throws `unavailable` (details.reason `integrity_check_failed`)
   * when the layout is wrong, the tag does not verify, or the associated data differs from the
   * one it was sealed with.
   */
  open(sealed: Uint8Array, associatedData: Uint8Array): Buffer {
    const bytes = Buffer.from(sealed.buffer, sealed.byteOffset, sealed.byteLength);
    if (bytes.length < HEADER_BYTES || bytes[0] !== FORMAT_VERSION) throw integrityError();
    const iv = bytes.subarray(1, 1 + IV_BYTES);
    const tag = bytes.subarray(1 + IV_BYTES, HEADER_BYTES);
    const decipher = createDecipheriv(ALGORITHM, this.#recordKey, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(associatedData);
    decipher.setAuthTag(tag);
    try {
      return Buffer.concat([decipher.update(bytes.subarray(HEADER_BYTES)), decipher.final()]);
    } catch {
      throw integrityError();
    }
  }
}

function integrityError(): UnavailableError {
  return new UnavailableError(
    'A stored credential failed its integrity check: it was altered or copied from another record. Store the credential again.',
    { details: { reason: 'integrity_check_failed' } },
  );
}
