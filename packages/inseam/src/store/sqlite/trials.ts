/** Trial records in SQLite. */
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { TrialInput, TrialRecord, TrialStore } from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { missingNetwork } from './networks.js';
import { type TrialRow, toTrial } from '../rows.js';

/** The refusal to delete an approved trial (both stores). */
export function approvedStays(id: string): PreconditionFailedError {
  return new PreconditionFailedError(`Trial "${id}" is approved: it stays as the record of that approval.`, { details: { trial: id, reason: 'approved' } });
}

const SELECT = 'SELECT t.*, n.slug AS network FROM trials t JOIN networks n ON n.id = t.network_id';

export class SqliteTrialStore implements TrialStore {
  readonly #db: SqliteDatabase;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#prepare = cachedPrepare(db);
  }

  record(input: TrialInput, now = Date.now()): Promise<TrialRecord> {
    return attempt('store the trial', () =>
      this.#db.transaction(() => {
        const network = this.#prepare<[string], { id: number }>('SELECT id FROM networks WHERE slug = ?').get(input.network);
        if (network === undefined) throw missingNetwork(input.network);
        try {
          this.#prepare('INSERT INTO trials (id, network_id, kind, module_hash, passed, report, origins, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
            .run(input.id, network.id, input.kind, input.moduleHash, input.passed ? 1 : 0, JSON.stringify(input.report), JSON.stringify(input.origins), now);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError(`A trial "${input.id}" is recorded already.`, { details: { trial: input.id } });
          throw error;
        }
        return this.#byId(input.id)!;
      })(),
    );
  }

  get(id: string): Promise<TrialRecord | null> {
    return attempt('read the trial', () => this.#byId(id));
  }

  latest(network: string, kind: string): Promise<TrialRecord | null> {
    return attempt('read the trials', () => {
      const row = this.#prepare<[string, string], TrialRow>(`${SELECT} WHERE n.slug = ? AND t.kind = ? ORDER BY t.created_at DESC, t.rowid DESC LIMIT 1`).get(network, kind);
      return row === undefined ? null : toTrial(row);
    });
  }

  approve(id: string, by: string, now = Date.now()): Promise<TrialRecord> {
    return attempt('store the approval', () =>
      this.#db.transaction(() => {
        const trial = this.#byId(id);
        if (trial === null) throw new NotFoundError(`There is no trial "${id}".`, { details: { trial: id } });
        if (!trial.passed) throw new PreconditionFailedError(`Trial "${id}" did not pass; only a passed trial can be approved.`, { details: { trial: id, reason: 'trial_failed' } });
        if (trial.approvedAt !== null) throw new PreconditionFailedError(`Trial "${id}" was approved already.`, { details: { trial: id, reason: 'already_approved' } });
        this.#prepare('UPDATE trials SET approved_by = ?, approved_at = ? WHERE id = ?').run(by, now, id);
        return this.#byId(id)!;
      })(),
    );
  }

  delete(id: string): Promise<boolean> {
    return attempt('delete the trial', () =>
      this.#db.transaction(() => {
        const trial = this.#byId(id);
        if (trial === null) return false;
        if (trial.approvedAt !== null) throw approvedStays(id);
        this.#prepare('DELETE FROM trials WHERE id = ?').run(id);
        return true;
      })(),
    );
  }

  #byId(id: string): TrialRecord | null {
    const row = this.#prepare<[string], TrialRow>(`${SELECT} WHERE t.id = ?`).get(id);
    return row === undefined ? null : toTrial(row);
  }
}
