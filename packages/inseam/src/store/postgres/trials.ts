/** Trial records on PostgreSQL. */
import { AlreadyExistsError, NotFoundError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import { missingNetwork } from '../sqlite/networks.js';
import { approvedStays } from '../sqlite/trials.js';
import type { TrialInput, TrialRecord, TrialStore } from '../types.js';
import { attempt, isUniqueViolation, type Db } from './database.js';
import { type TrialRow, toTrial } from '../rows.js';

const SELECT = `SELECT t.id, n.slug AS network, t.kind, t.module_hash, t.passed, t.report, t.origins, t.created_at, t.approved_by, t.approved_at
  FROM trials t JOIN networks n ON n.id = t.network_id`;

export class PostgresTrialStore implements TrialStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  record(input: TrialInput, now = Date.now()): Promise<TrialRecord> {
    return attempt('store the trial', () =>
      this.#db.isolated(async (db) => {
        let inserted: number;
        try {
          inserted = await db.run(
            `INSERT INTO trials (id, network_id, kind, module_hash, passed, report, origins, created_at)
             SELECT $1, id, $3, $4, $5, $6, $7, $8 FROM networks WHERE slug = $2`,
            [input.id, input.network, input.kind, input.moduleHash, input.passed, JSON.stringify(input.report), JSON.stringify(input.origins), now],
          );
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError(`A trial "${input.id}" is recorded already.`, { details: { trial: input.id } });
          throw error;
        }
        if (inserted === 0) throw missingNetwork(input.network);
        return (await this.#byId(db, input.id))!;
      }),
    );
  }

  get(id: string): Promise<TrialRecord | null> {
    return attempt('read the trial', () => this.#byId(this.#db, id));
  }

  latest(network: string, kind: string): Promise<TrialRecord | null> {
    return attempt('read the trials', async () => {
      const row = await this.#db.one<TrialRow>(`${SELECT} WHERE n.slug = $1 AND t.kind = $2 ORDER BY t.created_at DESC, t.seq DESC LIMIT 1`, [network, kind]);
      return row === undefined ? null : toTrial(row);
    });
  }

  approve(id: string, by: string, now = Date.now()): Promise<TrialRecord> {
    return attempt('store the approval', () =>
      this.#db.transaction(async (db) => {
        const row = await db.one<TrialRow>(`${SELECT} WHERE t.id = $1 FOR UPDATE OF t`, [id]);
        if (row === undefined) throw new NotFoundError(`There is no trial "${id}".`, { details: { trial: id } });
        if (!row.passed) throw new PreconditionFailedError(`Trial "${id}" did not pass; only a passed trial can be approved.`, { details: { trial: id, reason: 'trial_failed' } });
        if (row.approved_at !== null) throw new PreconditionFailedError(`Trial "${id}" was approved already.`, { details: { trial: id, reason: 'already_approved' } });
        await db.run('UPDATE trials SET approved_by = $1, approved_at = $2 WHERE id = $3', [by, now, id]);
        return toTrial({ ...row, approved_by: by, approved_at: now });
      }),
    );
  }

  delete(id: string): Promise<boolean> {
    return attempt('delete the trial', () =>
      this.#db.transaction(async (db) => {
        const row = await db.one<TrialRow>(`${SELECT} WHERE t.id = $1 FOR UPDATE OF t`, [id]);
        if (row === undefined) return false;
        if (row.approved_at !== null) throw approvedStays(id);
        await db.run('DELETE FROM trials WHERE id = $1', [id]);
        return true;
      }),
    );
  }

  async #byId(db: Db, id: string): Promise<TrialRecord | null> {
    const row = await db.one<TrialRow>(`${SELECT} WHERE t.id = $1`, [id]);
    return row === undefined ? null : toTrial(row);
  }
}
