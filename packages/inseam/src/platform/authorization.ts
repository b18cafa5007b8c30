/**
 * What a session may do, in one table every surface consults: each HTTP route (`RouteSpec.action`)
 * and each of inseam's MCP tools (`HostedTool.action`) names one action here, and the check is
 * the same function for both, so `/v1`, `/mcp`, the CLI and the web page (which go through `/v1`)
 * can never grant differently. A package's MCP tools declare their own `requires.features`; they
 * are checked by the same function (`featuresRule`).
 *
 * A rule holds when:
 * - `public`: always, without a token (the OAuth callback, webhook deliveries, the OpenAPI text,
 *   exchanging a sign-in code);
 * - `features`: the session holds every one of them;
 * - `person`: the session is a person's (no agent acts through it);
 * - `grant`: the session is a person's, or an agent's whose token carries at least one grant of
 *   that right — of each, when the rule names several (a move deletes at its source and writes at
 *   its target) (docs/http.md "Grants"). Where the grant reaches is the filesystem service's
 *   check (fs/access.ts); this one only keeps an agent from being offered, or reaching, an action
 *   it can use nowhere.
 *
 * An action the table does not list is refused, never allowed.
 */
import { PermissionDeniedError } from '@neuralis/package-system/contracts';

/** The features inseam itself checks. A kind's exec entry may ask for more (its `execRequires`). */
export const FEATURES = Object.freeze({
  /** Create networks. */
  networksManage: 'networks.manage',
  /** Add, change and remove hosts, change their permissions, start crawls, install approved connectors. */
  hostsManage: 'hosts.manage',
  /** Submit connector modules, run their trials, delete trial records that are not approved. */
  connectorsTrial: 'connectors.trial',
  /** Approve a connector: a person's act (an agent's token is refused even with the feature). */
  connectorsApprove: 'connectors.approve',
  /** Install, swap and remove connector packages (code that runs in inseam's process): a person's act. */
  packagesManage: 'packages.manage',
  /** Run commands on hosts (the `exec` right of the host's tree still decides where). */
  execMachine: 'exec.machine',
  /** List and call the tools of the network's outbound MCP servers. */
  mcpOutbound: 'mcp.outbound',
});

/** Every feature the table knows: what the first admin token of `inseam up` holds. */
export const ALL_FEATURES: readonly string[] = Object.freeze(Object.values(FEATURES));

/** The rights an agent's token holds only where a grant names them. */
export const GRANT_RIGHTS = ['write', 'delete', 'exec'] as const;
export type GrantRight = (typeof GRANT_RIGHTS)[number];

export interface ActionRule {
  readonly public?: true;
  readonly features?: readonly string[];
  readonly person?: true;
  readonly grant?: GrantRight | readonly GrantRight[];
}

const HOSTS = [FEATURES.hostsManage];
const TRIAL = [FEATURES.connectorsTrial];
const EXEC = [FEATURES.execMachine];
const OUTBOUND = [FEATURES.mcpOutbound];

/** The table. Keys are `<area>.<verb>`; docs/http.md and docs/mcp.md list what uses each. */
export const ACTIONS = Object.freeze({
  'api.describe': { public: true },
  'kinds.list': {},
  'kinds.describe': { features: HOSTS },
  'sources.discoverable': {},
  'networks.list': {},
  'networks.create': { features: [FEATURES.networksManage] },
  'hosts.list': {},
  'hosts.show': {},
  // A host's stored settings (config, scope, permissions), beside what every caller sees of it.
  'hosts.settings': { features: HOSTS },
  'hosts.add': { features: HOSTS },
  'hosts.remove': { features: HOSTS },
  // Changing a host's config, label, scope or sync; a change to its permissions also needs hosts.permissions.
  'hosts.update': { features: HOSTS },
  'hosts.syncs': {},
  // Raising what a host lets anyone do is a person's decision, like approving a connector.
  'hosts.permissions': { features: HOSTS, person: true },
  'hosts.hostKey': { features: HOSTS },
  'hosts.trustKey': { features: HOSTS, person: true },
  'hosts.crawlStatus': {},
  'hosts.crawl': { features: HOSTS },
  'hosts.webhookUrl': { features: HOSTS },
  'hooks.deliver': { public: true },
  'fs.list': {},
  'fs.stat': {},
  'fs.read': {},
  'fs.search': {},
  'fs.write': { grant: 'write' },
  'fs.delete': { grant: 'delete' },
  // mkdir and a copy write (a copy's source is only read); a move removes its source as a delete does.
  'fs.mkdir': { grant: 'write' },
  'fs.copy': { grant: 'write' },
  'fs.move': { grant: ['delete', 'write'] },
  'exec.run': { features: EXEC, grant: 'exec' },
  'runs.start': { features: EXEC, grant: 'exec' },
  // A run's owner can always see and stop it, even after losing the feature or the grant.
  'runs.list': {},
  'runs.status': {},
  'runs.output': {},
  'runs.kill': {},
  'runs.release': {},
  'connectors.list': {},
  'connectors.show': {},
  'connectors.submit': { features: TRIAL },
  'connectors.describe': { features: TRIAL },
  'connectors.trial': { features: TRIAL },
  'connectors.approve': { features: [FEATURES.connectorsApprove], person: true },
  'packages.list': { features: [FEATURES.packagesManage] },
  'packages.add': { features: [FEATURES.packagesManage], person: true },
  'packages.swap': { features: [FEATURES.packagesManage], person: true },
  'packages.remove': { features: [FEATURES.packagesManage], person: true },
  'packages.rescan': { features: [FEATURES.packagesManage], person: true },
  // Who may write which scope depends on the scope asked for: platform/package-secrets.ts decides.
  'credentials.list': {},
  'credentials.set': {},
  'credentials.remove': {},
  'connectors.install': { features: HOSTS },
  'trials.show': {},
  'trials.delete': { features: TRIAL },
  'oauth.start': { features: HOSTS },
  'oauth.callback': { public: true },
  'oauth.flow': {},
  // A one-time sign-in code is the credential: exchanging it needs no token.
  'sessions.create': { public: true },
  // A caller may always learn who it is (its features), so a page can offer only what it may do.
  'sessions.show': {},
  'sessions.end': {},
  'outbound.list': { features: OUTBOUND },
  'outbound.tools': { features: OUTBOUND },
  'outbound.call': { features: OUTBOUND },
} satisfies Record<string, ActionRule>);

export type ActionId = keyof typeof ACTIONS;

/** Who asks, as far as the table cares. */
export interface Subject {
  readonly features: ReadonlySet<string>;
  /** The agent acting through the session, if any. */
  readonly agentId?: string | null | undefined;
  /** The rights of the token's grants (only an agent's token has any). */
  readonly grants?: readonly { readonly right: GrantRight }[] | undefined;
}

/** The rule of an action; undefined for a name the table does not list. */
export function ruleOf(action: string): ActionRule | undefined {
  return Object.hasOwn(ACTIONS, action) ? (ACTIONS as Readonly<Record<string, ActionRule>>)[action] : undefined;
}

/** The rule of a package tool's `requires.features`. */
export function featuresRule(features: readonly string[] | undefined): ActionRule {
  return features === undefined || features.length === 0 ? {} : { features };
}

/** Whether `subject` passes `rule` (an unknown action passes for nobody). Allocates nothing when it does. */
export function allows(rule: ActionRule | undefined, subject: Subject): boolean {
  if (rule === undefined) return false;
  if (rule.public === true) return true;
  for (const feature of rule.features ?? []) if (!subject.features.has(feature)) return false;
  const agent = subject.agentId !== undefined && subject.agentId !== null;
  if (rule.person === true && agent) return false;
  if (rule.grant === undefined || !agent) return true;
  if (typeof rule.grant === 'string') return holdsGrant(subject, rule.grant);
  for (const right of rule.grant) if (!holdsGrant(subject, right)) return false;
  return true;
}

function holdsGrant(subject: Subject, right: GrantRight): boolean {
  return (subject.grants ?? []).some((grant) => grant.right === right);
}

/**
 * Why `subject` may not do what `rule` guards (`what` names it in the message), or null when it
 * may. The error is `permission_denied` with `details.missingFeatures`, or `details.reason`
 * (`agent_cannot_act`, `no_grant`, `unknown_action`).
 */
export function refusal(rule: ActionRule | undefined, subject: Subject, what: string): PermissionDeniedError | null {
  if (allows(rule, subject)) return null;
  if (rule === undefined) return new PermissionDeniedError(`${what} is not in inseam's authorization table, so nobody may call it.`, { details: { reason: 'unknown_action' } });
  const missing = (rule.features ?? []).filter((feature) => !subject.features.has(feature));
  if (missing.length > 0) {
    return new PermissionDeniedError(`${what} needs a token with the feature${missing.length === 1 ? '' : 's'} ${missing.map((feature) => `"${feature}"`).join(', ')}.`, {
      details: { missingFeatures: missing },
    });
  }
  if (rule.person === true) {
    return new PermissionDeniedError(`${what} is a person's decision: use a token that acts for no agent.`, { details: { reason: 'agent_cannot_act' } });
  }
  // What is left to fail is a grant.
  const lacking = (typeof rule.grant === 'string' ? [rule.grant] : (rule.grant ?? [])).filter((right) => !holdsGrant(subject, right));
  const named = lacking.map((right) => `a "${right}" grant`).join(' and ');
  return new PermissionDeniedError(`${what} needs ${named} on this agent's token; a person makes ${lacking.length === 1 ? 'one' : 'them'} with \`inseam token create --agent … --grant ${lacking.join(',')}:<address>\`.`, {
    details: { reason: 'no_grant', right: lacking[0]!, ...(lacking.length > 1 ? { rights: lacking } : {}) },
  });
}

/** Whether `subject` may do `action`. */
export function mayDo(action: ActionId, subject: Subject): boolean {
  return allows(ACTIONS[action], subject);
}
