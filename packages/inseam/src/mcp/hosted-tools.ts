/**
 * The hosted-tools path: every tool the MCP endpoint serves — inseam's own and those of trusted
 * packages' in-process MCP connectors — is a `HostedTool` in one `HostedTools` set, listed and
 * called the same way. For each call, in this order:
 *
 * 1. the caller comes from the session's authentication (never from the arguments);
 * 2. the tool must exist (`not_found`) and the caller must pass its rule (`permission_denied`
 *    naming what is missing): for inseam's own tools the rule of the `action` they name in the
 *    authorization table (platform/authorization.ts), the same rule the HTTP route of that
 *    action is checked by; for a package's tools its `requires.features`. `tools/list` leaves
 *    out the tools a caller could not call;
 * 3. the arguments are validated against the tool's schema (`invalid_argument` naming the field);
 * 4. the tool runs; whatever it throws becomes an `isError` result with the typed code.
 *
 * Schemas are zod object schemas (zod 3 or 4), the contract McpServer.registerTool takes; their
 * JSON Schema is computed once per tool, not on every `tools/list`.
 */
import type { CallToolResult, Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { normalizeObjectSchema, safeParseAsync, type AnyObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { AlreadyExistsError, InvalidArgumentError, NotFoundError, PermissionDeniedError } from '@neuralis/package-system/contracts';
import type { Caller, FsService } from '../fs/index.js';
import { allows, featuresRule, refusal, ruleOf, type ActionId, type ActionRule, type Subject } from '../platform/authorization.js';
import { toolErrorResult } from './errors.js';

/** What a hosted tool gets besides its arguments. */
export interface HostedToolContext {
  /** The authenticated caller of this request (frozen). Pass it to `fs` as is. */
  readonly caller: Caller;
  /** The filesystem service: every host access goes through its permission checks. */
  readonly fs: FsService;
  /** Aborted when the client cancels the request or goes away. */
  readonly signal: AbortSignal;
}

/**
 * One tool. Annotations must be honest: `readOnlyHint` true only when the tool changes nothing,
 * `destructiveHint` true when it may overwrite or remove something.
 */
export interface HostedTool {
  /** 1–128 of A–Z a–z 0–9 `_` `-` `.`; unique in the set. */
  readonly name: string;
  readonly title?: string;
  readonly description: string;
  /**
   * The description for one caller, when it depends on what the caller can reach (search lists
   * the dimensions of the caller's hosts). `tools/list` uses it; when it fails, `description` is
   * listed instead.
   */
  readonly describe?: (caller: Caller) => Promise<string>;
  /** A zod object schema (zod 3 or 4). Unknown argument fields are dropped by it, never trusted. */
  readonly inputSchema: AnyObjectSchema;
  readonly annotations: ToolAnnotations & { readonly readOnlyHint: boolean; readonly destructiveHint: boolean };
  /** inseam's own tools: the action of the authorization table the tool is (required for them, ignored for a package's). */
  readonly action?: ActionId;
  /** A package's tools: feature ids the caller's session must hold for the tool to be listed and callable. */
  readonly requires?: { readonly features?: readonly string[] };
  call(args: never, context: HostedToolContext): Promise<CallToolResult>;
}

const TOOL_NAME = /^[A-Za-z0-9._-]{1,128}$/;

/** The `_meta` key of a listing naming the action of inseam's authorization table the tool is. */
export const ACTION_META = 'inseam/action';
/** The `_meta` key of a package tool's listing naming the features it requires. */
export const FEATURES_META = 'inseam/requires';

interface Prepared {
  readonly tool: HostedTool;
  readonly schema: AnyObjectSchema;
  readonly listing: Tool;
  /** Who may list and call it. */
  readonly rule: ActionRule;
  /** The package that contributed it; absent for inseam's own tools. */
  readonly packageId?: string;
  /** The only network whose callers see it (a package loaded for one network). */
  readonly network?: string;
  /** Whether its package is on the caller's network's hosting enable list now. */
  readonly enabledIn?: (network: string) => boolean;
}

/** Where tools come from: inseam itself (nothing set) or a package, perhaps loaded for one network. */
export interface HostedToolOrigin {
  readonly packageId?: string;
  readonly network?: string;
  /** A package's tools are seen only in the networks where this answers true (its enabled state there). */
  readonly enabledIn?: (network: string) => boolean;
}

export class HostedTools {
  readonly #tools = new Map<string, Prepared>();

  /**
   * Adds tools. Throws `invalid_argument` for a bad name, a schema that is not a zod object or
   * missing hints, and `already_exists` for a name the set holds — nothing is added then.
   */
  add(tools: readonly HostedTool[], origin: HostedToolOrigin = {}): void {
    const prepared = tools.map((tool) => prepare(tool, origin));
    const names = new Set<string>();
    for (const { tool } of prepared) {
      if (this.#tools.has(tool.name) || names.has(tool.name)) throw new AlreadyExistsError(`A hosted tool named "${tool.name}" is already served.`, { details: { tool: tool.name } });
      names.add(tool.name);
    }
    for (const entry of prepared) this.#tools.set(entry.tool.name, entry);
  }

  /** The names of the tools a package contributed. */
  namesOf(packageId: string): string[] {
    return [...this.#tools.values()].filter((entry) => entry.packageId === packageId).map((entry) => entry.tool.name);
  }

  /** The tools this caller may call, as `tools/list` describes them. */
  list(caller: Caller): Tool[] {
    const subject = subjectOf(caller);
    return [...this.#tools.values()].filter((entry) => visible(entry, caller) && allows(entry.rule, subject)).map((entry) => entry.listing);
  }

  /** As list, with each tool's description for this caller where it has one (HostedTool.describe). */
  async describedList(caller: Caller): Promise<Tool[]> {
    const subject = subjectOf(caller);
    const entries = [...this.#tools.values()].filter((entry) => visible(entry, caller) && allows(entry.rule, subject));
    return Promise.all(
      entries.map(async ({ tool, listing }) => {
        if (tool.describe === undefined) return listing;
        const description = await tool.describe(caller).catch(() => tool.description);
        return { ...listing, description };
      }),
    );
  }

  /** Runs one call (see the module comment). Never throws: failures are `isError` results. */
  async call(name: string, args: unknown, context: HostedToolContext): Promise<CallToolResult> {
    try {
      const entry = this.#tools.get(name);
      if (entry === undefined || !visible(entry, context.caller)) throw new NotFoundError(`There is no tool "${name}"; tools/list names the tools this session can call.`, { details: { tool: name } });
      const refused = refusalOf(entry, context.caller);
      if (refused !== null) throw new PermissionDeniedError(refused.message, { details: { tool: name, ...refused.details } });
      const parsed = await safeParseAsync(entry.schema, args ?? {});
      if (!parsed.success) throw invalidArguments(name, parsed.error);
      return await entry.tool.call(parsed.data as never, context);
    } catch (error) {
      return toolErrorResult(error);
    }
  }
}

function prepare(tool: HostedTool, origin: HostedToolOrigin): Prepared {
  const name = typeof tool?.name === 'string' ? tool.name : '';
  if (!TOOL_NAME.test(name)) throw new InvalidArgumentError(`A hosted tool name must be 1–128 of A–Z, a–z, 0–9, "_", "-" and "."; ${JSON.stringify(name)} is not.`, { details: { argument: 'name' } });
  if (typeof tool.description !== 'string' || tool.description === '') throw new InvalidArgumentError(`Hosted tool "${name}" needs a description.`, { details: { tool: name } });
  if (typeof tool.call !== 'function') throw new InvalidArgumentError(`Hosted tool "${name}" needs a call(args, context) function.`, { details: { tool: name } });
  const annotations = tool.annotations as Partial<HostedTool['annotations']> | undefined;
  if (typeof annotations?.readOnlyHint !== 'boolean' || typeof annotations.destructiveHint !== 'boolean') {
    throw new InvalidArgumentError(`Hosted tool "${name}" must say whether it is read-only and whether it is destructive (annotations.readOnlyHint, annotations.destructiveHint).`, { details: { tool: name } });
  }
  let rule: ActionRule = featuresRule(tool.requires?.features);
  if (origin.packageId === undefined) {
    const own = tool.action === undefined ? undefined : ruleOf(tool.action);
    if (own === undefined) throw new InvalidArgumentError(`inseam's tool "${name}" must name its action in the authorization table (platform/authorization.ts).`, { details: { tool: name } });
    rule = own;
  }
  const schema = normalizeObjectSchema(tool.inputSchema);
  if (schema === undefined) throw new InvalidArgumentError(`Hosted tool "${name}" needs a zod object schema as inputSchema.`, { details: { tool: name } });
  const listing: Tool = {
    name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    description: tool.description,
    inputSchema: toJsonSchemaCompat(schema, { strictUnions: true, pipeStrategy: 'input' }) as Tool['inputSchema'],
    annotations: { ...tool.annotations, ...(tool.title === undefined ? {} : { title: tool.title }) },
    // What the client may know of who may call it: the action of inseam's table, or a package's features.
    _meta: origin.packageId === undefined ? { [ACTION_META]: tool.action } : { [FEATURES_META]: [...(rule.features ?? [])] },
  };
  return { tool, schema, listing, rule, ...(origin.packageId === undefined ? {} : { packageId: origin.packageId }), ...(origin.network === undefined ? {} : { network: origin.network }), ...(origin.enabledIn === undefined ? {} : { enabledIn: origin.enabledIn }) };
}

function visible(entry: Prepared, caller: Caller): boolean {
  const network = caller.session.projectId;
  return (entry.network === undefined || entry.network === network) && (entry.enabledIn === undefined || entry.enabledIn(network));
}

function subjectOf(caller: Caller): Subject {
  return { features: caller.session.features, agentId: caller.session.agentId, grants: caller.grants };
}

function refusalOf(entry: Prepared, caller: Caller): PermissionDeniedError | null {
  return refusal(entry.rule, subjectOf(caller), `The tool "${entry.tool.name}"`);
}

interface Issue {
  readonly path?: readonly PropertyKey[];
  readonly message?: string;
}

function invalidArguments(tool: string, error: unknown): InvalidArgumentError {
  const issues = ((error as { issues?: readonly Issue[] } | undefined)?.issues ?? []).slice(0, 5);
  const described = issues.map((issue) => `${issue.path !== undefined && issue.path.length > 0 ? issue.path.map(String).join('.') : 'arguments'}: ${issue.message ?? 'invalid'}`);
  const first = issues[0]?.path?.map(String).join('.');
  return new InvalidArgumentError(`Invalid arguments for tool "${tool}": ${described.length > 0 ? described.join('; ') : 'they do not match its input schema'}.`, {
    details: { tool, argument: first === undefined || first === '' ? 'arguments' : first },
  });
}
