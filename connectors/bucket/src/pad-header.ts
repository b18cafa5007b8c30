/**
 * The header at the start of every pad object file: 4 magic bytes `IPD1`, a 4-byte big-endian
 * length, then that many bytes of JSON `{ etag, mime, segment? }`; the content follows. The
 * header's length is fixed before the content is written (the etag is written as 32 zeros and
 * overwritten in place once the MD5 is known), so writing streams in one pass.
 */
import type { FileHandle } from 'node:fs/promises';
import { UnavailableError } from '@neuralis/package-system/contracts';

const MAGIC = Buffer.from('IPD1', 'latin1');
const PREFIX_BYTES = 8;
const MAX_JSON_BYTES = 64 * 1024;
export const ETAG_PLACEHOLDER = '0'.repeat(32);

export interface PadHeader {
  /** Hex MD5 of the content. */
  readonly etag: string;
  readonly mime: string;
  /** The key segment, kept only when the file name is a hash of it. */
  readonly segment?: string;
}

export function encodeHeader(header: PadHeader): Buffer {
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32BE(json.byteLength, 4);
  return Buffer.concat([prefix, json]);
}

/** Reads the header; returns it with its length in bytes. Throws `unavailable` for a damaged file. */
export async function readHeader(handle: FileHandle): Promise<{ header: PadHeader; length: number }> {
  const prefix = Buffer.alloc(PREFIX_BYTES);
  const { bytesRead } = await handle.read(prefix, 0, PREFIX_BYTES, 0);
  if (bytesRead !== PREFIX_BYTES || !prefix.subarray(0, 4).equals(MAGIC)) throw damaged();
  const jsonBytes = prefix.readUInt32BE(4);
  if (jsonBytes > MAX_JSON_BYTES) throw damaged();
  const json = Buffer.alloc(jsonBytes);
  const read = await handle.read(json, 0, jsonBytes, PREFIX_BYTES);
  if (read.bytesRead !== jsonBytes) throw damaged();
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString('utf8'));
  } catch {
    throw damaged();
  }
  const header = parsed as Partial<PadHeader> | null;
  if (header === null || typeof header.etag !== 'string' || typeof header.mime !== 'string') throw damaged();
  if (header.segment !== undefined && typeof header.segment !== 'string') throw damaged();
  return { header: header as PadHeader, length: PREFIX_BYTES + jsonBytes };
}

function damaged(): UnavailableError {
  return new UnavailableError('A pad object file is damaged (its header cannot be read).', { details: { reason: 'pad_object_damaged' } });
}
