/** Networks and hosts on PostgreSQL. */
import { AlreadyExistsError } from '@neuralis/package-system/contracts';
import { missingHost, missingNetwork } from '../sqlite/networks.js';
import type { HostInput, HostPatch, HostRecord, HostRef, HostStore, NetworkInput, NetworkRecord, NetworkStore } from '../types.js';
import { attempt, isUniqueViolation, type Db } from './database.js';
import { type NetworkRow, type HostRow, toNetwork, toHost } from '../rows.js';

export class PostgresNetworkStore implements NetworkStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  create(input: NetworkInput, now = Date.now()): Promise<NetworkRecord> {
    return attempt('store the network', () =>
      this.#db.isolated(async (db) => {
        try {
          const row = await db.one<NetworkRow>('INSERT INTO networks (slug, label, created_at, updated_at) VALUES ($1, $2, $3, $3) RETURNING *', [input.slug, input.label ?? input.slug, now]);
          return toNetwork(row!);
        } catch (error) {
          if (isUniqueViolation(error)) throw new AlreadyExistsError(`A network "${input.slug}" exists already; choose another slug.`, { details: { network: input.slug } });
          throw error;
        }
      }),
    );
  }

  get(slug: string): Promise<NetworkRecord | null> {
    return attempt('read the network', async () => {
      const row = await this.#db.one<NetworkRow>('SELECT * FROM networks WHERE slug = $1', [slug]);
      return row === undefined ? null : toNetwork(row);
    });
  }

  list(): Promise<NetworkRecord[]> {
    return attempt('read the networks', async () => (await this.#db.query<NetworkRow>('SELECT * FROM networks ORDER BY slug')).map(toNetwork));
  }

  update(slug: string, patch: { readonly label: string }, now = Date.now()): Promise<NetworkRecord> {
    return attempt('store the network', async () => {
      const row = await this.#db.one<NetworkRow>('UPDATE networks SET label = $1, updated_at = $2 WHERE slug = $3 RETURNING *', [patch.label, now, slug]);
      if (row === undefined) throw missingNetwork(slug);
      return toNetwork(row);
    });
  }

  delete(slug: string): Promise<boolean> {
    return attempt('delete the network', async () => (await this.#db.run('DELETE FROM networks WHERE slug = $1', [slug])) > 0);
  }
}

const HOST_COLUMNS = `h.id, n.slug AS network, h.slug, h.kind, h.label, h.description, h.config, h.scope, h.sync, h.permissions, h.origin,
  h.honours_order, h.ownership, h.owner_id, h.private_origins, h.created_at, h.updated_at`;
const HOST_FROM = 'hosts h JOIN networks n ON n.id = h.network_id';

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

function originsOrNull(origins: readonly string[] | undefined): string | null {
  return origins === undefined || origins.length === 0 ? null : JSON.stringify(origins);
}

export class PostgresHostStore implements HostStore {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  create(network: string, input: HostInput, now = Date.now()): Promise<HostRecord> {
    return attempt('store the host', () =>
      this.#db.isolated(async (db) => {
        let row: HostRow | undefined;
        try {
          row = await db.one<HostRow>(
            `WITH h AS (
               INSERT INTO hosts (network_id, slug, kind, label, description, config, scope, sync, permissions, origin, honours_order, ownership, owner_id,
                 private_origins, created_at, updated_at)
               SELECT id, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $15 FROM networks WHERE slug = $1
               RETURNING *
             )
             SELECT ${HOST_COLUMNS} FROM h JOIN networks n ON n.id = h.network_id`,
            [
              network,
              input.slug,
              input.kind,
              input.label ?? input.slug,
              input.description ?? '',
              JSON.stringify(input.config ?? {}),
              jsonOrNull(input.scope),
              jsonOrNull(input.sync),
              jsonOrNull(input.permissions),
              input.origin ?? null,
              input.honoursOrder === true,
              input.ownership ?? 'project',
              input.ownerId ?? null,
              originsOrNull(input.privateOrigins),
              now,
            ],
          );
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new AlreadyExistsError(`Network "${network}" has a host "${input.slug}" already; choose another slug.`, { details: { network, host: input.slug } });
          }
          throw error;
        }
        if (row === undefined) throw missingNetwork(network);
        return toHost(row);
      }),
    );
  }

  get(ref: HostRef): Promise<HostRecord | null> {
    return attempt('read the host', async () => {
      const row = await this.#db.one<HostRow>(`SELECT ${HOST_COLUMNS} FROM ${HOST_FROM} WHERE n.slug = $1 AND h.slug = $2`, [ref.network, ref.host]);
      return row === undefined ? null : toHost(row);
    });
  }

  list(network: string): Promise<HostRecord[]> {
    return attempt('read the hosts', async () => (await this.#db.query<HostRow>(`SELECT ${HOST_COLUMNS} FROM ${HOST_FROM} WHERE n.slug = $1 ORDER BY h.slug`, [network])).map(toHost));
  }

  update(ref: HostRef, patch: HostPatch, now = Date.now()): Promise<HostRecord> {
    return attempt('store the host', async () => {
      const sets: string[] = [];
      const values: unknown[] = [ref.network, ref.host];
      const set = (column: string, value: unknown): void => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (patch.label !== undefined) set('label', patch.label);
      if (patch.description !== undefined) set('description', patch.description);
      if (patch.config !== undefined) set('config', JSON.stringify(patch.config));
      if (patch.scope !== undefined) set('scope', jsonOrNull(patch.scope));
      if (patch.sync !== undefined) set('sync', jsonOrNull(patch.sync));
      if (patch.permissions !== undefined) set('permissions', jsonOrNull(patch.permissions));
      if (patch.origin !== undefined) set('origin', patch.origin);
      if (patch.honoursOrder !== undefined) set('honours_order', patch.honoursOrder);
      if (patch.ownership !== undefined) set('ownership', patch.ownership);
      if (patch.ownerId !== undefined) set('owner_id', patch.ownerId);
      if (patch.privateOrigins !== undefined) set('private_origins', originsOrNull(patch.privateOrigins));
      set('updated_at', now);
      const row = await this.#db.one<HostRow>(
        `WITH h AS (
           UPDATE hosts SET ${sets.join(', ')}
           WHERE id = (SELECT h.id FROM ${HOST_FROM} WHERE n.slug = $1 AND h.slug = $2)
           RETURNING *
         )
         SELECT ${HOST_COLUMNS} FROM h JOIN networks n ON n.id = h.network_id`,
        values,
      );
      if (row === undefined) throw missingHost(ref);
      return toHost(row);
    });
  }

  delete(ref: HostRef): Promise<boolean> {
    return attempt('delete the host', async () =>
      (await this.#db.run(`DELETE FROM hosts WHERE id = (SELECT h.id FROM ${HOST_FROM} WHERE n.slug = $1 AND h.slug = $2)`, [ref.network, ref.host])) > 0,
    );
  }
}
