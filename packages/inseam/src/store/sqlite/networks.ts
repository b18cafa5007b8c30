/** Networks and hosts in SQLite. */
import { AlreadyExistsError, NotFoundError } from '@neuralis/package-system/contracts';
import type { HostInput, HostPatch, HostRecord, HostRef, HostStore, NetworkInput, NetworkRecord, NetworkStore } from '../types.js';
import { attempt, cachedPrepare, isUniqueViolation, type SqliteDatabase } from './database.js';
import { type NetworkRow, type HostRow, toNetwork, toHost } from '../rows.js';

export class SqliteNetworkStore implements NetworkStore {
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#prepare = cachedPrepare(db);
  }

  create(input: NetworkInput, now = Date.now()): Promise<NetworkRecord> {
    return attempt('store the network', () => {
      try {
        const row = this.#prepare<[string, string, number, number], NetworkRow>('INSERT INTO networks (slug, label, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING *')
          .get(input.slug, input.label ?? input.slug, now, now);
        return toNetwork(row!);
      } catch (error) {
        if (isUniqueViolation(error)) throw new AlreadyExistsError(`A network "${input.slug}" exists already; choose another slug.`, { details: { network: input.slug } });
        throw error;
      }
    });
  }

  get(slug: string): Promise<NetworkRecord | null> {
    return attempt('read the network', () => {
      const row = this.#prepare<[string], NetworkRow>('SELECT * FROM networks WHERE slug = ?').get(slug);
      return row === undefined ? null : toNetwork(row);
    });
  }

  list(): Promise<NetworkRecord[]> {
    return attempt('read the networks', () => this.#prepare<[], NetworkRow>('SELECT * FROM networks ORDER BY slug').all().map(toNetwork));
  }

  update(slug: string, patch: { readonly label: string }, now = Date.now()): Promise<NetworkRecord> {
    return attempt('store the network', () => {
      const row = this.#prepare<[string, number, string], NetworkRow>('UPDATE networks SET label = ?, updated_at = ? WHERE slug = ? RETURNING *').get(patch.label, now, slug);
      if (row === undefined) throw missingNetwork(slug);
      return toNetwork(row);
    });
  }

  delete(slug: string): Promise<boolean> {
    return attempt('delete the network', () => this.#prepare('DELETE FROM networks WHERE slug = ?').run(slug).changes > 0);
  }
}

const HOST_COLUMNS = `h.id, n.slug AS network, h.slug, h.kind, h.label, h.description, h.config, h.scope, h.sync, h.permissions, h.origin,
  h.honours_order, h.ownership, h.owner_id, h.private_origins, h.created_at, h.updated_at`;

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

export class SqliteHostStore implements HostStore {
  readonly #db: SqliteDatabase;
  readonly #prepare: SqliteDatabase['prepare'];

  constructor(db: SqliteDatabase) {
    this.#db = db;
    this.#prepare = cachedPrepare(db);
  }

  create(network: string, input: HostInput, now = Date.now()): Promise<HostRecord> {
    return attempt('store the host', () =>
      this.#db.transaction(() => {
        const networkId = this.#networkId(network);
        try {
          const { id } = this.#prepare<unknown[], { id: number }>(
              `INSERT INTO hosts (network_id, slug, kind, label, description, config, scope, sync, permissions, origin, honours_order, ownership, owner_id,
                 private_origins, created_at, updated_at)
               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
            )
            .get(
              networkId,
              input.slug,
              input.kind,
              input.label ?? input.slug,
              input.description ?? '',
              JSON.stringify(input.config ?? {}),
              jsonOrNull(input.scope),
              jsonOrNull(input.sync),
              jsonOrNull(input.permissions),
              input.origin ?? null,
              input.honoursOrder === true ? 1 : 0,
              input.ownership ?? 'project',
              input.ownerId ?? null,
              input.privateOrigins === undefined || input.privateOrigins.length === 0 ? null : JSON.stringify(input.privateOrigins),
              now,
              now,
            )!;
          return this.#byId(id);
        } catch (error) {
          if (isUniqueViolation(error)) {
            throw new AlreadyExistsError(`Network "${network}" has a host "${input.slug}" already; choose another slug.`, { details: { network, host: input.slug } });
          }
          throw error;
        }
      })(),
    );
  }

  get(ref: HostRef): Promise<HostRecord | null> {
    return attempt('read the host', () => {
      const row = this.#prepare<[string, string], HostRow>(`SELECT ${HOST_COLUMNS} FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?`)
        .get(ref.network, ref.host);
      return row === undefined ? null : toHost(row);
    });
  }

  list(network: string): Promise<HostRecord[]> {
    return attempt('read the hosts', () =>
      this.#prepare<[string], HostRow>(`SELECT ${HOST_COLUMNS} FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? ORDER BY h.slug`)
        .all(network)
        .map(toHost),
    );
  }

  update(ref: HostRef, patch: HostPatch, now = Date.now()): Promise<HostRecord> {
    return attempt('store the host', () =>
      this.#db.transaction(() => {
        const current = this.#prepare<[string, string], { id: number }>('SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?')
          .get(ref.network, ref.host);
        if (current === undefined) throw missingHost(ref);
        const sets: string[] = [];
        const values: unknown[] = [];
        const set = (column: string, value: unknown): void => {
          sets.push(`${column} = ?`);
          values.push(value);
        };
        if (patch.label !== undefined) set('label', patch.label);
        if (patch.description !== undefined) set('description', patch.description);
        if (patch.config !== undefined) set('config', JSON.stringify(patch.config));
        if (patch.scope !== undefined) set('scope', jsonOrNull(patch.scope));
        if (patch.sync !== undefined) set('sync', jsonOrNull(patch.sync));
        if (patch.permissions !== undefined) set('permissions', jsonOrNull(patch.permissions));
        if (patch.origin !== undefined) set('origin', patch.origin);
        if (patch.honoursOrder !== undefined) set('honours_order', patch.honoursOrder ? 1 : 0);
        if (patch.ownership !== undefined) set('ownership', patch.ownership);
        if (patch.ownerId !== undefined) set('owner_id', patch.ownerId);
        if (patch.privateOrigins !== undefined) set('private_origins', patch.privateOrigins.length === 0 ? null : JSON.stringify(patch.privateOrigins));
        set('updated_at', now);
        this.#prepare(`UPDATE hosts SET ${sets.join(', ')} WHERE id = ?`).run(...values, current.id);
        return this.#byId(current.id);
      })(),
    );
  }

  delete(ref: HostRef): Promise<boolean> {
    return attempt('delete the host', () =>
      this.#prepare('DELETE FROM hosts WHERE id = (SELECT h.id FROM hosts h JOIN networks n ON n.id = h.network_id WHERE n.slug = ? AND h.slug = ?)')
        .run(ref.network, ref.host).changes > 0,
    );
  }

  #networkId(network: string): number {
    const row = this.#prepare<[string], { id: number }>('SELECT id FROM networks WHERE slug = ?').get(network);
    if (row === undefined) throw missingNetwork(network);
    return row.id;
  }

  #byId(id: number): HostRecord {
    return toHost(this.#prepare<[number], HostRow>(`SELECT ${HOST_COLUMNS} FROM hosts h JOIN networks n ON n.id = h.network_id WHERE h.id = ?`).get(id)!);
  }
}

export function missingNetwork(network: string): NotFoundError {
  return new NotFoundError(`There is no network "${network}".`, { details: { network } });
}

export function missingHost(ref: HostRef): NotFoundError {
  return new NotFoundError(`Network "${ref.network}" has no host "${ref.host}".`, { details: { network: ref.network, host: ref.host } });
}
