/**
 * The tools that change where things are: move, copy and mkdir — the filesystem service's
 * operations of the same names with the session's caller, so the rights, grants, catalog updates
 * and refusals are those of `POST /v1/fs/move|copy|mkdir` and `inseam mv|cp|mkdir` (docs/fs.md
 * "Folders", "Copies and moves"). The authorization table lists them only to an agent holding the
 * grants they need somewhere: write for mkdir and copy, write and delete for move.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FsTransfer } from '../../fs/index.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';
import { addressInput } from './inputs.js';

function transferText(verb: string, done: FsTransfer): string {
  const what = done.type === 'file' ? `${done.bytes} bytes` : `a folder: ${done.files} file${done.files === 1 ? '' : 's'}, ${done.bytes} bytes`;
  return `${verb} ${done.from} to ${done.to} (${what}).`;
}

const from = addressInput.describe('The object or folder to take: inseam://{network}/{host}/{path}, or {host}://{path} in this session\'s network.');
const to = addressInput.describe('Where to: a new name (on the same host or another), or a folder that is there (then inside it, under the source\'s name).');
const createOnly = z.boolean().optional().describe('Never replace an object at the target (already_exists instead, nothing changed there).');

const moveInput = z.object({ from, to, createOnly });

const moveTool: HostedTool = {
  name: 'move',
  action: 'fs.move',
  title: 'Move or rename',
  description:
    'Moves or renames an object or a folder (with everything below it), within a host or to another. It is a copy, then each source file removed only if it is still the version copied (precondition_failed otherwise: that file is kept, and the target holds the version read); a folder\'s files are all copied before any is removed. ' +
    'Within a host search finds the object at its new address at once. Needs the rights of a delete at the source and write at the target.',
  inputSchema: moveInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async call(args: z.infer<typeof moveInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const done = await fs.move(caller, args.from, args.to, args.createOnly === undefined ? {} : { createOnly: args.createOnly });
    return { content: [{ type: 'text', text: transferText('Moved', done) }], structuredContent: { ...done } };
  },
};

const copyInput = z.object({ from, to, recursive: z.boolean().optional().describe('Copy a folder and everything below it (a folder without it is is_a_directory).'), createOnly });

const copyTool: HostedTool = {
  name: 'copy',
  action: 'fs.copy',
  title: 'Copy',
  description: 'Copies an object, or with recursive a folder and every file below it, within a host or to another, streaming. Existing files at the target are replaced unless createOnly. A copy that fails part way leaves what it wrote. Needs read at the source and write at the target.',
  inputSchema: copyInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof copyInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const done = await fs.copy(caller, args.from, args.to, {
      ...(args.recursive === undefined ? {} : { recursive: args.recursive }),
      ...(args.createOnly === undefined ? {} : { createOnly: args.createOnly }),
    });
    return { content: [{ type: 'text', text: transferText('Copied', done) }], structuredContent: { ...done } };
  },
};

const mkdirInput = z.object({ address: addressInput });

const mkdirTool: HostedTool = {
  name: 'mkdir',
  action: 'fs.mkdir',
  title: 'Make a folder',
  description:
    'Makes a folder and the folders on the way to it (as mkdir -p); one already there is answered with created false. On a host whose folders exist only through what is in them (a bucket) nothing is made (implied true): the folder shows once something is written below it. Needs write and read.',
  inputSchema: mkdirInput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof mkdirInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const folder = await fs.mkdir(caller, args.address);
    const said = folder.implied ? `${folder.address} is free; this host keeps folders only through what is in them, so it shows once something is written below it.` : folder.created ? `Made ${folder.address}.` : `${folder.address} is a folder already.`;
    return { content: [{ type: 'text', text: said }], structuredContent: { ...folder } };
  },
};

export const CHANGE_TOOLS: readonly HostedTool[] = [moveTool, copyTool, mkdirTool];
