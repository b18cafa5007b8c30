/**
 * The tree and find tools: walks of the live listing (the filesystem service's list, so an
 * offline host answers from its synced copy and entries the session may not read are never
 * seen), bounded in depth and in entries so one call cannot walk a whole bucket.
 *
 * A folder below the start that cannot be listed (it went away, the host refused) is marked with
 * the error's code and the walk goes on; the start itself failing is the call's error.
 */
import { z } from 'zod';
import { InvalidArgumentError, hasErrorCode } from '@neuralis/package-system/contracts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Caller, FsEntry, FsService } from '../../fs/index.js';
import { compileGlob } from '../../scope/index.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';
import { addressInput } from './inputs.js';

const MAX_TREE_DEPTH = 10;
const MAX_TREE_ENTRIES = 10_000;
const MAX_FIND_DEPTH = 32;
const MAX_FIND_RESULTS = 1000;
/** The most entries one find call lists, matching or not. */
const MAX_FIND_LISTED = 100_000;

const PAGE = 5000;

/** Lists a whole directory, page by page, names only where the host takes that, up to `budget` entries. */
class Lister {
  #names = true;

  constructor(
    private readonly fs: FsService,
    private readonly caller: Caller,
    private readonly signal: AbortSignal,
  ) {}

  /** The directory's global address as the service spells it, and its entries. */
  async children(address: string, budget: number): Promise<{ readonly address: string; readonly entries: FsEntry[]; readonly more: boolean }> {
    const entries: FsEntry[] = [];
    let cursor: string | undefined;
    let global = address;
    while (!this.signal.aborted) {
      const limit = Math.min(this.#names ? PAGE : 1000, Math.max(1, budget - entries.length));
      let page;
      try {
        page = await this.fs.list(this.caller, address, { limit, detail: this.#names ? 'names' : 'full', ...(cursor === undefined ? {} : { cursor }) });
      } catch (error) {
        // A host may refuse names-only listings; its full listing lists the same entries.
        if (!this.#names || cursor !== undefined || !hasErrorCode(error, 'invalid_argument')) throw error;
        this.#names = false;
        continue;
      }
      global = page.address;
      entries.push(...page.entries.slice(0, budget - entries.length));
      cursor = page.cursor;
      if (cursor === undefined || entries.length >= budget) break;
    }
    return { address: global, entries, more: cursor !== undefined || this.signal.aborted };
  }
}

interface TreeNode {
  readonly name: string;
  readonly type: FsEntry['type'];
  children?: TreeNode[];
  /** Entries of this folder left out because the entry bound was reached. */
  more?: true;
  /** Why this folder could not be listed. */
  error?: string;
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code;
  throw error;
}

const treeInput = z.object({
  address: addressInput,
  depth: z.number().int().min(1).max(MAX_TREE_DEPTH).optional().describe(`Levels below the address to show: 1 lists its children only (default 2, at most ${MAX_TREE_DEPTH}).`),
  limit: z.number().int().min(1).max(MAX_TREE_ENTRIES).optional().describe(`The most entries to show in all (default 1000, at most ${MAX_TREE_ENTRIES}).`),
});

export const treeTool: HostedTool = {
  name: 'tree',
  action: 'fs.list',
  title: 'Show a directory tree',
  description:
    'Shows the directories and files below a directory to a bounded depth (default 2) and number of entries (default 1000), depth first, directories ending in "/". ' +
    'A folder whose entries were cut off by the bound is marked "…"; one that could not be listed shows the error code. Entries this session may not read are left out.',
  inputSchema: treeInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof treeInput>, { caller, fs, signal }: HostedToolContext): Promise<CallToolResult> {
    const depth = args.depth ?? 2;
    const limit = args.limit ?? 1000;
    const lister = new Lister(fs, caller, signal);
    let shown = 0;
    let truncated = false;
    const walk = async (address: string, level: number): Promise<{ readonly address: string; readonly nodes: TreeNode[]; readonly more: boolean }> => {
      const { address: global, entries, more } = await lister.children(address, limit - shown);
      shown += entries.length;
      if (more) truncated = true;
      const nodes: TreeNode[] = [];
      for (const entry of entries) {
        const node: TreeNode = { name: entry.name, type: entry.type };
        nodes.push(node);
        if (entry.type !== 'directory' || level >= depth) continue;
        if (shown >= limit) {
          node.more = true;
          truncated = true;
          continue;
        }
        try {
          const below = await walk(entry.address, level + 1);
          node.children = below.nodes;
          if (below.more) node.more = true;
        } catch (error) {
          node.error = codeOf(error);
        }
      }
      return { address: global, nodes, more };
    };
    const top = await walk(args.address, 1);
    const start = top.address;
    const lines: string[] = [];
    const render = (nodes: readonly TreeNode[], indent: string): void => {
      for (const node of nodes) {
        const mark = node.error !== undefined ? `  [${node.error}]` : node.more === true && node.children === undefined ? '  …' : '';
        lines.push(`${indent}${node.name}${node.type === 'directory' ? '/' : ''}${mark}`);
        if (node.children !== undefined) render(node.children, `${indent}  `);
        if (node.children !== undefined && node.more === true) lines.push(`${indent}  …`);
      }
    };
    render(top.nodes, '');
    if (top.more) lines.push('…');
    const head = `${start} — ${shown} entr${shown === 1 ? 'y' : 'ies'}, depth ${depth}${truncated ? ` (cut off at ${limit} entries: raise limit, or call tree on a folder below)` : ''}`;
    return { content: [{ type: 'text', text: `${head}\n${lines.join('\n')}` }], structuredContent: { address: start, depth, entries: shown, truncated, tree: top.nodes as unknown as Record<string, unknown>[] } };
  },
};

const findInput = z.object({
  address: addressInput,
  pattern: z
    .string()
    .min(1)
    .max(1024)
    .describe('A glob: without "/" it matches names ("*.md", "report-202?.pdf"), with "/" the path below address ("docs/**/*.md"). * and ? stay inside one name, ** spans folders, [a-z] a class, \\ escapes.'),
  type: z.enum(['file', 'directory']).optional().describe('Only files, or only directories.'),
  depth: z.number().int().min(1).max(MAX_FIND_DEPTH).optional().describe(`How many levels below address to look (default 16, at most ${MAX_FIND_DEPTH}).`),
  limit: z.number().int().min(1).max(MAX_FIND_RESULTS).optional().describe(`The most matches to return (default 100, at most ${MAX_FIND_RESULTS}).`),
});

export const findTool: HostedTool = {
  name: 'find',
  action: 'fs.list',
  title: 'Find objects by name',
  description:
    `Finds objects below a directory whose name (or, for a pattern with "/", path below it) matches a glob, by walking the host's live listing — so it finds what is there now, not only what was synced. ` +
    `Breadth first (the nearest first), bounded by depth, by limit matches and by ${MAX_FIND_LISTED} listed entries; truncated says when a bound cut the walk short.`,
  inputSchema: findInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof findInput>, { caller, fs, signal }: HostedToolContext): Promise<CallToolResult> {
    const byPath = args.pattern.includes('/');
    const glob = compileGlob(args.pattern, 'path');
    if ('problem' in glob) throw new InvalidArgumentError(`The pattern ${JSON.stringify(args.pattern)} is not a glob: ${glob.problem}`, { details: { argument: 'pattern' } });
    const depth = args.depth ?? 16;
    const limit = args.limit ?? 100;
    const lister = new Lister(fs, caller, signal);
    const matches: { address: string; path: string; type: FsEntry['type'] }[] = [];
    const errors: { path: string; code: string }[] = [];
    let listed = 0;
    let truncated = false;
    let level: { readonly address: string; readonly path: string }[] = [{ address: args.address, path: '' }];
    let start: string | undefined;
    for (let at = 1; at <= depth && level.length > 0 && !truncated; at++) {
      const next: typeof level = [];
      for (const folder of level) {
        if (listed >= MAX_FIND_LISTED || matches.length >= limit) {
          truncated = true;
          break;
        }
        let children;
        try {
          children = await lister.children(folder.address, MAX_FIND_LISTED - listed);
        } catch (error) {
          if (at === 1) throw error;
          errors.push({ path: folder.path, code: codeOf(error) });
          continue;
        }
        start ??= children.address;
        listed += children.entries.length;
        if (children.more) truncated = true;
        for (const entry of children.entries) {
          const path = folder.path === '' ? entry.name : `${folder.path}/${entry.name}`;
          if ((args.type === undefined || args.type === entry.type) && glob.regexp.test(byPath ? path : entry.name)) {
            if (matches.length >= limit) {
              truncated = true;
              break;
            }
            matches.push({ address: entry.address, path, type: entry.type });
          }
          if (entry.type === 'directory') next.push({ address: entry.address, path });
        }
      }
      level = next;
    }
    const lines = matches.map((match) => `${match.address}${match.type === 'directory' ? '/' : ''}`);
    for (const error of errors) lines.push(`not searched: ${error.path}/ [${error.code}]`);
    const head = `${matches.length} match${matches.length === 1 ? '' : 'es'} for ${JSON.stringify(args.pattern)} below ${start ?? args.address} (${listed} entries listed${truncated ? '; cut off by a bound: narrow the address or raise limit' : ''})`;
    return { content: [{ type: 'text', text: `${head}${lines.length === 0 ? '' : `\n${lines.join('\n')}`}` }], structuredContent: { address: start ?? args.address, pattern: args.pattern, matches, listed, truncated, ...(errors.length === 0 ? {} : { errors }) } };
  },
};
