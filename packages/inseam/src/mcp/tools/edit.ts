/**
 * The edit tool: exact-text replacements in a text object, answered with a unified diff.
 *
 * It is a read and a write of the filesystem service with the session's caller, so it needs what
 * both need (read and write at the address; for an agent a write grant) and a write's catalog
 * and search updates follow as for any write. The write is conditional on the etag the read saw
 * (or on the caller's ifMatch, checked against it first), so a change made between the read and
 * the write is never overwritten: the edit fails with `precondition_failed` and nothing is
 * written. Each oldText must occur exactly once in the text as the edits before it left it; one
 * that does not occur, or occurs more than once, refuses the whole edit before anything is
 * written (`precondition_failed`, `details.reason` `text_not_found` or `text_not_unique`).
 */
import { z } from 'zod';
import { InvalidArgumentError, PreconditionFailedError, UnavailableError } from '@neuralis/package-system/contracts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';
import { unifiedDiff } from './diff.js';
import { MCP_MAX_READ_BYTES, addressInput } from './inputs.js';

/** The most replacements one edit call takes. */
const MAX_EDITS = 100;

const editInput = z.object({
  address: addressInput,
  edits: z
    .array(
      z.object({
        oldText: z.string().min(1).max(MCP_MAX_READ_BYTES).describe('Text to replace, exactly as it is in the object (whitespace and line ends included); it must occur exactly once.'),
        newText: z.string().max(MCP_MAX_READ_BYTES).describe('The text to put in its place.'),
      }),
    )
    .min(1)
    .max(MAX_EDITS)
    .describe('Replacements, applied in order, each to the text the ones before it left.'),
  ifMatch: z.string().min(1).max(1024).optional().describe('Edit only if the object\'s current etag is this one (precondition_failed otherwise).'),
  dryRun: z.boolean().optional().describe('Answer with the diff without writing anything.'),
});

type EditInput = z.infer<typeof editInput>;

/** The text after the edits, or the typed refusal naming the edit that cannot be applied. */
function applyEdits(text: string, edits: EditInput['edits'], address: string): string {
  let current = text;
  edits.forEach((edit, index) => {
    const first = current.indexOf(edit.oldText);
    const argument = `edits.${index}.oldText`;
    if (first < 0) {
      throw new PreconditionFailedError(`Edit ${index + 1}: its oldText does not occur in ${address}${index > 0 ? ' as the edits before it left it' : ''}; read the object again and copy the text exactly. Nothing was written.`, {
        details: { reason: 'text_not_found', edit: index, argument },
      });
    }
    if (current.indexOf(edit.oldText, first + 1) >= 0) {
      throw new PreconditionFailedError(`Edit ${index + 1}: its oldText occurs more than once in ${address}; include more of the surrounding text so it names one place. Nothing was written.`, {
        details: { reason: 'text_not_unique', edit: index, argument },
      });
    }
    current = current.slice(0, first) + edit.newText + current.slice(first + edit.oldText.length);
  });
  return current;
}

function nameOf(address: string): string {
  const path = address.replace(/^inseam:\/\/[^/]+\/[^/]+\/?/, '');
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

export const editTool: HostedTool = {
  name: 'edit',
  action: 'fs.write',
  title: 'Edit a text object',
  description:
    'Replaces exact text in a text object and answers with a unified diff. Each edit\'s oldText must occur exactly once (in the text the edits before it left), or nothing is written (precondition_failed, details.reason text_not_found or text_not_unique). ' +
    'The write is conditional on the etag the edit read (or on ifMatch), so a concurrent change is never overwritten. dryRun shows the diff without writing.',
  inputSchema: editInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async call(args: EditInput, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const page = await fs.read(caller, args.address, { maxBytes: MCP_MAX_READ_BYTES });
    if (page.encoding !== 'text') throw new InvalidArgumentError(`${page.address} is ${page.mime}, not text; edit replaces text only.`, { details: { argument: 'address' } });
    if (Buffer.byteLength(page.content) !== page.length) {
      throw new InvalidArgumentError(`${page.address} is not valid UTF-8 text, so editing it as text would change bytes it does not mean to.`, { details: { argument: 'address' } });
    }
    if (page.source !== 'live') throw new UnavailableError(`The host of ${page.address} is offline; its synced copy can be read but not edited.`, { details: { reason: 'host_offline' } });
    if (args.ifMatch !== undefined && page.etag !== undefined && args.ifMatch !== page.etag) {
      throw new PreconditionFailedError(`${page.address} changed since the etag given as ifMatch (it is now ${page.etag}); read it again. Nothing was written.`, { details: { etag: page.etag } });
    }
    const edited = applyEdits(page.content, args.edits, page.address);
    const diff = unifiedDiff(nameOf(page.address), page.content, edited);
    const summary = `${args.edits.length} edit${args.edits.length === 1 ? '' : 's'}`;
    if (args.dryRun === true || diff === '') {
      const what = diff === '' ? `The ${summary} change nothing in ${page.address}; nothing was written.` : `Dry run: the ${summary} would change ${page.address} as shown; nothing was written.`;
      return { content: [{ type: 'text', text: diff === '' ? what : `${what}\n${diff}` }], structuredContent: { address: page.address, ...(page.etag === undefined ? {} : { etag: page.etag }), written: false, edits: args.edits.length } };
    }
    const ifMatch = args.ifMatch ?? page.etag;
    const entry = await fs.write(caller, page.address, edited, ifMatch === undefined ? {} : { ifMatch });
    const wrote = `Edited ${entry.address} (${summary}${entry.size === undefined ? '' : `, ${entry.size} bytes`}${entry.etag === undefined ? '' : `, etag ${entry.etag}`}).`;
    return {
      content: [{ type: 'text', text: `${wrote}\n${diff}` }],
      structuredContent: { address: entry.address, ...(entry.size === undefined ? {} : { size: entry.size }), ...(entry.etag === undefined ? {} : { etag: entry.etag }), written: true, edits: args.edits.length },
    };
  },
};
