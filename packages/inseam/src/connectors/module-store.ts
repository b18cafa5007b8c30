/**
 * Submitted connector modules. On the embedded platform, content-addressed on disk under
 * `<dataDir>/connectors/` (on PostgreSQL, in the database: postgres-module-store.ts):
 *
 *   <sha>/module.js          the module's text, exactly as submitted (never changes)
 *   <sha>/submission.json    who submitted it, when, its name and config schema (never changes)
 *   <sha>/trials/<id>        one empty file per recorded trial of it (the record is in the store)
 *   <sha>/installed.json     written when its kind is installed: the kind, its description, the
 *                            config schema it was registered with
 *
 * Every file is written to a temporary name and renamed, so a crash leaves either the old state or
 * the new one. Nothing is ever rewritten in place, and a trial is one new file, so two processes on
 * one data directory (the server and the CLI) never lose each other's writes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Description } from '@inseam/connector';
import { InvalidArgumentError, NotFoundError, UnavailableError, type ConfigSchema } from '@neuralis/package-system/contracts';

export const SHA_PATTERN = /^[0-9a-f]{64}$/;
/** The ids the lifecycle gives trials (`trial-<uuid>`), and nothing that could leave the folder. */
const TRIAL_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/** The shortest sha prefix `resolve` accepts. */
export const MIN_SHA_PREFIX = 8;

export interface Submission {
  readonly sha: string;
  readonly name: string | null;
  readonly configSchema: ConfigSchema | null;
  readonly bytes: number;
  readonly submittedBy: string;
  readonly submittedAt: number;
}

export interface Installation {
  readonly sha: string;
  readonly kind: string;
  readonly name: string | null;
  readonly description: Description;
  readonly configSchema: ConfigSchema;
  /** The network whose approval the installation used. */
  readonly network: string;
  readonly installedBy: string;
  readonly installedAt: number;
}

/** SHA-256 (hex) of a module's UTF-8 text: its identity everywhere. */
export function moduleSha(source: string): string {
  return createHash('sha256').update(source, 'utf8').digest('hex');
}

/**
 * Where submitted modules are kept: on disk in the data directory (ModuleStore, the embedded
 * platform) or in the shared PostgreSQL database (PostgresModuleStore), so a worker on another
 * machine loads the same module text. A module and its submission record never change once
 * stored; trials are added, an installation written once its kind is installed.
 */
export interface ConnectorModuleStore {
  /** Stores a module and its submission record unless stored already; answers the stored record. */
  put(source: string, submission: Omit<Submission, 'sha' | 'bytes'>): Promise<{ readonly submission: Submission; readonly created: boolean }>;
  /** The submission record, or null. Throws `invalid_argument` for a malformed sha. */
  submission(sha: string): Promise<Submission | null>;
  /** The module's text. Throws `not_found`, `invalid_argument` for a malformed sha. */
  source(sha: string): Promise<string>;
  addTrial(sha: string, trialId: string): Promise<void>;
  /** Forgets a trial of the module (its record is deleted from the store first). */
  removeTrial(sha: string, trialId: string): Promise<void>;
  trialIds(sha: string): Promise<string[]>;
  installation(sha: string): Promise<Installation | null>;
  install(record: Installation): Promise<void>;
  /** Every submitted sha, sorted. */
  list(): Promise<string[]>;
  /**
   * The full sha a person typed: all 64 hex digits, or a prefix of at least 8 that names exactly
   * one submitted module. Throws `invalid_argument` (not hex, too short, ambiguous) or `not_found`.
   */
  resolve(text: string): Promise<string>;
}

/** `resolve` of ConnectorModuleStore, over a store's `submission` and `list`. */
export async function resolveModuleSha(modules: Pick<ConnectorModuleStore, 'submission' | 'list'>, text: string): Promise<string> {
  const given = typeof text === 'string' ? text.trim().toLowerCase() : '';
  if (!/^[0-9a-f]+$/.test(given) || given.length > 64 || given.length < MIN_SHA_PREFIX) {
    throw new InvalidArgumentError(`A connector is named by its module's SHA-256: 64 hex digits, or at least the first ${MIN_SHA_PREFIX} of them.`, { details: { argument: 'sha' } });
  }
  if (given.length === 64) {
    if ((await modules.submission(given)) === null) throw notSubmitted(given);
    return given;
  }
  const matches = (await modules.list()).filter((sha) => sha.startsWith(given));
  if (matches.length === 0) throw notSubmitted(given);
  if (matches.length > 1) throw new InvalidArgumentError(`"${given}" is the start of ${matches.length} submitted modules; give more of the sha.`, { details: { argument: 'sha' } });
  return matches[0]!;
}

/** `sha`, when it is 64 lowercase hex digits. Throws `invalid_argument`. */
export function checkSha(sha: string): string {
  if (!SHA_PATTERN.test(sha)) throw new InvalidArgumentError('A connector sha is 64 lowercase hex digits.', { details: { argument: 'sha' } });
  return sha;
}

/** The modules of a data directory, on disk (see the module comment). */
export class ModuleStore implements ConnectorModuleStore {
  readonly #root: string;

  constructor(root: string) {
    this.#root = root;
  }

  /** Stores a module and its submission record unless stored already; answers the stored record. */
  async put(source: string, submission: Omit<Submission, 'sha' | 'bytes'>): Promise<{ readonly submission: Submission; readonly created: boolean }> {
    const sha = moduleSha(source);
    const existing = await this.submission(sha);
    if (existing !== null) return { submission: existing, created: false };
    const record: Submission = { sha, ...submission, bytes: Buffer.byteLength(source, 'utf8') };
    await this.#write(sha, 'module.js', source);
    // The submission record goes last: a module without one is not yet submitted.
    await this.#write(sha, 'submission.json', JSON.stringify(record));
    return { submission: record, created: true };
  }

  async submission(sha: string): Promise<Submission | null> {
    return this.#readJson<Submission>(sha, 'submission.json');
  }

  /** The module's text. Throws `not_found`. */
  async source(sha: string): Promise<string> {
    const file = join(this.#dir(sha), 'module.js');
    try {
      return await readFile(file, 'utf8');
    } catch (error) {
      if (code(error) === 'ENOENT') throw notSubmitted(sha);
      throw unavailable(error);
    }
  }

  async addTrial(sha: string, trialId: string): Promise<void> {
    await this.#write(sha, join('trials', trialId), '');
  }

  async removeTrial(sha: string, trialId: string): Promise<void> {
    // A trial id is one file name; anything else names no trial of this module.
    if (!TRIAL_ID.test(trialId)) return;
    await rm(join(this.#dir(sha), 'trials', trialId), { force: true }).catch((error: unknown) => {
      throw unavailable(error);
    });
  }

  async trialIds(sha: string): Promise<string[]> {
    const dir = join(this.#dir(sha), 'trials');
    try {
      return (await readdir(dir)).filter((name) => !name.includes('.tmp-'));
    } catch (error) {
      if (code(error) === 'ENOENT') return [];
      throw unavailable(error);
    }
  }

  async installation(sha: string): Promise<Installation | null> {
    return this.#readJson<Installation>(sha, 'installed.json');
  }

  async install(record: Installation): Promise<void> {
    await this.#write(record.sha, 'installed.json', JSON.stringify(record));
  }

  /** Every submitted sha. */
  async list(): Promise<string[]> {
    let names: string[];
    try {
      names = await readdir(this.#root);
    } catch (error) {
      if (code(error) === 'ENOENT') return [];
      throw unavailable(error);
    }
    const submitted: string[] = [];
    for (const name of names.filter((item) => SHA_PATTERN.test(item)).sort()) {
      if ((await this.submission(name)) !== null) submitted.push(name);
    }
    return submitted;
  }

  resolve(text: string): Promise<string> {
    return resolveModuleSha(this, text);
  }

  #dir(sha: string): string {
    return join(this.#root, checkSha(sha));
  }

  async #readJson<T>(sha: string, file: string): Promise<T | null> {
    const path = join(this.#dir(sha), file);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if (code(error) === 'ENOENT') return null;
      throw unavailable(error);
    }
    return JSON.parse(text) as T;
  }

  async #write(sha: string, file: string, text: string): Promise<void> {
    const target = join(this.#dir(sha), file);
    const temporary = `${target}.tmp-${randomBytes(6).toString('hex')}`;
    try {
      await mkdir(join(target, '..'), { recursive: true, mode: 0o700 });
      await writeFile(temporary, text, { mode: 0o600 });
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true }).catch(() => undefined);
      throw unavailable(error);
    }
  }
}

function code(error: unknown): unknown {
  return (error as { code?: unknown }).code;
}

/** The error for a sha no module was submitted under. */
export function notSubmitted(sha: string): NotFoundError {
  return new NotFoundError(`No connector module with sha ${sha} was submitted; submit it first (POST /v1/connectors).`, { details: { sha } });
}

function unavailable(error: unknown): UnavailableError {
  const reason = code(error);
  return new UnavailableError(`The connector module store in the data directory cannot be used (${typeof reason === 'string' ? reason : 'error'}).`, {
    details: { reason: 'connector_store' },
  });
}
