/**
 * The life of a sandboxed connector, from a module someone (often an agent) wrote to a host that
 * is crawled:
 *
 *   submitted → trialled → approved → installed → first crawl
 *
 * - **submit**: the module's text is stored under its SHA-256 (module-store.ts: in the data
 *   directory, or in the database on a PostgreSQL store). The sha is its
 *   identity: a changed module is a new sha, which needs a trial and an approval of its own.
 * - **trial**: the conformance trial (inseam/trial) runs the module against its real host behind
 *   the gate; every trial, passed or failed, is recorded in the store's `trials` repository for the
 *   caller's network, with the report and the origins the module used.
 * - **approve**: a person's act, never an agent's. The newest trial of the sha in the network must
 *   have passed, and the person types the confirmation phrase (confirm.ts).
 * - **install**: needs an approval of exactly that sha in the network. Registers the module's kind
 *   (once per platform, remembered in `installed.json` so a restart registers it again, see
 *   `restore`), adds the host and starts its first crawl. Approval needs a passed trial of either
 *   phase and says which phases passed (`phases`).
 *
 * A host of a module that declares writes is added read only; it becomes writable (at install,
 * `addHost`, `setPermissions`, `updateHost`) only after the platform ran the install-phase trial
 * itself with that host's config, stored credentials and approved private origins on the scratch
 * prefix a person named, and it passed with check 10 passing (host-writes.ts). A config change of
 * a writable host turns writes off and runs it again on the same prefix before they come back.
 * The trial is recorded like any other, naming the host.
 *
 * Approvals are per network; a kind is registered for the whole platform, so adding a host of a
 * sandboxed kind to another network needs an approval there too (`requireApprovedKind`).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { Description, EgressPort } from '@inseam/connector';
import {
  AlreadyExistsError,
  InvalidArgumentError,
  NotFoundError,
  PermissionDeniedError,
  PreconditionFailedError,
  UnavailableError,
  type ConfigSchema,
  type OwnershipScope,
  type PermissionTree,
  type SourceSyncSettings,
} from '@neuralis/package-system/contracts';
import type { Scope } from '@inseam/connector';
import type { AddHostInput, HostChange, HostView } from '../network/index.js';
import { hostCredentialRef, type CrawlTicket, type Platform } from '../platform/index.js';
import { PostgresStore, type HostRecord, type HostRef, type TrialRecord } from '../store/index.js';
import { parseTrialConfig } from '../trial/config-file.js';
import type { TrialPhase, TrialReportJson, TrialWebhookSample, TrialWriteSample } from '../trial/index.js';
import { TRIAL_PHASES } from '../trial/types.js';
import { allowsChanges } from '../fs/permissions.js';
import { checkClosedSchema, inferConfigSchema } from './config-schema.js';
import { checkConfirmation, confirmationPhrase } from './confirm.js';
import { makesWritable, notRunOutcome, writesOutcome, type WritesOutcome } from './host-writes.js';
import { ModuleStore, type ConnectorModuleStore, type Installation, type Submission } from './module-store.js';
import { PostgresModuleStore } from './postgres-module-store.js';

/** The largest module accepted, in bytes of UTF-8. */
export const MAX_MODULE_BYTES = 1024 * 1024;
const MAX_NAME_LENGTH = 200;

/** Who acts: the authenticated user, and the agent acting for them when there is one. */
export interface Actor {
  readonly userId: string;
  readonly agentId?: string | null;
}

export type ConnectorState = 'submitted' | 'trialled' | 'approved' | 'installed';

export interface TrialSummary {
  readonly id: string;
  readonly kind: string;
  readonly passed: boolean;
  readonly phase: TrialPhase;
  readonly origins: readonly string[];
  /** The POSTs the module declares as reads (`POST <origin><path>`), for the person approving. */
  readonly readEndpoints: readonly string[];
  readonly createdAt: number;
  readonly approvedBy: string | null;
  readonly approvedAt: number | null;
  /** The module's describe() declared writes when it was trialled. */
  readonly declaresWrites: boolean;
  /** The install phase's scratch prefix (canonical); null for a submit-phase trial. */
  readonly scratchPrefix: string | null;
  /** An install-phase trial whose check 10 (writes) passed on `scratchPrefix`. */
  readonly writesChecked: boolean;
  /**
   * The host (its slug in the network) whose writes the platform checked with this trial before
   * making it writable; null for a trial someone ran. Such a trial is not offered for approval.
   */
  readonly host: string | null;
}

export type PhaseResult = 'passed' | 'failed' | 'not_run';

/** What a module's trials in a network showed, phase by phase: what a person approving it is told. */
export interface TrialPhases {
  /** The newest trial of each phase: passed, failed, or none run. `submit` is the read-only phase. */
  readonly submit: PhaseResult;
  /** Someone's install-phase trial, or the platform's own of a host before making it writable. */
  readonly install: PhaseResult;
  readonly declaresWrites: boolean;
  /** Scratch prefixes where a passed install-phase trial passed check 10. */
  readonly writesCheckedOn: readonly string[];
}

/** An approved trial, with what the module's trials in the network showed when it was approved. */
export interface ApprovalSummary extends TrialSummary {
  readonly phases: TrialPhases;
}

/** A submitted module as one network sees it. */
export interface ConnectorView {
  readonly sha: string;
  readonly name: string | null;
  readonly bytes: number;
  readonly submittedBy: string;
  readonly submittedAt: number;
  readonly configSchema: ConfigSchema | null;
  /** The kind its newest trial in the network (or its installation) reported; null before any. */
  readonly kind: string | null;
  /** `installed` once its kind is installed and it is approved in this network. */
  readonly state: ConnectorState;
  /** Its trials in this network, newest first. */
  readonly trials: readonly TrialSummary[];
  /** What those trials showed, phase by phase. */
  readonly phases: TrialPhases;
  /** The phrase a person types to approve it, while its newest trial passed and is not approved. */
  readonly confirmation: string | null;
  readonly installation: { readonly kind: string; readonly network: string; readonly installedBy: string; readonly installedAt: number } | null;
}

export interface SubmitInput {
  /** The module's text: one ES module, no imports, exporting createConnector(config). */
  readonly module: string;
  readonly name?: string;
  /** Closed draft-07 schema of a host's config; install infers one from its config when absent. */
  readonly configSchema?: ConfigSchema;
}

export interface TrialInput {
  readonly config?: Readonly<Record<string, unknown>>;
  /** AuthSpec field values: the gate uses them, the module never sees them, nothing stores them. */
  readonly credentials?: Readonly<Record<string, string>>;
  readonly phase?: TrialPhase;
  readonly scratchPrefix?: string;
  readonly allowPrivateOrigins?: readonly string[];
  readonly webhookSample?: unknown;
  /** Check 10's objects for the declared mimes, parsed (parseTrialSamples reads their JSON form). */
  readonly samples?: readonly TrialWriteSample[];
}

export interface TrialOutcome {
  readonly trial: TrialSummary;
  readonly report: TrialReportJson & { readonly refusals: readonly unknown[] };
}

export interface InstallInput {
  /** The new host's slug. */
  readonly host: string;
  readonly config?: Readonly<Record<string, unknown>>;
  readonly credentials?: Readonly<Record<string, string>>;
  /** Overrides the submitted schema when the kind is first installed. */
  readonly configSchema?: ConfigSchema;
  readonly label?: string;
  readonly description?: string;
  readonly scope?: Scope | null;
  readonly sync?: SourceSyncSettings | null;
  readonly permissions?: PermissionTree | null;
  readonly writable?: boolean;
  /**
   * The host folder a person named for the install-phase trial's writes: a module that declares
   * writes is installed writable only when the platform's trial of the new host passed there.
   */
  readonly scratchPrefix?: string;
  readonly privateOrigins?: readonly string[];
  readonly ownership?: OwnershipScope;
  readonly ownerId?: string;
}

/** What a host lets callers do, as `setPermissions` takes it. */
export interface HostRights {
  readonly permissions?: PermissionTree | null;
  readonly writable?: boolean;
}

/** A host added or changed, and when writes were asked of a writes-declaring module, what its trial said. */
export interface HostWrites {
  readonly host: HostView;
  /** Null when no trial was needed (writes not asked, another kind, the host writable already with this config). */
  readonly writes: WritesOutcome | null;
}

export interface InstallOutcome extends HostWrites {
  /** The first crawl: started in this process, or queued for a worker (a server on the shared store). */
  readonly crawl: CrawlTicket;
}

export type LifecyclePlatform = Pick<Platform, 'paths' | 'store' | 'sandbox' | 'kinds' | 'networks' | 'requestCrawl' | 'credentials'>;

/** What one recorded trial runs with. */
interface TrialRun {
  readonly phase: TrialPhase;
  readonly config: Readonly<Record<string, unknown>>;
  readonly credentials: Readonly<Record<string, string>>;
  readonly scratchPrefix?: string;
  readonly allowPrivateOrigins?: readonly string[];
  readonly webhookSample?: TrialWebhookSample;
  readonly samples?: readonly TrialWriteSample[];
  /** The host the platform checks writes of. */
  readonly host?: string;
}

export interface ConnectorLifecycleOptions {
  /** Per-check timeout of trials (ms); the trial's default otherwise. */
  readonly checkTimeoutMs?: number;
}

const DESCRIBE_ONLY: EgressPort = {
  fetch: () => Promise.reject(new UnavailableError('The module was loaded only to be described; it cannot reach the network now.')),
};

export class ConnectorLifecycle {
  readonly #platform: LifecyclePlatform;
  readonly #modules: ConnectorModuleStore;
  readonly #options: ConnectorLifecycleOptions;
  /** Sandboxed kinds this process registered, and the sha each came from. */
  readonly #installed = new Map<string, string>();
  #serial: Promise<unknown> = Promise.resolve();

  constructor(platform: LifecyclePlatform, options: ConnectorLifecycleOptions = {}) {
    this.#platform = platform;
    // On a shared PostgreSQL store, modules live in the database, where every worker finds them.
    this.#modules = platform.store instanceof PostgresStore ? new PostgresModuleStore(platform.store) : new ModuleStore(join(platform.paths.dataDir, 'connectors'));
    this.#options = options;
  }

  /**
   * Stores a module under its sha. Submitting the same text again answers the stored submission
   * (`created: false`); with a different config schema it is `already_exists`.
   * Throws `invalid_argument` (no text, too large, a bad name), `invalid_config` (a schema that is
   * not closed), `unavailable`.
   */
  async submit(actor: Actor, network: string, input: SubmitInput): Promise<{ readonly connector: ConnectorView; readonly created: boolean }> {
    const module = input.module;
    if (typeof module !== 'string' || module.trim() === '') throw new InvalidArgumentError('module must be the connector module\'s JavaScript text.', { details: { argument: 'module' } });
    if (Buffer.byteLength(module, 'utf8') > MAX_MODULE_BYTES) {
      throw new InvalidArgumentError(`The module is larger than ${MAX_MODULE_BYTES} bytes; a connector is one small module.`, { details: { argument: 'module' } });
    }
    const name = input.name === undefined ? null : checkName(input.name);
    const configSchema = input.configSchema === undefined ? null : checkClosedSchema(input.configSchema);
    await this.#platform.networks.get(network);
    const { submission, created } = await this.#modules.put(module, { name, configSchema, submittedBy: actorName(actor), submittedAt: Date.now() });
    if (!created && configSchema !== null && JSON.stringify(submission.configSchema) !== JSON.stringify(configSchema)) {
      throw new AlreadyExistsError(`This module (sha ${submission.sha}) was submitted already with another configSchema; give the schema at install instead.`, { details: { sha: submission.sha } });
    }
    return { connector: await this.#view(network, submission), created };
  }

  /** Every submitted module, as `network` sees it. */
  async list(network: string): Promise<ConnectorView[]> {
    await this.#platform.networks.get(network);
    const views: ConnectorView[] = [];
    for (const sha of await this.#modules.list()) {
      const submission = await this.#modules.submission(sha);
      if (submission !== null) views.push(await this.#view(network, submission));
    }
    return views.sort((a, b) => b.submittedAt - a.submittedAt);
  }

  /** One module (sha or a unique prefix of 8+ digits). Throws `invalid_argument`, `not_found`. */
  async get(network: string, sha: string): Promise<ConnectorView> {
    await this.#platform.networks.get(network);
    return this.#view(network, await this.#submission(sha));
  }

  /**
   * Runs the trial on the module and records it in the network, passed or not. Throws only for
   * the caller's mistakes (`invalid_config`: a bad config, a missing credential, an undeclared
   * private origin; `invalid_argument`: a bad phase or scratch prefix) and `not_found`.
   */
  async trial(actor: Actor, network: string, shaText: string, input: TrialInput): Promise<TrialOutcome> {
    await this.#platform.networks.get(network);
    const submission = await this.#submission(shaText);
    const phase = input.phase ?? 'submit';
    if (!(TRIAL_PHASES as readonly string[]).includes(phase)) throw new InvalidArgumentError('phase must be "submit" or "install".', { details: { argument: 'phase' } });
    const file = parseTrialConfig({
      config: input.config ?? {},
      credentials: input.credentials ?? {},
      ...(input.scratchPrefix === undefined ? {} : { scratchPrefix: input.scratchPrefix }),
      ...(input.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: input.allowPrivateOrigins }),
      ...(input.webhookSample === undefined ? {} : { webhookSample: input.webhookSample }),
    });
    return this.#runAndRecord(actor, network, submission, {
      phase,
      config: file.config,
      credentials: file.credentials,
      ...(file.scratchPrefix === undefined ? {} : { scratchPrefix: file.scratchPrefix }),
      ...(file.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: file.allowPrivateOrigins }),
      ...(file.webhookSample === undefined ? {} : { webhookSample: file.webhookSample }),
      ...(input.samples === undefined ? {} : { samples: input.samples }),
    });
  }

  async #runAndRecord(actor: Actor, network: string, submission: Submission, run: TrialRun): Promise<TrialOutcome> {
    // The trial runner (its checks and the sandbox's test harness) loads with the first trial, not
    // with every command that opens the lifecycle to register installed connectors.
    const { runTrial, trialReportJson, canonicalScratchPrefix } = await import('../trial/index.js');
    const report = await runTrial({
      subject: { module: await this.#modules.source(submission.sha), label: `connector-${submission.sha.slice(0, 12)}` },
      phase: run.phase,
      config: run.config,
      credentials: run.credentials,
      ...(run.scratchPrefix === undefined ? {} : { scratchPrefix: run.scratchPrefix }),
      ...(run.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: run.allowPrivateOrigins }),
      ...(run.webhookSample === undefined ? {} : { webhookSample: run.webhookSample }),
      ...(run.samples === undefined ? {} : { samples: run.samples }),
      ...(this.#options.checkTimeoutMs === undefined ? {} : { checkTimeoutMs: this.#options.checkTimeoutMs }),
    });
    const json = { ...trialReportJson(report), refusals: [...report.refusals], honoursOrder: report.honoursOrder };
    // What the record says about writes: the prefix check 10 wrote on, the config, the host it was run for.
    const trialled = {
      declaresWrites: report.declaresWrites,
      configDigest: configDigest(run.config),
      ...(run.phase === 'install' && run.scratchPrefix !== undefined ? { scratchPrefix: canonicalScratchPrefix(run.scratchPrefix) } : {}),
      ...(run.host === undefined ? {} : { host: run.host }),
    };
    const record = await this.#platform.store.trials.record({
      id: `trial-${globalThis.crypto.randomUUID()}`,
      network,
      kind: report.kind,
      moduleHash: submission.sha,
      passed: report.passed,
      report: { ...json, ...trialled, trialledBy: actorName(actor) },
      origins: [...report.origins],
    });
    await this.#modules.addTrial(submission.sha, record.id);
    return { trial: summary(record), report: json };
  }

  /**
   * A person approves the module's newest trial in the network. Throws `permission_denied` for an
   * agent, `precondition_failed` (no trial, the newest failed, approved already),
   * `invalid_argument` (the confirmation is not the phrase), `not_found`.
   */
  async approve(actor: Actor, network: string, shaText: string, confirm: unknown): Promise<ApprovalSummary> {
    requirePerson(actor);
    await this.#platform.networks.get(network);
    const submission = await this.#submission(shaText);
    const newest = (await this.#trials(network, submission.sha)).find(offeredForApproval);
    if (newest === undefined) {
      throw new PreconditionFailedError(`Module ${submission.sha.slice(0, 12)} has no trial in network "${network}"; run the trial first.`, { details: { sha: submission.sha, reason: 'not_trialled' } });
    }
    return this.#approveTrial(actor, network, newest, submission.sha, confirm);
  }

  /**
   * What a submitted module describes for `config` (its kind, AuthSpec, dimensions), loaded in
   * the sandbox with no network access; nothing is recorded. Throws `invalid_argument`,
   * `not_found`, and what the module's createConnector or describe() throws.
   */
  async describeModule(network: string, shaText: string, config: Readonly<Record<string, unknown>>): Promise<Description> {
    await this.#platform.networks.get(network);
    return this.#describe(await this.#submission(shaText), config);
  }

  /** One recorded trial of the network (by whatever surface recorded it), with its report. Throws `not_found`. */
  async trialRecord(network: string, id: string): Promise<TrialSummary & { readonly moduleHash: string; readonly report: Readonly<Record<string, unknown>>; readonly confirmation: string | null }> {
    const record = typeof id === 'string' ? await this.#platform.store.trials.get(id) : null;
    if (record === null || record.network !== network) throw new NotFoundError(`There is no trial "${String(id)}" in network "${network}".`, { details: { trial: String(id) } });
    const trial = summary(record);
    return { ...trial, moduleHash: record.moduleHash, report: record.report, confirmation: trial.passed && trial.approvedAt === null && offeredForApproval(trial) ? confirmationPhrase(trial.kind, record.moduleHash) : null };
  }

  /**
   * Deletes a recorded trial of the network that is not approved (an approved one stays: it is
   * the record of a person's approval, which installing relies on; so does the platform's check of
   * a host's writes, the record of why that host may be written). Throws `not_found`,
   * `precondition_failed` (approved, or a host's check).
   */
  async deleteTrial(network: string, id: string): Promise<void> {
    const record = await this.trialRecord(network, id);
    if (record.host !== null) {
      throw new PreconditionFailedError(`Trial ${record.id} is the platform's check of host "${record.host}"'s writes; it stays as the record of why that host may be written.`, {
        details: { reason: 'host_check', trial: record.id },
      });
    }
    if (!(await this.#platform.store.trials.delete(record.id))) throw new NotFoundError(`There is no trial "${record.id}" in network "${network}".`, { details: { trial: record.id } });
    await this.#modules.removeTrial(record.moduleHash, record.id);
  }

  /**
   * A person approves one trial by its id — also trials the MCP endpoint's trial_connector
   * recorded. The same rules as `approve`; the phrase names the trial's kind and module sha.
   */
  async approveTrial(actor: Actor, network: string, id: string, confirm: unknown): Promise<ApprovalSummary> {
    requirePerson(actor);
    const record = await this.trialRecord(network, id);
    return this.#approveTrial(actor, network, record, record.moduleHash, confirm);
  }

  async #approveTrial(actor: Actor, network: string, trial: TrialSummary, sha: string, confirm: unknown): Promise<ApprovalSummary> {
    if (!offeredForApproval(trial)) {
      throw new PreconditionFailedError(`Trial ${trial.id} is the platform's check of host "${trial.host}"'s writes, not a trial to approve; approve a trial someone ran.`, {
        details: { sha, reason: 'not_offered', trial: trial.id },
      });
    }
    if (!trial.passed) {
      throw new PreconditionFailedError(`Trial ${trial.id} of module ${sha.slice(0, 12)} failed; fix the connector (a fixed module is a new submission) or trial it again.`, {
        details: { sha, reason: 'trial_failed', trial: trial.id },
      });
    }
    checkConfirmation(confirm, trial.kind, sha);
    const approved = summary(await this.#platform.store.trials.approve(trial.id, actor.userId));
    return { ...approved, phases: phasesOf(await this.#trials(network, sha)) };
  }

  /** The phrase for the module's newest passed, unapproved trial; `precondition_failed` when there is none. */
  async confirmation(network: string, shaText: string): Promise<{ readonly sha: string; readonly kind: string; readonly phrase: string; readonly trial: TrialSummary }> {
    const view = await this.get(network, shaText);
    const newest = view.trials.find(offeredForApproval);
    if (newest === undefined || !newest.passed || newest.approvedAt !== null) {
      throw new PreconditionFailedError(`Module ${view.sha.slice(0, 12)} has no passed trial waiting for approval in network "${network}".`, { details: { sha: view.sha, reason: 'nothing_to_approve' } });
    }
    return { sha: view.sha, kind: newest.kind, phrase: confirmationPhrase(newest.kind, view.sha), trial: newest };
  }

  /**
   * Installs an approved module: registers its kind (once), adds the host, starts its first
   * crawl (or queues it, where the platform routes crawls through the queue). Throws `precondition_failed` (not approved in this network, or the module now describes
   * another kind), `already_exists` (the kind comes from another module or package; the host slug
   * is taken), and what adding a host throws (`invalid_config`, `scope_invalid`, …).
   */
  async install(actor: Actor, network: string, shaText: string, input: InstallInput): Promise<InstallOutcome> {
    await this.#platform.networks.get(network);
    const submission = await this.#submission(shaText);
    const approved = (await this.#trials(network, submission.sha)).find((trial) => trial.approvedAt !== null);
    if (approved === undefined) {
      throw new PreconditionFailedError(`Module ${submission.sha.slice(0, 12)} is not approved in network "${network}"; a person approves it after its trial passes.`, {
        details: { sha: submission.sha, reason: 'not_approved' },
      });
    }
    const config = input.config ?? {};
    // A missing or malformed scratch prefix is the caller's mistake, refused before anything is registered.
    if (makesWritable(input) && (await this.#describe(submission, config)).writes !== undefined) await this.#namedPrefix(submission.sha, input.scratchPrefix);
    const kind = await this.#exclusive(() => this.#register(actor, network, submission, approved, config, input.configSchema));
    // The approved trial showed whether the host lists newest first; the crawler relies on it.
    const honoursOrder = (await this.#platform.store.trials.get(approved.id))?.report['honoursOrder'] === true;
    const added = await this.addHost(
      actor,
      {
        network,
        slug: input.host,
        kind,
        config,
        honoursOrder,
        ...optional('credentials', input.credentials),
        ...optional('label', input.label),
        ...optional('description', input.description),
        ...optional('scope', input.scope),
        ...optional('sync', input.sync),
        ...optional('permissions', input.permissions),
        ...optional('writable', input.writable),
        ...optional('privateOrigins', input.privateOrigins),
        ...optional('ownership', input.ownership),
        ...optional('ownerId', input.ownerId),
      },
      input.scratchPrefix,
    );
    // After the write trial, so the first crawl does not list the trial's scratch objects.
    const crawl = await this.#platform.requestCrawl({ network, host: added.host.slug });
    return { ...added, crawl };
  }

  /**
   * Adds a host (every rule of NetworkService.addHost). A host of a writes-declaring sandboxed
   * kind asked to be writable is added read only, then the platform's install-phase trial of it
   * runs on `scratchPrefix`, and only a pass turns writes on (`writes` says what happened).
   * Throws what addHost throws, `precondition_failed` (`writes_not_trialled`) without a scratch
   * prefix, `invalid_argument` for a bad one.
   */
  async addHost(actor: Actor, input: AddHostInput, scratchPrefix?: string): Promise<HostWrites> {
    const sha = await this.#writesSha(input.kind);
    if (sha === null || !makesWritable(input)) return { host: await this.#platform.networks.addHost(input), writes: null };
    const prefix = await this.#namedPrefix(sha, scratchPrefix);
    const added = await this.#platform.networks.addHost({ ...input, writable: false });
    return this.#grantWrites(actor, sha, { network: added.network, host: added.slug }, rightsOf(input), prefix);
  }

  /**
   * Changes what a host lets callers do (NetworkService.setPermissions). Turning writes on for a
   * read-only host of a writes-declaring sandboxed kind runs the platform's install-phase trial of
   * it first, on `scratchPrefix` (default: the prefix of its last such trial); a failure leaves
   * the host as it was and `writes` says why. Throws as setPermissions, and `precondition_failed`
   * (`writes_not_trialled`) when no scratch prefix is named or known.
   */
  async setPermissions(actor: Actor, ref: HostRef, change: HostRights, scratchPrefix?: string): Promise<HostWrites> {
    const record = await this.#platform.networks.hostRecord(ref);
    const sha = await this.#writesSha(record.kind);
    if (sha === null || !makesWritable(change) || this.#writable(record)) return { host: await this.#platform.networks.setPermissions(ref, change), writes: null };
    const prefix = await this.#namedPrefix(sha, scratchPrefix ?? (await this.#hostPrefix(record.network, sha, record.slug)));
    return this.#grantWrites(actor, sha, ref, change, prefix);
  }

  /**
   * Changes a host (NetworkService.updateHost). For a writes-declaring sandboxed kind: a change
   * that turns writes on, or a new config of a host that is writable, is applied with writes off,
   * then the platform's install-phase trial runs with the config as changed, on `scratchPrefix`
   * (default: the prefix of the host's last such trial); only a pass turns writes (back) on.
   * Throws as updateHost, and `precondition_failed` (`writes_not_trialled`) when the change turns
   * writes on and no scratch prefix is named or known.
   */
  async updateHost(actor: Actor, ref: HostRef, change: HostChange, scratchPrefix?: string): Promise<HostWrites> {
    const record = await this.#platform.networks.hostRecord(ref);
    const sha = await this.#writesSha(record.kind);
    if (sha === null) return { host: await this.#platform.networks.updateHost(ref, change), writes: null };
    const rightsGiven = change.permissions !== undefined || change.writable !== undefined;
    const writable = this.#writable(record);
    const configChanged = change.config !== undefined && configDigest(this.#platform.kinds.validateConfig(record.kind, change.config)) !== configDigest(record.config);
    const trialNeeded = rightsGiven ? makesWritable(change) && (!writable || configChanged) : writable && configChanged;
    if (!trialNeeded) return { host: await this.#platform.networks.updateHost(ref, change), writes: null };
    const known = scratchPrefix ?? (await this.#hostPrefix(record.network, sha, record.slug));
    if (rightsGiven) await this.#namedPrefix(sha, known);
    // Writes stay off until the changed host passed; afterwards they come back as asked, or as they were.
    const restore: HostRights = rightsGiven ? rightsOf(change) : record.permissions === null ? { writable: true } : { permissions: record.permissions };
    const changed = await this.#platform.networks.updateHost(ref, { ...change, writable: false });
    if (known === undefined) {
      const how = `name a scratch prefix to run the install-phase trial on (PUT /v1/hosts/${record.network}/${record.slug}/permissions { "writable": true, "scratchPrefix": "…" }, or \`inseam host permissions ${record.network}/${record.slug} --writable --scratch-prefix <prefix>\`).`;
      return { host: changed, writes: notRunOutcome(null, `its config changed and no scratch prefix of it is known to check its writes again on; ${how}`) };
    }
    return this.#grantWrites(actor, sha, ref, restore, await this.#namedPrefix(sha, known));
  }

  /**
   * Registers every installed module's kind again (the server and the CLI call it when they
   * start). Modules that cannot be registered are reported, not thrown.
   */
  async restore(): Promise<{ readonly restored: readonly string[]; readonly failed: readonly { readonly sha: string; readonly code: string; readonly message: string }[] }> {
    return this.#exclusive(async () => {
      const restored: string[] = [];
      const failed: { sha: string; code: string; message: string }[] = [];
      for (const sha of await this.#modules.list()) {
        const installation = await this.#modules.installation(sha);
        if (installation === null || this.#installed.get(installation.kind) === sha) continue;
        try {
          this.#platform.kinds.registerSandboxed({
            source: await this.#modules.source(sha),
            description: installation.description,
            configSchema: installation.configSchema,
            ...(installation.name === null ? {} : { name: installation.name }),
          });
          this.#installed.set(installation.kind, sha);
          restored.push(installation.kind);
        } catch (error) {
          const code = (error as { code?: unknown }).code;
          failed.push({ sha, code: typeof code === 'string' ? code : 'connector_failed', message: error instanceof Error ? error.message : String(error) });
        }
      }
      return { restored, failed };
    });
  }

  /**
   * For adding a host of an installed sandboxed kind outside `install`: the module the kind came
   * from must be approved in the network. Throws `precondition_failed`. Kinds that are not
   * sandboxed modules pass.
   */
  async requireApprovedKind(network: string, kind: string): Promise<void> {
    const sha = this.#installed.get(kind);
    if (sha === undefined) return;
    if ((await this.#trials(network, sha)).some((trial) => trial.approvedAt !== null)) return;
    throw new PreconditionFailedError(`Kind "${kind}" is a sandboxed connector (module ${sha.slice(0, 12)}) that is not approved in network "${network}"; trial and approve it there first.`, {
      details: { sha, kind, reason: 'not_approved' },
    });
  }

  /**
   * Runs the install-phase trial of a host as it is stored (its config, its stored credentials,
   * its approved private origins) on `prefix`, records it naming the host, and on a pass applies
   * `rights`. A trial that cannot start (a credential the AuthSpec needs is not stored, say) is
   * an outcome too: the host stays read only.
   */
  async #grantWrites(actor: Actor, sha: string, ref: HostRef, rights: HostRights, prefix: string): Promise<HostWrites> {
    const record = await this.#platform.networks.hostRecord(ref);
    const submission = await this.#submission(sha);
    let writes: WritesOutcome;
    try {
      const auth = (await this.#describe(submission, record.config)).auth;
      const source = this.#platform.credentials.source(hostCredentialRef(record), auth);
      // What the gate fills `present` with for this host: its stored fields, and tokens an acquisition produced.
      const credentials = { ...(await source.fields()), ...(await source.tokens()) };
      const outcome = await this.#runAndRecord(actor, record.network, submission, {
        phase: 'install',
        config: record.config,
        credentials,
        scratchPrefix: prefix,
        allowPrivateOrigins: record.privateOrigins,
        host: record.slug,
      });
      writes = writesOutcome(outcome.report, outcome.trial.id, prefix);
    } catch (error) {
      if (typeof (error as { code?: unknown }).code !== 'string') throw error;
      writes = notRunOutcome(prefix, `the install-phase trial could not run: ${(error as Error).message}`);
    }
    const host = writes.writable ? await this.#platform.networks.setPermissions(ref, rights) : await this.#platform.networks.showHost(ref);
    return { host, writes };
  }

  /** The sha of the installed module a sandboxed kind came from, when it declares writes; null otherwise. */
  async #writesSha(kind: string): Promise<string | null> {
    const sha = this.#installed.get(kind);
    if (sha === undefined) return null;
    return (await this.#modules.installation(sha))?.description.writes === undefined ? null : sha;
  }

  #writable(record: HostRecord): boolean {
    return allowsChanges(this.#platform.kinds.treeOf(record));
  }

  /** The scratch prefix of the host's newest write trial in its network, if any. */
  async #hostPrefix(network: string, sha: string, slug: string): Promise<string | undefined> {
    return (await this.#trials(network, sha)).find((trial) => trial.host === slug && trial.scratchPrefix !== null)?.scratchPrefix ?? undefined;
  }

  /** `prefix` in canonical form. Throws `precondition_failed` (`writes_not_trialled`) without one, `invalid_argument` for a bad one. */
  async #namedPrefix(sha: string, prefix: string | undefined): Promise<string> {
    if (prefix === undefined) {
      throw new PreconditionFailedError(
        `Module ${sha.slice(0, 12)} declares writes, so a host of it becomes writable only after the platform ran its install-phase trial on that host: name a scratch prefix (scratchPrefix, \`--scratch-prefix\`), a folder on the host where the trial may create, replace and delete objects of its own, or keep the host read only.`,
        { details: { sha, reason: 'writes_not_trialled', argument: 'scratchPrefix' } },
      );
    }
    const { canonicalScratchPrefix } = await import('../trial/index.js');
    return canonicalScratchPrefix(prefix);
  }

  async #register(actor: Actor, network: string, submission: Submission, approved: TrialSummary, config: Readonly<Record<string, unknown>>, schema: ConfigSchema | undefined): Promise<string> {
    const existing = await this.#modules.installation(submission.sha);
    if (existing !== null) {
      if (this.#installed.get(existing.kind) !== submission.sha) await this.#registerKind(submission, existing);
      return existing.kind;
    }
    const description = await this.#describe(submission, config);
    if (description.kind !== approved.kind) {
      throw new PreconditionFailedError(`With this config the module describes kind "${description.kind}", but its approved trial was of kind "${approved.kind}"; install it with the config it was trialled with.`, {
        details: { sha: submission.sha, reason: 'kind_changed' },
      });
    }
    const installation: Installation = {
      sha: submission.sha,
      kind: description.kind,
      name: submission.name,
      description,
      configSchema: schema === undefined ? (submission.configSchema ?? inferConfigSchema(config)) : checkClosedSchema(schema),
      network,
      installedBy: actorName(actor),
      installedAt: Date.now(),
    };
    await this.#registerKind(submission, installation);
    // Written after the kind registered, so a restart registers exactly what worked.
    await this.#modules.install(installation);
    return installation.kind;
  }

  async #registerKind(submission: Submission, installation: Installation): Promise<void> {
    if (this.#platform.kinds.has(installation.kind)) {
      throw new AlreadyExistsError(`Kind "${installation.kind}" is provided already (by a package or another module); a new version of a connector cannot replace it yet.`, {
        details: { kind: installation.kind, sha: submission.sha },
      });
    }
    this.#platform.kinds.registerSandboxed({
      source: await this.#modules.source(submission.sha),
      description: installation.description,
      configSchema: installation.configSchema,
      ...(installation.name === null ? {} : { name: installation.name }),
    });
    this.#installed.set(installation.kind, submission.sha);
  }

  async #describe(submission: Submission, config: Readonly<Record<string, unknown>>): Promise<Description> {
    const connector = await this.#platform.sandbox.load({ source: await this.#modules.source(submission.sha), label: `install-${submission.sha.slice(0, 12)}`, config, egress: DESCRIBE_ONLY });
    try {
      return connector.describe();
    } finally {
      connector.dispose();
    }
  }

  async #submission(shaText: string): Promise<Submission> {
    const sha = await this.#modules.resolve(shaText);
    const submission = await this.#modules.submission(sha);
    if (submission === null) throw new InvalidArgumentError(`Module ${sha} is not submitted.`, { details: { argument: 'sha' } });
    return submission;
  }

  /** The module's trials recorded in `network`, newest first. */
  async #trials(network: string, sha: string): Promise<TrialSummary[]> {
    const records: TrialRecord[] = [];
    for (const id of await this.#modules.trialIds(sha)) {
      const record = await this.#platform.store.trials.get(id);
      if (record !== null && record.network === network && record.moduleHash === sha) records.push(record);
    }
    return records.sort((a, b) => b.createdAt - a.createdAt || b.id.localeCompare(a.id)).map(summary);
  }

  async #view(network: string, submission: Submission): Promise<ConnectorView> {
    const trials = await this.#trials(network, submission.sha);
    const installation = await this.#modules.installation(submission.sha);
    const approved = trials.some((trial) => trial.approvedAt !== null);
    const newest = trials.find(offeredForApproval);
    const state: ConnectorState = approved && installation !== null ? 'installed' : approved ? 'approved' : trials.length > 0 ? 'trialled' : 'submitted';
    return {
      sha: submission.sha,
      name: submission.name,
      bytes: submission.bytes,
      submittedBy: submission.submittedBy,
      submittedAt: submission.submittedAt,
      configSchema: submission.configSchema,
      kind: trials[0]?.kind ?? installation?.kind ?? null,
      state,
      trials,
      phases: phasesOf(trials),
      confirmation: newest !== undefined && newest.passed && newest.approvedAt === null ? confirmationPhrase(newest.kind, submission.sha) : null,
      installation: installation === null ? null : { kind: installation.kind, network: installation.network, installedBy: installation.installedBy, installedAt: installation.installedAt },
    };
  }

  /** Registration steps run one at a time, so two installs cannot register one kind twice. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const next = this.#serial.then(work, work);
    this.#serial = next.catch(() => undefined);
    return next;
  }
}

/** A trial someone ran is approved; one the platform ran to check a host's writes is not offered. */
function offeredForApproval(trial: TrialSummary): boolean {
  return trial.host === null;
}

/** The rights part of a host input or change: what `setPermissions` applies once writes passed. */
function rightsOf(input: HostRights): HostRights {
  return { ...(input.permissions === undefined ? {} : { permissions: input.permissions }), ...(input.writable === undefined ? {} : { writable: input.writable }) };
}

function summary(record: TrialRecord): TrialSummary {
  const phase = record.report['phase'];
  const scratchPrefix = record.report['scratchPrefix'];
  const checks = record.report['checks'];
  const writes = Array.isArray(checks) ? (checks as { id?: unknown; status?: unknown }[]).find((check) => check.id === 10) : undefined;
  return {
    id: record.id,
    kind: record.kind,
    passed: record.passed,
    phase: phase === 'install' ? 'install' : 'submit',
    origins: record.origins,
    readEndpoints: stringsOf(record.report['readEndpoints']),
    createdAt: record.createdAt,
    approvedBy: record.approvedBy,
    approvedAt: record.approvedAt,
    declaresWrites: record.report['declaresWrites'] === true,
    scratchPrefix: phase === 'install' && typeof scratchPrefix === 'string' ? scratchPrefix : null,
    writesChecked: phase === 'install' && typeof scratchPrefix === 'string' && writes?.status === 'pass',
    host: typeof record.report['host'] === 'string' ? record.report['host'] : null,
  };
}

/** Phase by phase, from trials newest first. */
function phasesOf(trials: readonly TrialSummary[]): TrialPhases {
  const result = (phase: TrialPhase): PhaseResult => {
    const newest = trials.find((trial) => trial.phase === phase);
    return newest === undefined ? 'not_run' : newest.passed ? 'passed' : 'failed';
  };
  const checkedOn = trials.filter((trial) => trial.passed && trial.writesChecked).map((trial) => trial.scratchPrefix!);
  return { submit: result('submit'), install: result('install'), declaresWrites: trials[0]?.declaresWrites === true, writesCheckedOn: [...new Set(checkedOn)] };
}

/** The SHA-256 of a config's JSON with its keys sorted: the same config however its keys were written. */
function configDigest(config: Readonly<Record<string, unknown>>): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value) ? value.map(sorted) : typeof value === 'object' && value !== null ? Object.fromEntries(Object.keys(value).sort().map((key) => [key, sorted((value as Record<string, unknown>)[key])])) : value;
  return `sha256:${createHash('sha256').update(JSON.stringify(sorted(config))).digest('hex')}`;
}

/** A report's list of strings; [] for a trial recorded before the report had it. */
function stringsOf(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function requirePerson(actor: Actor): void {
  if (actor.agentId !== undefined && actor.agentId !== null) {
    throw new PermissionDeniedError('Approving a connector is a person\'s act; an agent cannot approve one. Ask a person to approve it in the browser or with `inseam approve`.', {
      details: { reason: 'agent_cannot_act' },
    });
  }
}

function checkName(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_NAME_LENGTH || /[\r\n]/.test(value)) {
    throw new InvalidArgumentError(`name must be one line of 1–${MAX_NAME_LENGTH} characters.`, { details: { argument: 'name' } });
  }
  return value.trim();
}

function actorName(actor: Actor): string {
  return actor.agentId === undefined || actor.agentId === null ? actor.userId : `${actor.userId}/${actor.agentId}`;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}
