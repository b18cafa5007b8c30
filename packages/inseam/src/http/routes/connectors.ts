/**
 * The sandboxed connector lifecycle (inseam/connectors): submit a module, trial it, a person
 * approves it, install it. Approval is deliberately only here and in `inseam approve`: it needs a
 * token with `connectors.approve` that is a person's (no agent) and the confirmation phrase typed
 * by that person; it is never an MCP tool.
 */
import { PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { Actor } from '../../connectors/index.js';
import { MAX_MODULE_BYTES } from '../../connectors/index.js';
import type { Call, RouteSpec } from '../route.js';
import { approvalSummary, authView, connectorView, hostFields, hostSlug, installOutcome, shaParams, trialOutcome, trialSummary } from '../schemas.js';
import { authViewOf, crawlStatusOf, firstProgress, requirePersonForWrites } from './hosts.js';
import { parseTrialSamples } from '../../trial/index.js';

const TAG = 'connectors';

function actor(call: Call): Actor {
  return { userId: call.principal.userId, agentId: call.principal.agentId };
}

function sha(call: Call): string {
  return (call.request.params as { sha: string }).sha.toLowerCase();
}

function trialId(call: Call): string {
  return (call.request.params as { id: string }).id;
}

const trialParams = { type: 'object', properties: { id: { type: 'string', minLength: 1, maxLength: 128 } }, required: ['id'], additionalProperties: false };
const confirmBody = {
  type: 'object',
  properties: { confirm: { type: 'string', maxLength: 300, description: 'Typed by the person: approve <kind> <first 12 hex digits of the sha>.' } },
  required: ['confirm'],
  additionalProperties: false,
};
const trialRecord = {
  ...trialSummary,
  properties: { ...(trialSummary['properties'] as object), moduleHash: { type: 'string' }, report: { type: 'object' }, confirmation: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
};

const configObject = { type: 'object', description: 'Handed to the module\'s createConnector(config).' };

export const connectorRoutes: readonly RouteSpec[] = [
  {
    method: 'GET',
    url: '/v1/connectors',
    operationId: 'listConnectors',
    action: 'connectors.list',
    summary: 'Submitted connector modules, with their trials and approvals in the caller\'s network',
    tag: TAG,
    responses: { 200: { description: 'Modules, newest first.', schema: { type: 'array', items: connectorView } } },
    handler: async (call) => call.services.connectors.list(await call.network()),
  },
  {
    method: 'POST',
    url: '/v1/connectors',
    operationId: 'submitConnector',
    action: 'connectors.submit',
    summary: 'Submit a connector module (stored by its SHA-256)',
    description: 'The same text again answers 200 with the stored submission. `configSchema` is the closed JSON Schema of a host\'s config; without it, install infers one from the first host\'s config.',
    tag: TAG,
    bodyLimit: MAX_MODULE_BYTES * 2,
    body: {
      type: 'object',
      properties: {
        module: { type: 'string', minLength: 1, description: 'The module\'s JavaScript text: one ES module, no imports, exporting createConnector(config).' },
        name: { type: 'string', minLength: 1, maxLength: 200 },
        configSchema: { type: 'object' },
      },
      required: ['module'],
      additionalProperties: false,
    },
    responses: { 201: { description: 'Stored.', schema: connectorView }, 200: { description: 'Stored already.', schema: connectorView } },
    handler: async (call) => {
      const body = call.request.body as { module: string; name?: string; configSchema?: Record<string, unknown> };
      const { connector, created } = await call.services.connectors.submit(actor(call), await call.network(), body);
      call.reply.code(created ? 201 : 200);
      return connector;
    },
  },
  {
    method: 'GET',
    url: '/v1/connectors/:sha',
    operationId: 'getConnector',
    action: 'connectors.show',
    summary: 'One submitted module',
    tag: TAG,
    params: shaParams,
    responses: { 200: { description: 'The module\'s state.', schema: connectorView } },
    handler: async (call) => call.services.connectors.get(await call.network(), sha(call)),
  },
  {
    method: 'POST',
    url: '/v1/connectors/:sha/describe',
    operationId: 'describeConnector',
    action: 'connectors.describe',
    summary: 'Load a submitted module with a config and say how its host authenticates',
    description:
      'What a trial or install form needs before it asks for credentials: the kind the module describes for this config and its AuthSpec (fields, which are secret, the OAuth grant, the declared origins). The module runs in the sandbox without network access; nothing is recorded.',
    tag: TAG,
    params: shaParams,
    body: { type: 'object', properties: { config: configObject }, required: ['config'], additionalProperties: false },
    responses: { 200: { description: 'The kind and its auth.', schema: { type: 'object', properties: { kind: { type: 'string' }, auth: authView }, required: ['kind', 'auth'] } } },
    handler: async (call) => {
      const { config } = call.request.body as { config: Record<string, unknown> };
      const description = await call.services.connectors.describeModule(await call.network(), sha(call), config);
      return { kind: description.kind, auth: authViewOf(description.auth) };
    },
  },
  {
    method: 'POST',
    url: '/v1/connectors/:sha/trial',
    operationId: 'trialConnector',
    action: 'connectors.trial',
    optionalBody: true,
    summary: 'Run the conformance trial on a submitted module and record it',
    description:
      'Runs the eleven checks against the real host behind the egress gate (submit phase: reads only). The trial is recorded in the network, passed or not. Credentials fill the AuthSpec fields for the gate; the module never sees them and they are not stored. `allowPrivateOrigins` (declared origins on private addresses) is a person\'s decision: an agent\'s token naming any is refused.',
    tag: TAG,
    params: shaParams,
    body: {
      type: 'object',
      properties: {
        config: configObject,
        credentials: { type: 'object', additionalProperties: { type: 'string' } },
        phase: { type: 'string', enum: ['submit', 'install'] },
        scratchPrefix: { type: 'string', minLength: 1, maxLength: 1024 },
        allowPrivateOrigins: { type: 'array', items: { type: 'string' } },
        webhookSample: { type: 'object' },
        samples: { type: 'array', maxItems: 64, items: { type: 'object' } },
      },
      additionalProperties: false,
    },
    responses: { 200: { description: 'The recorded trial and its report.', schema: trialOutcome } },
    handler: async (call) => {
      const body = (call.request.body ?? {}) as { allowPrivateOrigins?: string[] };
      if ((body.allowPrivateOrigins ?? []).length > 0 && call.principal.agentId !== null) {
        // Letting code reach a private address (loopback, the LAN) is a person's decision.
        throw new PermissionDeniedError('Only a person\'s token can let a trial reach private origins (allowPrivateOrigins); an agent\'s cannot.', { details: { reason: 'agent_cannot_allow_private' } });
      }
      const { samples, ...rest } = body as typeof body & { samples?: unknown };
      return call.services.connectors.trial(actor(call), await call.network(), sha(call), { ...rest, ...(samples === undefined ? {} : { samples: parseTrialSamples(samples) }) });
    },
  },
  {
    method: 'POST',
    url: '/v1/connectors/:sha/approve',
    operationId: 'approveConnector',
    action: 'connectors.approve',
    summary: 'Approve a module whose newest trial passed — a person\'s act',
    description:
      'Needs a token with `connectors.approve` that acts for no agent, and `confirm`: the phrase `approve <kind> <first 12 hex digits of the sha>` typed by the person (GET the module for its `confirmation`). Approves exactly this sha in the caller\'s network.',
    tag: TAG,
    params: shaParams,
    body: confirmBody,
    responses: { 200: { description: 'The approved trial, and what the module\'s trials showed phase by phase (`phases`).', schema: approvalSummary } },
    handler: async (call) => {
      const { confirm } = call.request.body as { confirm: string };
      return call.services.connectors.approve(actor(call), await call.network(), sha(call), confirm);
    },
  },
  {
    method: 'GET',
    url: '/v1/trials/:id',
    operationId: 'getTrial',
    action: 'trials.show',
    summary: 'One recorded trial of the caller\'s network, with its report',
    description: 'Also trials recorded by the MCP endpoint\'s trial_connector. `confirmation` is the phrase a person types to approve it.',
    tag: TAG,
    params: trialParams,
    responses: { 200: { description: 'The trial.', schema: trialRecord } },
    handler: async (call) => call.services.connectors.trialRecord(await call.network(), trialId(call)),
  },
  {
    method: 'DELETE',
    url: '/v1/trials/:id',
    operationId: 'deleteTrial',
    action: 'trials.delete',
    summary: 'Delete a recorded trial that is not approved',
    description:
      'Whoever may run trials (`connectors.trial`) may delete them, also those the MCP tool trial_connector recorded. An approved trial stays (412 `precondition_failed`, `details.reason: approved`): it is the record of a person\'s approval, which install relies on.',
    tag: TAG,
    params: trialParams,
    responses: { 204: { description: 'Deleted.' } },
    handler: async (call) => {
      await call.services.connectors.deleteTrial(await call.network(), trialId(call));
      return undefined;
    },
  },
  {
    method: 'POST',
    url: '/v1/trials/:id/approve',
    operationId: 'approveTrial',
    action: 'connectors.approve',
    summary: 'Approve one passed trial by its id — a person\'s act',
    description: 'The same rules as approving a module: a token with `connectors.approve` acting for no agent, and `confirm` typed by the person. This is how a trial made by the MCP tool trial_connector is approved before install_connector.',
    tag: TAG,
    params: trialParams,
    body: confirmBody,
    responses: { 200: { description: 'The approved trial, and what the module\'s trials showed phase by phase (`phases`).', schema: approvalSummary } },
    handler: async (call) => {
      const { confirm } = call.request.body as { confirm: string };
      return call.services.connectors.approveTrial(actor(call), await call.network(), trialId(call), confirm);
    },
  },
  {
    method: 'POST',
    url: '/v1/connectors/:sha/install',
    operationId: 'installConnector',
    action: 'connectors.install',
    summary: 'Install an approved module: register its kind, add the host, start its first crawl',
    description:
      'Needs an approval of exactly this sha in the caller\'s network (412 `precondition_failed` otherwise). A module that declares writes, installed writable (or with a tree granting write), needs a `scratchPrefix` (412, `details.reason: writes_not_trialled`): the host is added read only, the platform runs the install-phase trial of it (its config, credentials and private origins) on that folder, and writes are turned on only if it passed with check 10 passing. `writes` says what happened — the failing check\'s message when the host stays read only.',
    tag: TAG,
    params: shaParams,
    body: {
      type: 'object',
      properties: {
        host: hostSlug,
        configSchema: { type: 'object' },
        ...hostFields,
        config: configObject,
        scratchPrefix: { type: 'string', minLength: 1, maxLength: 1024, description: 'The host folder where the platform\'s install-phase trial may write: needed to install a module that declares writes writable.' },
      },
      required: ['host'],
      additionalProperties: false,
    },
    responses: {
      201: {
        description: 'Installed; the first crawl has started (or, on the shared store, is queued: `crawl.state` says which).',
        schema: installOutcome,
      },
    },
    handler: async (call) => {
      requirePersonForWrites(call, call.request.body as Parameters<typeof requirePersonForWrites>[1]);
      const network = await call.network();
      const { host, crawl, writes } = await call.services.connectors.install(actor(call), network, sha(call), call.request.body as { host: string });
      if (crawl.where === 'process') await firstProgress(crawl.handle).catch(() => undefined);
      call.reply.code(201);
      return { host, crawl: await crawlStatusOf(call.services.platform, { network, host: host.slug }), writes };
    },
  },
];
