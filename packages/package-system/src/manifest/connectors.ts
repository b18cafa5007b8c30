/**
 * `connectors[]` entries: `type: "source"` (a source kind backed by a factory in the package) and
 * `type: "mcp"` (an MCP connector over streamable-http, stdio or in-process). Entries are closed:
 * a field not listed for the entry's type is an error, so a typo'd field never becomes a default.
 */
import type { ManifestIssue } from '../contracts/errors.js';
import { CONNECTOR_CAPABILITIES, MANDATORY_CAPABILITIES, isConnectorCapability } from '../contracts/capabilities.js';
import { MCP_REQUIRED_SCOPES, type McpTransport, type PackageTrust } from '../contracts/manifest.js';
import { OWNERSHIP_SCOPES } from '../contracts/session.js';
import { validateConfigSchema, type CheckedSchemaRecord } from './config-schema.js';
import {
  FEATURE_ID_RULE,
  SLUG_RULE,
  checkArray,
  checkBoolean,
  checkEnum,
  checkKnownKeys,
  checkObject,
  checkSlug,
  checkStringList,
  checkText,
} from './fields.js';
import { IssueCollector, at, kindOf, named, oneOf } from './issues.js';
import { checkJsonValue, has, isPlainObject, own, type JsonObject } from './json.js';
import { checkConnectorFactory } from './module-reference.js';
import { checkPermissionTree } from './permissions.js';
import { assertPackageTrust, connectorTrustRequirement, isTrustedOrFirstParty } from './trust.js';

const COMMON_KEYS = ['id', 'type', 'transport', 'name', 'icon', 'category', 'description'] as const;

export const SOURCE_CONNECTOR_KEYS = [
  ...COMMON_KEYS,
  'kind',
  'configSchema',
  'capabilities',
  'execRequires',
  'defaultPermissions',
  'defaultScope',
  'scopeSelectable',
  'allowedScopes',
  'runtimeGated',
  'connectorFactory',
] as const;

export const MCP_CONNECTOR_KEYS = [...COMMON_KEYS, 'url', 'command', 'args', 'env', 'requiredScopes', 'defaultToolFilter'] as const;

const CONNECTOR_TYPES = ['source', 'mcp'] as const;
const MCP_TRANSPORTS = ['streamable-http', 'stdio', 'in-process'] as const satisfies readonly McpTransport[];

/** Fields each MCP transport carries; the others must be absent. */
const TRANSPORT_FIELDS: Readonly<Record<McpTransport, readonly string[]>> = {
  'streamable-http': ['url'],
  stdio: ['command', 'args', 'env'],
  'in-process': [],
};

const EXEC_CAPABILITIES = ['exec', 'execDetached'] as const;

export interface ConnectorEntryOptions {
  readonly trust: PackageTrust;
  /** Prefix for issue paths, e.g. `connectors[3]`; by default paths start at the entry's fields (`capabilities[2]`). */
  readonly path?: string;
}

/** The path of a whole entry checked on its own (no prefix). */
const ENTRY_LABEL = '(entry)';

/**
 * Every issue with one `connectors[]` entry at the given trust. Never throws for a bad entry;
 * throws `InvalidArgumentError` (`invalid_argument`) only for an unknown `options.trust`.
 * Cross-entry rules (unique ids and kinds) are checked by validateManifest.
 */
export function validateConnectorEntry(entry: unknown, options: ConnectorEntryOptions): ManifestIssue[] {
  assertPackageTrust(options.trust);
  const issues = new IssueCollector();
  const path = options.path ?? '';
  checkJsonValue(entry, path, issues, path || ENTRY_LABEL);
  if (issues.size === 0) checkConnectorEntry(entry, path, options.trust, issues);
  return issues.list();
}

/** `connectors` as a whole: each entry, then ids unique across entries and source kinds unique. */
export function checkConnectors(value: unknown, path: string, trust: PackageTrust, issues: IssueCollector, checked?: CheckedSchemaRecord): void {
  const entries = checkArray(value, path, issues, 'an array of connector entries');
  if (entries === undefined) return;
  const firstById = new Map<string, number>();
  const firstByKind = new Map<string, number>();
  entries.forEach((entry, index) => {
    const entryPath = at(path, index);
    checkConnectorEntry(entry, entryPath, trust, issues, checked);
    if (!isPlainObject(entry)) return;
    const id = own(entry, 'id');
    if (typeof id === 'string') {
      const first = firstById.get(id);
      if (first === undefined) firstById.set(id, index);
      else issues.add(at(entryPath, 'id'), `The connector id${named(id)} is already used by ${at(path, first)}.`, 'a connector id unique within the manifest');
    }
    const kind = own(entry, 'kind');
    if (own(entry, 'type') === 'source' && typeof kind === 'string') {
      const first = firstByKind.get(kind);
      if (first === undefined) firstByKind.set(kind, index);
      else issues.add(at(entryPath, 'kind'), `The kind${named(kind)} is already registered by ${at(path, first)}.`, 'one source connector per kind within the manifest');
    }
  });
}

function checkConnectorEntry(value: unknown, path: string, trust: PackageTrust, issues: IssueCollector, checked?: CheckedSchemaRecord): void {
  const entry = checkObject(value, path || ENTRY_LABEL, issues, 'a connector entry object with "type": "source" or "mcp"');
  if (entry === undefined) return;
  checkSlug(entry, 'id', path, issues, SLUG_RULE);
  checkText(entry, 'name', path, issues, { required: true });
  for (const key of ['icon', 'category', 'description']) checkText(entry, key, path, issues, { required: false });
  const type = checkEnum(entry, 'type', path, issues, CONNECTOR_TYPES, { required: true });
  if (type === 'source') checkSourceConnector(entry, path, trust, issues, checked);
  else if (type === 'mcp') checkMcpConnector(entry, path, trust, issues);
}

function checkSourceConnector(entry: JsonObject, path: string, trust: PackageTrust, issues: IssueCollector, checked: CheckedSchemaRecord | undefined): void {
  checkKnownKeys(entry, SOURCE_CONNECTOR_KEYS, path, issues, 'A source connector entry');
  if (!isTrustedOrFirstParty(trust)) {
    issues.add(
      at(path, 'type'),
      `A package with trust "${trust}" cannot contribute source connectors: they run in the host.`,
      'a trusted or first-party package for "type": "source"; untrusted and sandboxed packages may contribute only "type": "mcp" over "streamable-http"',
    );
  }
  checkSlug(entry, 'kind', path, issues, SLUG_RULE);
  checkEnum(entry, 'transport', path, issues, ['in-process'], { required: true }, '"in-process" (source connectors run in the host)');

  const schemaPath = at(path, 'configSchema');
  if (has(entry, 'configSchema')) issues.addAll(validateConfigSchema(own(entry, 'configSchema'), schemaPath, checked));
  else issues.add(schemaPath, 'The field "configSchema" is required.', 'a closed draft-07 JSON Schema: { "type": "object", "additionalProperties": false, "properties": { … } }');

  const capabilities = checkCapabilities(entry, path, issues);
  checkExecRequires(entry, path, capabilities, issues);
  if (has(entry, 'defaultPermissions')) checkPermissionTree(own(entry, 'defaultPermissions'), at(path, 'defaultPermissions'), issues);
  checkScopes(entry, path, issues);
  checkBoolean(entry, 'runtimeGated', path, issues);

  const factoryPath = at(path, 'connectorFactory');
  if (has(entry, 'connectorFactory')) checkConnectorFactory(own(entry, 'connectorFactory'), factoryPath, issues);
  else issues.add(factoryPath, 'The field "connectorFactory" is required.', '"modulePath#exportName", e.g. "./dist/connectors/NotionConnector.js#createNotionConnector"');
}

const CAPABILITIES_ACCEPTED = `a list of distinct capabilities from the closed list (${CONNECTOR_CAPABILITIES.join(', ')}) that includes ${oneOf(MANDATORY_CAPABILITIES).replace(' or ', ' and ')}`;

/** Returns the recognised capabilities declared (even when other items are bad), for dependent rules. */
function checkCapabilities(entry: JsonObject, path: string, issues: IssueCollector): ReadonlySet<string> {
  const declared = new Set<string>();
  const listPath = at(path, 'capabilities');
  if (!has(entry, 'capabilities')) {
    issues.add(listPath, 'The field "capabilities" is required.', CAPABILITIES_ACCEPTED);
    return declared;
  }
  const list = checkArray(own(entry, 'capabilities'), listPath, issues, CAPABILITIES_ACCEPTED);
  if (list === undefined) return declared;
  list.forEach((capability, index) => {
    if (!isConnectorCapability(capability)) {
      const problem = typeof capability === 'string' ? `Unknown capability${named(capability)}.` : `Expected a capability name, got ${kindOf(capability)}.`;
      issues.add(at(listPath, index), problem, `one of the closed capability list: ${CONNECTOR_CAPABILITIES.join(', ')}`);
    } else if (declared.has(capability)) {
      issues.add(at(listPath, index), `The capability "${capability}" is listed twice.`, 'each capability at most once');
    }
    if (typeof capability === 'string') declared.add(capability);
  });
  const missing = MANDATORY_CAPABILITIES.filter((capability) => !declared.has(capability));
  if (missing.length > 0) {
    const names = missing.map((capability) => `"${capability}"`).join(' and ');
    issues.add(listPath, `The mandatory ${missing.length === 1 ? 'capability' : 'capabilities'} ${names} ${missing.length === 1 ? 'is' : 'are'} missing.`, CAPABILITIES_ACCEPTED);
  }
  return declared;
}

const EXEC_REQUIRES_ACCEPTED = 'a non-empty list of distinct feature ids that open a shell on this kind, e.g. ["exec.machine"]';

/**
 * `execRequires` goes with `exec`/`execDetached` in both directions: required and non-empty when
 * either is declared (an empty list grants everyone), refused when neither is (it would read as a
 * gate on a shell the kind does not have).
 */
function checkExecRequires(entry: JsonObject, path: string, capabilities: ReadonlySet<string>, issues: IssueCollector): void {
  const fieldPath = at(path, 'execRequires');
  const execDeclared = EXEC_CAPABILITIES.filter((capability) => capabilities.has(capability));
  if (!has(entry, 'execRequires')) {
    if (execDeclared.length > 0) {
      issues.add(fieldPath, `Declaring "${execDeclared.join('" and "')}" requires execRequires beside it: the feature ids a caller needs to open a shell on this kind.`, EXEC_REQUIRES_ACCEPTED);
    }
    return;
  }
  const value = own(entry, 'execRequires');
  if (execDeclared.length === 0) {
    issues.add(fieldPath, 'execRequires is declared but capabilities include neither "exec" nor "execDetached".', 'no execRequires, or "exec" or "execDetached" in capabilities');
    return;
  }
  if (Array.isArray(value) && value.length === 0) {
    issues.add(fieldPath, 'An empty execRequires would be a door that is always open: every id in an empty list is granted.', EXEC_REQUIRES_ACCEPTED);
    return;
  }
  checkStringList(value, fieldPath, issues, { nonEmpty: true, unique: true, item: FEATURE_ID_RULE, expected: EXEC_REQUIRES_ACCEPTED });
}

const SCOPE_RULE = { pattern: /^(?:project|user|agent)$/, accepted: `one of ${oneOf(OWNERSHIP_SCOPES)}` };

function checkScopes(entry: JsonObject, path: string, issues: IssueCollector): void {
  const defaultScope = checkEnum(entry, 'defaultScope', path, issues, OWNERSHIP_SCOPES, { required: true });
  checkBoolean(entry, 'scopeSelectable', path, issues);
  if (!has(entry, 'allowedScopes')) return;
  const allowedPath = at(path, 'allowedScopes');
  const allowed = checkStringList(own(entry, 'allowedScopes'), allowedPath, issues, {
    nonEmpty: true,
    unique: true,
    item: SCOPE_RULE,
    expected: `a non-empty list of distinct scopes from ${oneOf(OWNERSHIP_SCOPES)} that includes the defaultScope`,
  });
  if (allowed !== undefined && defaultScope !== undefined && !allowed.includes(defaultScope)) {
    issues.add(allowedPath, `allowedScopes does not include the defaultScope "${defaultScope}".`, `a list that includes "${defaultScope}" (the defaultScope)`);
  }
}

function checkMcpConnector(entry: JsonObject, path: string, trust: PackageTrust, issues: IssueCollector): void {
  checkKnownKeys(entry, MCP_CONNECTOR_KEYS, path, issues, 'An mcp connector entry');
  const transport = checkEnum(entry, 'transport', path, issues, MCP_TRANSPORTS, { required: true });
  if (transport !== undefined) {
    checkTransportFields(entry, path, transport, issues);
    const requirement = connectorTrustRequirement('mcp', transport);
    if (requirement !== undefined && !isTrustedOrFirstParty(trust)) {
      issues.add(
        at(path, 'transport'),
        `A package with trust "${trust}" cannot contribute ${requirement}.`,
        '"streamable-http" (in-process and stdio MCP need a trusted or first-party package)',
      );
    }
  }
  if (has(entry, 'requiredScopes')) {
    checkStringList(own(entry, 'requiredScopes'), at(path, 'requiredScopes'), issues, {
      nonEmpty: false,
      unique: true,
      item: { pattern: /^(?:local|project|user|app|managed)$/, accepted: `one of ${oneOf(MCP_REQUIRED_SCOPES)}` },
      expected: `a list of distinct scopes from ${oneOf(MCP_REQUIRED_SCOPES)}`,
    });
  }
  if (has(entry, 'defaultToolFilter')) checkToolFilter(own(entry, 'defaultToolFilter'), at(path, 'defaultToolFilter'), issues);
}

function checkTransportFields(entry: JsonObject, path: string, transport: McpTransport, issues: IssueCollector): void {
  const carried = TRANSPORT_FIELDS[transport];
  for (const field of ['url', 'command', 'args', 'env']) {
    if (has(entry, field) && !carried.includes(field)) {
      const why = transport === 'in-process' ? 'an in-process connector is inbound and needs neither a url nor a command' : `transport "${transport}" does not use it`;
      issues.add(at(path, field), `The field "${field}" does not belong here: ${why}.`, `no "${field}" with transport "${transport}"`);
    }
  }
  if (transport === 'streamable-http') checkHttpUrl(entry, path, issues);
  if (transport === 'stdio') {
    const command = checkText(entry, 'command', path, issues, { required: true }, 'a non-empty command to start the MCP server');
    if (command?.includes('\0')) issues.add(at(path, 'command'), 'The command contains a NUL byte.', 'a command without NUL bytes');
    if (has(entry, 'args')) {
      checkStringList(own(entry, 'args'), at(path, 'args'), issues, {
        nonEmpty: false,
        unique: false,
        item: { pattern: /^[^\0]*$/, accepted: 'a string without NUL bytes' },
        expected: 'a list of argument strings',
      });
    }
    if (has(entry, 'env')) checkEnv(own(entry, 'env'), at(path, 'env'), issues);
  }
}

const URL_ACCEPTED = 'an absolute http:// or https:// URL without user:password@ (secrets belong in credentials[])';

function checkHttpUrl(entry: JsonObject, path: string, issues: IssueCollector): void {
  const url = checkText(entry, 'url', path, issues, { required: true }, URL_ACCEPTED);
  if (url === undefined) return;
  const fieldPath = at(path, 'url');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    issues.add(fieldPath, 'The url is not an absolute URL.', URL_ACCEPTED);
    return;
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    issues.add(fieldPath, 'The url does not use http or https.', URL_ACCEPTED);
  } else if (parsed.username !== '' || parsed.password !== '') {
    issues.add(fieldPath, 'The url embeds credentials.', URL_ACCEPTED);
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkEnv(value: unknown, path: string, issues: IssueCollector): void {
  const env = checkObject(value, path, issues, 'an object of environment variable names to string values');
  if (env === undefined) return;
  for (const name of Object.keys(env)) {
    if (!ENV_NAME.test(name)) issues.add(at(path, name), 'The environment variable name is not well formed.', 'a name of letters, digits and "_", not starting with a digit');
    const variable = own(env, name);
    if (typeof variable !== 'string' || variable.includes('\0')) {
      issues.add(at(path, name), `Expected a string without NUL bytes, got ${kindOf(variable)}.`, 'a string value');
    }
  }
}

function checkToolFilter(value: unknown, path: string, issues: IssueCollector): void {
  const filter = checkObject(value, path, issues, '{ "include"?: [tool names], "exclude"?: [tool names] }');
  if (filter === undefined) return;
  checkKnownKeys(filter, ['include', 'exclude'], path, issues, 'A tool filter');
  for (const key of ['include', 'exclude']) {
    if (has(filter, key)) {
      checkStringList(own(filter, key), at(path, key), issues, { nonEmpty: false, unique: false, expected: 'a list of non-empty tool names' });
    }
  }
}
