/** Detached-run ownership on PostgreSQL. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import { missingHost } from '../sqlite/networks.js';
import type { DetachedRunInput, DetachedRunOwnership, DetachedRunStore } from '../types.js';
import { attempt, isUniqueViolation, type Db } from './database.js';
import { type DetachedRunRow, toOwnership } from '../rows.js';

const SELECT = `SELECT r.run_id, n.slug AS network, h.slug AS host, r.user_id, r.agent_id, r.created_at, r.released_at FROM detached_runs r
  JOIN hosts h ON h.id = r.host_id JOIN networks n ON n.id = h.network_id`;

export class PostgresDetachedRunStore implements DetachedRunStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  record(input: DetachedRunInput, now = Date.now()): Promise<DetachedRunOwnership> {
    return attempt('store the run owner', () =>
      this.#db.isolated(async (db) => {
        let inserted: number;
        try {
          inserted = await db.run(
            `INSERT INTO detached_runs (run_id, host_id, user_id, agent_id, created_at)
             SELECT $1, h.id, $4, $5, $6 FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = $2 AND h.slug = $3`,
            [input.runId, input.network, input.host, input.userId, input.agentId, now],
          );
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError(`A detached run "${input.runId}" is recorded already.`, { details: { runId: input.runId } });
          throw error;
        }
        if (inserted === 0) throw missingHost({ network: input.network, host: input.host });
        return (await this.#byId(db, input.runId))!;
      }),
    );
  }

  get(runId: string): Promise<DetachedRunOwnership | null> {
    return attempt('read the run owner', () => this.#byId(this.#db, runId));
  }

  listByUser(network: string, userId: string): Promise<DetachedRunOwnership[]> {
    return attempt('read the run owners', async () =>
      (await this.#db.query<DetachedRunRow>(`${SELECT} WHERE n.slug = $1 AND r.user_id = $2 AND r.released_at IS NULL ORDER BY r.created_at DESC, r.seq DESC`, [network, userId])).map(toOwnership),
    );
  }

  release(runId: string, now = Date.now()): Promise<boolean> {
    return attempt('store the run release', async () => (await this.#db.run('UPDATE detached_runs SET released_at = $1 WHERE run_id = $2 AND released_at IS NULL', [now, runId])) > 0);
  }

  async #byId(db: Db, runId: string): Promise<DetachedRunOwnership | null> {
    const row = await db.one<DetachedRunRow>(`${SELECT} WHERE r.run_id = $1`, [runId]);
    return row === undefined ? null : toOwnership(row);
  }
}
