/**
 * `trial_connector` and `install_connector`: how an agent brings a new kind of source in, over
 * the connector lifecycle every surface shares (connectors/lifecycle.ts):
 *
 * - trial_connector submits the module (stored under its SHA-256), runs the conformance trial
 *   (submit phase: the gate in audit mode, reads only) and records it in the caller's network;
 *   it answers the report (`inseam trial --json`'s shape), the origins the module used, the trial
 *   id and the module's sha.
 * - install_connector installs a trialled module — exactly the bytes that were trialled, named by
 *   the trial id (or the sha) — once a person has approved it in the network: it registers the
 *   kind, adds the host (read only: writes are a person's to turn on) and starts its first crawl.
 *   It answers which phases of the module's trials passed in the network (`phases`).
 *
 * - delete_trial deletes a recorded trial that is not approved (an approved one stays), so an
 *   agent that may run trials can clean up after them.
 *
 * Approval is a person's act (the web page, the HTTP API, `inseam approve`) and is never a tool.
 * Private origins (loopback, a NAS) are a person's decision too: only origins the operator
 * allowed when starting the endpoint (`allowPrivateOrigins`) may be reached, never ones named in
 * tool input.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InvalidArgumentError, PreconditionFailedError } from '@neuralis/package-system/contracts';
import type { Actor, ConnectorLifecycle, TrialOutcome, TrialPhases } from '../../connectors/index.js';
import type { Caller } from '../../fs/index.js';
import type { Platform } from '../../platform/index.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';

/** The largest connector module accepted, in characters (the lifecycle checks bytes too). */
export const MAX_MODULE_CHARS = 1024 * 1024;

export interface ConnectorToolsOptions {
  /** Origins (exact `scheme://host[:port]`) a person allowed to be private: loopback, LAN. */
  readonly allowPrivateOrigins?: readonly string[];
}

const config = z.record(z.unknown()).optional().describe('The configuration handed to createConnector(config).');
const credentials = z.record(z.string().max(65536)).optional().describe('Values for the AuthSpec\'s fields; the gate uses them, the module never sees them, nothing stores or repeats them.');
const configSchema = z.record(z.unknown()).optional().describe('A closed draft-07 JSON Schema for host configs of this kind; default: the keys and types of the first host\'s config.');

const trialInput = z.object({
  module: z.string().min(1).max(MAX_MODULE_CHARS).describe('The connector module\'s source: one JavaScript module exporting createConnector(config).'),
  name: z.string().min(1).max(200).optional().describe('A human name for the connector.'),
  config,
  credentials,
  configSchema,
});

const installInput = z.object({
  trialId: z.string().min(1).max(128).optional().describe('The trial id trial_connector returned; a person must have approved the module.'),
  sha: z.string().min(8).max(64).optional().describe('Or the module\'s sha (or a prefix of 8+ digits).'),
  host: z.string().min(1).max(128).describe('The new host\'s slug (its URI scheme inside the network).'),
  label: z.string().min(1).max(200).optional(),
  description: z.string().max(4000).optional().describe('What the host holds, for agents.'),
  config,
  credentials,
  configSchema,
});

const deleteTrialInput = z.object({ trialId: z.string().min(1).max(128).describe('The trial id trial_connector returned.') });

/** What the lifecycle needs of the platform, and the describe step for private origins. */
export type ConnectorToolsPlatform = Pick<Platform, 'sandbox'>;

export class ConnectorTools {
  readonly #lifecycle: ConnectorLifecycle;
  readonly #platform: ConnectorToolsPlatform;
  readonly #allowPrivate: ReadonlySet<string>;

  constructor(lifecycle: ConnectorLifecycle, platform: ConnectorToolsPlatform, options: ConnectorToolsOptions = {}) {
    this.#lifecycle = lifecycle;
    this.#platform = platform;
    this.#allowPrivate = new Set(options.allowPrivateOrigins ?? []);
  }

  tools(): HostedTool[] {
    return [this.#trialTool(), this.#installTool(), this.#deleteTrialTool()];
  }

  #deleteTrialTool(): HostedTool {
    return {
      name: 'delete_trial',
      action: 'trials.delete',
      title: 'Delete a trial record',
      description: 'Deletes a trial that trial_connector (or anyone in this network) recorded, unless a person approved it: an approved trial stays as the record of that approval.',
      inputSchema: deleteTrialInput,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      call: async (args: z.infer<typeof deleteTrialInput>, { caller }: HostedToolContext): Promise<CallToolResult> => {
        await this.#lifecycle.deleteTrial(caller.session.projectId, args.trialId);
        return { content: [{ type: 'text', text: `Deleted trial ${args.trialId}.` }], structuredContent: { deleted: args.trialId } };
      },
    };
  }

  #trialTool(): HostedTool {
    return {
      name: 'trial_connector',
  action: 'connectors.trial',
      title: 'Trial a connector module',
      description:
        'Runs the conformance trial (reads only; writes are refused by the gate) on a connector module against its real host, records it, and returns the report ({ kind, passed, checks, origins }), the trial id and the module sha. ' +
        'A person must approve a passed trial before install_connector can install it.',
      inputSchema: trialInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      call: async (args: z.infer<typeof trialInput>, { caller }: HostedToolContext): Promise<CallToolResult> => {
        const network = caller.session.projectId;
        const actor = actorOf(caller);
        const { connector } = await this.#lifecycle.submit(actor, network, {
          module: args.module,
          ...(args.name === undefined ? {} : { name: args.name }),
          ...(args.configSchema === undefined ? {} : { configSchema: args.configSchema }),
        });
        const allowed = await this.#allowedPrivate(args.module, args.config ?? {});
        const outcome = await this.#lifecycle.trial(actor, network, connector.sha, {
          config: args.config ?? {},
          credentials: args.credentials ?? {},
          ...(allowed.length === 0 ? {} : { allowPrivateOrigins: allowed }),
        });
        return {
          content: [{ type: 'text', text: reportText(outcome, connector.sha) }],
          structuredContent: { trialId: outcome.trial.id, sha: connector.sha, report: { ...outcome.report }, origins: [...outcome.report.origins] },
        };
      },
    };
  }

  #installTool(): HostedTool {
    return {
      name: 'install_connector',
  action: 'connectors.install',
      title: 'Install a trialled connector',
      description:
        'Installs a connector module a person approved after its trial passed: registers its kind, adds a host of it to this network with the given configuration and credentials, and starts the first crawl. ' +
        'Name the module by the trial id (or its sha); what is installed is exactly the module that was trialled.',
      inputSchema: installInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      call: async (args: z.infer<typeof installInput>, { caller }: HostedToolContext): Promise<CallToolResult> => {
        const network = caller.session.projectId;
        if ((args.trialId === undefined) === (args.sha === undefined)) throw new InvalidArgumentError('Name the module by trialId or by sha (one of them).', { details: { argument: 'trialId' } });
        let sha = args.sha;
        let origins: readonly string[] = [];
        if (args.trialId !== undefined) {
          const trial = await this.#lifecycle.trialRecord(network, args.trialId);
          if (!trial.passed) throw new PreconditionFailedError(`Trial ${trial.id} did not pass; only a module whose trial passed and a person approved can be installed.`, { details: { trial: trial.id, reason: 'trial_failed' } });
          sha = trial.moduleHash;
          origins = trial.origins;
        }
        const allowed = origins.filter((origin) => this.#allowPrivate.has(origin));
        const { host, crawl } = await this.#lifecycle.install(actorOf(caller), network, sha!, {
          host: args.host,
          config: args.config ?? {},
          ...(args.credentials === undefined ? {} : { credentials: args.credentials }),
          ...(args.label === undefined ? {} : { label: args.label }),
          ...(args.description === undefined ? {} : { description: args.description }),
          ...(args.configSchema === undefined ? {} : { configSchema: args.configSchema }),
          ...(allowed.length === 0 ? {} : { privateOrigins: allowed }),
        });
        // The crawl goes on after this answer (here or on a worker); its outcome shows in the host's runs.
        if (crawl.where === 'process') void crawl.handle.result.catch(() => undefined);
        const started = crawl.where === 'process' ? 'started' : 'queued';
        // Which phases of the module passed in this network, as the person approving was told.
        const { phases } = await this.#lifecycle.get(network, sha!);
        return {
          content: [{ type: 'text', text: `Installed kind "${host.kind}" and added host ${host.address} (read only); its first crawl has ${started === 'started' ? 'started' : 'been queued for a worker'}.\n${phasesText(phases)}` }],
          structuredContent: { kind: host.kind, host: host.slug, address: host.address, sha: sha!, crawl: started, phases: { ...phases } },
        };
      },
    };
  }

  /**
   * The operator's private origins that the module declares (the trial refuses any other). A
   * module that cannot be described gets none: the trial itself reports why.
   */
  async #allowedPrivate(source: string, moduleConfig: Readonly<Record<string, unknown>>): Promise<string[]> {
    if (this.#allowPrivate.size === 0) return [];
    try {
      const probe = await this.#platform.sandbox.load({ source, label: `describe-${globalThis.crypto.randomUUID().slice(0, 8)}`, config: moduleConfig, egress: UNREACHABLE });
      try {
        return probe.describe().auth.origins.filter((origin) => this.#allowPrivate.has(origin));
      } finally {
        probe.dispose();
      }
    } catch {
      return [];
    }
  }
}

/** Describing needs no network: the module's fetch is refused while it is only described. */
const UNREACHABLE = { fetch: (): Promise<never> => Promise.reject(new Error('The network is not reachable while the module is described.')) };

function actorOf(caller: Caller): Actor {
  return { userId: caller.session.userId, ...(caller.session.agentId === undefined ? {} : { agentId: caller.session.agentId }) };
}

/** The phases line of install_connector's answer. */
function phasesText(phases: TrialPhases): string {
  const shown = (result: TrialPhases['submit']): string => (result === 'not_run' ? 'not run' : result);
  const line = `Trials in this network: read-only (submit) phase ${shown(phases.submit)}, install phase ${shown(phases.install)}.`;
  if (!phases.declaresWrites) return line;
  return `${line} The module declares writes; only a person can make the host writable, and the platform then runs the install-phase trial on a scratch prefix of the host first.`;
}

function reportText(outcome: TrialOutcome, sha: string): string {
  const { report, trial } = outcome;
  const lines = [`Trial ${trial.id} of module ${sha.slice(0, 12)} (kind "${report.kind}", ${report.phase} phase): ${report.passed ? 'PASSED' : 'FAILED'}`];
  for (const check of report.checks) lines.push(`${String(check.id).padStart(2)} ${check.status.toUpperCase()}  ${check.name}${check.detail === '' ? '' : `\n     ${check.detail.replace(/\n/g, '\n     ')}`}`);
  lines.push(`origins used: ${report.origins.length === 0 ? 'none' : report.origins.join(', ')}`);
  lines.push(
    report.passed
      ? `Next: a person reviews this report and approves the module; then call install_connector with trialId "${trial.id}".`
      : 'Next: fix what the failed checks say and call trial_connector again with the changed module.',
  );
  return lines.join('\n');
}
