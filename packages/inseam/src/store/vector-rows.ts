/**
 * Vector rows as both stores read them back, and the records they become (the schemas name their
 * columns alike), plus the one SQL select both build records from.
 */
import { InvalidArgumentError, NotFoundError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { ContentExpectation, VectorEntryRecord, VectorState } from './vector-types.js';

export interface VectorEntryRow {
  entry_id: number;
  host_id: number;
  network: string;
  host: string;
  path: string;
  model: string;
  state: VectorState;
  content_key: string | null;
  chunks: number;
  attempts: number;
  error_code: string | null;
  error_message: string | null;
  indexed_at: number | null;
  updated_at: number;
}

/** The columns of a VectorEntryRow, over `vector_entries v` joined as RECORD_FROM joins it. */
export const RECORD_COLUMNS = `v.entry_id, v.host_id, n.slug AS network, h.slug AS host, e.path, m.model, v.state, v.content_key, v.chunks, v.attempts,
  v.error_code, v.error_message, v.indexed_at, v.updated_at`;
export const RECORD_FROM = `vector_entries v JOIN vector_models m ON m.id = v.model_id JOIN catalog_entries e ON e.id = v.entry_id
  JOIN hosts h ON h.id = v.host_id JOIN networks n ON n.id = h.network_id`;

export function toVectorEntry(row: VectorEntryRow): VectorEntryRecord {
  return {
    entryId: row.entry_id,
    hostId: row.host_id,
    host: { network: row.network, host: row.host },
    path: row.path,
    model: row.model,
    state: row.state,
    contentKey: row.content_key,
    chunks: row.chunks,
    attempts: row.attempts,
    error: row.error_code === null ? null : { code: row.error_code, message: row.error_message ?? '' },
    indexedAt: row.indexed_at,
    updatedAt: row.updated_at,
  };
}

/** What a write checks the catalog entry against. */
export interface EntryContentRow {
  id: number;
  host_id: number;
  content_state: string;
  content_key: string | null;
  updated_at: number;
}

/**
 * Throws `not_found` when the entry is gone and `precondition_failed` when its content is no longer
 * the indexed text `expect` describes — the embedding was made from text the catalog replaced.
 */
export function checkExpectation(entryId: number, row: EntryContentRow | undefined, expect: ContentExpectation): EntryContentRow {
  if (row === undefined) throw new NotFoundError(`Catalog entry ${entryId} does not exist (it was deleted); its embedding is not stored.`, { details: { entryId } });
  if (row.content_state !== 'indexed' || row.content_key !== (expect?.contentKey ?? null) || row.updated_at !== expect?.updatedAt) {
    throw new PreconditionFailedError(`The content of catalog entry ${entryId} changed since it was read for embedding; nothing was stored. Read it again and embed the new text.`, {
      details: { entryId, reason: 'content_changed' },
    });
  }
  return row;
}

/** `limit`, or 100, at most 1000. Throws `invalid_argument` unless it is a whole number of 1 or more. */
export function pageLimit(limit: number | undefined): number {
  if (limit === undefined) return 100;
  if (!Number.isInteger(limit) || limit < 1) throw new InvalidArgumentError(`limit must be a whole number from 1 to 1000; it is ${String(limit)}.`, { details: { argument: 'limit' } });
  return Math.min(limit, 1000);
}
