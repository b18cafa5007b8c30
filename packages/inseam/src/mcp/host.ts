/**
 * The MCP host: one per endpoint process. It holds the hosted tools (inseam's and enabled
 * packages'), the connector lifecycle tools and the outbound connectors, and makes one SDK
 * `Server` per MCP session — over stdio that is the process, over HTTP one per `Mcp-Session-Id`.
 *
 * Identity. Every request's caller comes from the transport's authentication: over HTTP the
 * bearer token of that very request (handed in through the SDK's `authInfo`), over stdio the
 * caller the command resolved at start. Tool arguments never carry identity.
 *
 * What the session's client can show. MCP has no standard flag for "the model takes images", so
 * a client declares it in `initialize` under `capabilities.experimental["inseam/model"]`
 * (`{ "image": true, "video": true }`); the stdio command also takes it from `--images`. This is a
 * rendering hint, not identity: without it image bytes come back as a marker naming the object.
 *
 * Besides tools, a session offers the runtime-stack block (the caller's hosts, their
 * descriptions and the packages overview) as the resource `inseam:runtime-stack` and the prompt
 * `runtime_stack`, and reads any object as a resource through the template
 * `inseam://{network}/{host}/{+path}` (one message, at most MCP_MAX_READ_BYTES; larger objects
 * are read with the read tool in ranges).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { Description } from '@inseam/connector';
import { isConnectorError } from '@neuralis/package-system/contracts';
import { ConnectorLifecycle } from '../connectors/index.js';
import type { Caller, FsService, ModelCapabilities } from '../fs/index.js';
import type { Platform } from '../platform/index.js';
import type { WhereDimensions } from '../search/index.js';
import { toolErrorBody } from './errors.js';
import { HostedTools } from './hosted-tools.js';
import { OutboundConnectors } from './outbound/connectors.js';
import { OutboundMcpStore } from './outbound/store.js';
import { packageToolSets } from './package-tools.js';
import { ConnectorTools } from './tools/connectors.js';
import { EXEC_TOOLS } from './tools/exec.js';
import { fileTools } from './tools/files.js';
import { MCP_MAX_READ_BYTES } from './tools/inputs.js';
import { outboundTools } from './tools/outbound.js';

/** The resource holding the runtime-stack block. */
export const RUNTIME_STACK_URI = 'inseam:runtime-stack';
/** The prompt holding the runtime-stack block. */
export const RUNTIME_STACK_PROMPT = 'runtime_stack';
/** Where a client declares what its model can take in (see the module comment). */
export const MODEL_CAPABILITY = 'inseam/model';
/** The key of `authInfo.extra` that carries a request's authenticated caller. */
export const CALLER_KEY = 'inseam.caller';

const INSTRUCTIONS =
  'inseam mounts many sources (folders, buckets, APIs) into one filesystem. Addresses are inseam://{network}/{host}/{path} or, in this session\'s network, {host}://{path}. ' +
  'Start with the hosts tool (or the runtime_stack prompt); tree and find walk folders. read pages: continue with offset = nextOffset until done. Change text with edit (exact replacements); pass the etag you read as ifMatch when you write, edit or delete. ' +
  'Failed calls say [code] and carry structuredContent.error.code.';

export interface McpHostDeps {
  readonly platform: Platform;
  readonly fs: FsService;
  /** The connector lifecycle the other surfaces use; one is made on the platform when absent. */
  readonly connectors?: ConnectorLifecycle;
}

export interface McpHostOptions {
  /** The MCP-hosting enable list: packages whose in-process MCP connector's tools are served. */
  readonly hostedPackages?: readonly string[];
  /** Private origins (loopback, LAN) a person allowed for trials and installed connectors. */
  readonly allowPrivateOrigins?: readonly string[];
  /** Per-check timeout of trial_connector, in ms, when the host makes its own lifecycle. */
  readonly trialCheckTimeoutMs?: number;
  /** Outbound connections: closed after `idleMs` unused; requests give up after `timeoutMs`. */
  readonly outbound?: { readonly idleMs?: number; readonly timeoutMs?: number };
}

export interface McpSessionOptions {
  /** The caller of every request of the session (stdio). Over HTTP each request brings its own. */
  readonly caller?: Caller;
  /** What the model can take in, as the person starting the session declared it. */
  readonly model?: ModelCapabilities;
}

const SERVER_INFO = { name: 'inseam', version: '0.1.0' };

export class McpHost {
  readonly tools: HostedTools;
  readonly outbound: OutboundConnectors;
  readonly #fs: FsService;
  #closing: Promise<void> | undefined;

  private constructor(deps: McpHostDeps, tools: HostedTools, outbound: OutboundConnectors) {
    this.#fs = deps.fs;
    this.tools = tools;
    this.outbound = outbound;
  }

  /**
   * Assembles the host. Throws as packageToolSets for the enable list, `already_exists` when a
   * package tool's name is taken, and the store's errors for the outbound table.
   */
  static async open(deps: McpHostDeps, options: McpHostOptions = {}): Promise<McpHost> {
    const { platform } = deps;
    const tools = new HostedTools();
    const lifecycle = deps.connectors ?? new ConnectorLifecycle(platform, options.trialCheckTimeoutMs === undefined ? {} : { checkTimeoutMs: options.trialCheckTimeoutMs });
    const connectorTools = new ConnectorTools(lifecycle, platform, options.allowPrivateOrigins === undefined ? {} : { allowPrivateOrigins: options.allowPrivateOrigins });
    const outbound = new OutboundConnectors({ store: await OutboundMcpStore.open(platform.store, platform.credentialStore), loader: platform.loader, ...options.outbound, clientInfo: SERVER_INFO });
    tools.add([...fileTools(whereDimensionsOf(platform, deps.fs)), ...EXEC_TOOLS, ...connectorTools.tools(), ...outboundTools(outbound)]);
    // A person named these packages (the option, `--host-package`): enabled in every network, not auto.
    // Their tools are then seen in a network only while the package stays enabled there.
    for (const set of await packageToolSets(platform.loader, options.hostedPackages ?? [])) {
      platform.packageStates.enableEverywhere(set.packageId);
      const { packageStates } = platform;
      tools.add(set.tools, { packageId: set.packageId, ...(set.network === undefined ? {} : { network: set.network }), enabledIn: (network) => packageStates.enabled(set.packageId, network) });
    }
    return new McpHost(deps, tools, outbound);
  }

  /** A new SDK server for one session; connect it to a transport. */
  createServer(session: McpSessionOptions = {}): Server {
    const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS });
    const callerOf = (authInfo: { readonly extra?: Record<string, unknown> } | undefined): Caller => {
      const base = (authInfo?.extra?.[CALLER_KEY] as Caller | undefined) ?? session.caller;
      if (base === undefined) throw new McpError(ErrorCode.InvalidRequest, 'This request carries no authenticated caller.');
      return { session: base.session, ...(base.grants === undefined ? {} : { grants: base.grants }), model: modelOf(server, session.model) };
    };
    server.setRequestHandler(ListToolsRequestSchema, async (_request, extra) => ({ tools: await this.tools.describedList(callerOf(extra.authInfo)) }));
    server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
      this.tools.call(request.params.name, request.params.arguments, { caller: callerOf(extra.authInfo), fs: this.#fs, signal: extra.signal }),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [{ uri: RUNTIME_STACK_URI, name: 'runtime-stack', title: 'Runtime stack', description: 'This session\'s hosts with their descriptions and liveness, and the loaded packages.', mimeType: 'text/plain' }],
    }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: [{ uriTemplate: 'inseam://{network}/{host}/{+path}', name: 'object', title: 'An object on a host', description: `Any object by its address, in one message of at most ${MCP_MAX_READ_BYTES} bytes; page larger ones with the read tool.` }],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, (request, extra) => typed(() => this.#readResource(request.params.uri, callerOf(extra.authInfo))));
    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: [{ name: RUNTIME_STACK_PROMPT, title: 'Runtime stack', description: 'The hosts this session can reach and the loaded packages, for a system prompt.' }],
    }));
    server.setRequestHandler(GetPromptRequestSchema, (request, extra) =>
      typed(async () => {
        if (request.params.name !== RUNTIME_STACK_PROMPT) throw new McpError(ErrorCode.InvalidParams, `There is no prompt "${request.params.name}".`);
        const text = await this.#fs.runtimeStack(callerOf(extra.authInfo));
        return { description: 'The runtime stack of this session', messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
      }),
    );
    return server;
  }

  /** Closes the outbound connections. Idempotent. */
  close(): Promise<void> {
    this.#closing ??= this.outbound.close();
    return this.#closing;
  }

  async #readResource(uri: string, caller: Caller): Promise<ReadResourceResult> {
    if (uri === RUNTIME_STACK_URI) return { contents: [{ uri, mimeType: 'text/plain', text: await this.#fs.runtimeStack(caller) }] };
    // A resource is read whole: a person or program asked for it, so no model gate applies.
    const page = await this.#fs.read({ session: caller.session }, uri, { maxBytes: MCP_MAX_READ_BYTES });
    if (page.encoding === 'text') return { contents: [{ uri: page.address, mimeType: page.mime, text: page.content }] };
    if (page.encoding === 'base64') return { contents: [{ uri: page.address, mimeType: page.mime, blob: page.content }] };
    throw new McpError(ErrorCode.InvalidParams, `[too_large] ${page.address} is ${page.size} bytes, over the ${MCP_MAX_READ_BYTES}-byte cap of one resource message; read it with the read tool in byte ranges.`, {
      code: 'too_large',
    });
  }
}

/**
 * The dimensions of the hosts a caller may use, for search's description. A kind's description
 * is asked once per host version (a sandboxed kind's describe() runs connector code), and a host
 * whose kind cannot describe itself now is left out rather than failing the listing.
 */
function whereDimensionsOf(platform: Platform, fs: FsService): (caller: Caller) => Promise<WhereDimensions[]> {
  const described = new Map<string, Promise<Description['dimensions'] | null>>();
  return async (caller) => {
    const hosts = await fs.hosts(caller);
    const dimensions = await Promise.all(
      hosts.map(async (host) => {
        const record = await platform.store.hosts.get({ network: host.network, host: host.slug });
        if (record === null) return null;
        const key = `${record.id}@${record.updatedAt}`;
        let known = described.get(key);
        if (known === undefined) {
          // Host versions only ever grow; forgetting them all now and then keeps the map small.
          if (described.size >= 1000) described.clear();
          known = platform.kinds.describe(record).then((description) => description.dimensions, () => null);
          described.set(key, known);
        }
        const found = await known;
        return found === null ? null : { host: host.slug, dimensions: found };
      }),
    );
    return dimensions.filter((entry) => entry !== null);
  };
}

/** The model capabilities of a session: the person's declaration, or the client's. */
function modelOf(server: Server, declared: ModelCapabilities | undefined): ModelCapabilities {
  const experimental = server.getClientCapabilities()?.experimental?.[MODEL_CAPABILITY] as { image?: unknown; video?: unknown } | undefined;
  return { image: declared?.image === true || experimental?.image === true, video: declared?.video === true || experimental?.video === true };
}

/** Runs a non-tool request; typed failures become JSON-RPC errors carrying their code. */
async function typed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    const body = toolErrorBody(error);
    throw new McpError(isConnectorError(error) && error.code === 'permission_denied' ? ErrorCode.InvalidRequest : ErrorCode.InvalidParams, body.code === null ? body.message : `[${body.code}] ${body.message}`, body);
  }
}
