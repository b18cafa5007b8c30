/** Detached-run ownership in SQLite. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import type { DetachedRunInput, DetachedRunOwnership, DetachedRunStore } from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { missingHost } from './networks.js';
import { type DetachedRunRow, toOwnership } from '../rows.js';

const SELECT = `SELECT r.*, n.slug AS network, h.slug AS host FROM detached_runs r
  JOIN hosts h ON h.id = r.host_id JOIN networks n ON n.id = h.network_id`;

export class SqliteDetachedRunStore implements DetachedRunStore {
  readonly #db: SqliteDatabase;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#prepare = cachedPrepare(db);
  }

  record(input: DetachedRunInput, now = Date.now()): Promise<DetachedRunOwnership> {
    return attempt('store the run owner', () =>
      this.#db.transaction(() => {
        const host = this.#prepare<[string, string], { id: number }>('SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?')
          .get(input.network, input.host);
        if (host === undefined) throw missingHost({ network: input.network, host: input.host });
        try {
          this.#prepare('INSERT INTO detached_runs (run_id, host_id, user_id, agent_id, created_at) VALUES (?, ?, ?, ?, ?)')
            .run(input.runId, host.id, input.userId, input.agentId, now);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError(`A detached run "${input.runId}" is recorded already.`, { details: { runId: input.runId } });
          throw error;
        }
        return this.#byId(input.runId)!;
      })(),
    );
  }

  get(runId: string): Promise<DetachedRunOwnership | null> {
    return attempt('read the run owner', () => this.#byId(runId));
  }

  listByUser(network: string, userId: string): Promise<DetachedRunOwnership[]> {
    return attempt('read the run owners', () =>
      this.#prepare<[string, string], DetachedRunRow>(`${SELECT} WHERE n.slug = ? AND r.user_id = ? AND r.released_at IS NULL ORDER BY r.created_at DESC, r.rowid DESC`)
        .all(network, userId)
        .map(toOwnership),
    );
  }

  release(runId: string, now = Date.now()): Promise<boolean> {
    return attempt('store the run release', () => this.#prepare('UPDATE detached_runs SET released_at = ? WHERE run_id = ? AND released_at IS NULL').run(now, runId).changes > 0);
  }

  #byId(runId: string): DetachedRunOwnership | null {
    const row = this.#prepare<[string], DetachedRunRow>(`${SELECT} WHERE r.run_id = ?`).get(runId);
    return row === undefined ? null : toOwnership(row);
  }
}
