/**
 * Commands: exec (foreground) and detached runs (start, status, output, kill, release, runs).
 * Starting is an exec entry — the `exec` right at the cwd, the kind's entry features in the
 * session, the cwd's path policy; the other run verbs need only ownership of the run
 * (docs/fs.md "Exec and detached runs"). A cancelled MCP request ends its foreground command.
 */
import { z } from 'zod';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FsRun } from '../../fs/index.js';
import type { HostedTool, HostedToolContext } from '../hosted-tools.js';

const cwd = z.string().min(1).max(8192).describe('The directory to run in, as an address (inseam://{network}/{host}/{path} or {host}://{path}).');
const command = z.string().min(1).max(65536).describe('The command line, run by the host\'s shell.');
const env = z.record(z.string().max(65536)).optional().describe('Extra environment; the host passes only names on its allowlist.');
const runId = z.string().min(1).max(256).describe('The runId run_start returned.');

const execInput = z.object({ command, cwd, timeout: z.number().int().min(1).max(86_400_000).optional().describe('Milliseconds before the command is killed; the host applies its own ceiling.'), env });

const execTool: HostedTool = {
  name: 'exec',
  action: 'exec.run',
  title: 'Run a command',
  description: 'Runs a command in a directory of a host that allows it, waits for it to end, and returns its exit code and bounded output.',
  inputSchema: execInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async call(args: z.infer<typeof execInput>, { caller, fs, signal }: HostedToolContext): Promise<CallToolResult> {
    const result = await fs.exec(caller, { command: args.command, cwd: args.cwd, ...(args.timeout === undefined ? {} : { timeout: args.timeout }), ...(args.env === undefined ? {} : { env: args.env }) }, { signal });
    const head = `exit code ${result.exitCode ?? 'none'}${result.timedOut === true ? ' (timed out)' : ''}${result.truncated ? ' (output cut at the cap)' : ''}, ${result.durationMs} ms`;
    const parts = [head, result.stdout === '' ? '' : `stdout:\n${result.stdout}`, result.stderr === '' ? '' : `stderr:\n${result.stderr}`].filter((part) => part !== '');
    return { content: [{ type: 'text', text: parts.join('\n') }], structuredContent: { ...result } };
  },
};

const startInput = z.object({ command, cwd, env });

function runLine(run: FsRun): string {
  return `${run.runId} on ${run.host}, started ${new Date(run.createdAt).toISOString()}`;
}

const startTool: HostedTool = {
  name: 'run_start',
  action: 'runs.start',
  title: 'Start a detached run',
  description: 'Starts a command that keeps running after this call returns. Follow it with run_status and run_output; stop it with run_kill; forget it with run_release.',
  inputSchema: startInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  async call(args: z.infer<typeof startInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const run = await fs.startRun(caller, { command: args.command, cwd: args.cwd, ...(args.env === undefined ? {} : { env: args.env }) });
    return { content: [{ type: 'text', text: `Started run ${runLine(run)}.` }], structuredContent: { ...run } };
  },
};

const statusInput = z.object({ runId, waitMs: z.number().int().min(0).max(60_000).optional().describe('Wait up to this long for the state to change (capped by the host).') });

const statusTool: HostedTool = {
  name: 'run_status',
  action: 'runs.status',
  title: 'Detached run status',
  description: 'The state of one of this session\'s detached runs (running, exited, killed, failed), its exit code and how much output it has.',
  inputSchema: statusInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof statusInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const status = await fs.runStatus(caller, args.runId, args.waitMs === undefined ? {} : { waitMs: args.waitMs });
    return { content: [{ type: 'text', text: `Run ${status.runId}: ${status.state}${status.exitCode === null ? '' : `, exit code ${status.exitCode}`}, ${status.outputBytes} bytes of output.` }], structuredContent: { ...status } };
  },
};

const outputInput = z.object({ runId, since: z.number().int().min(0).optional().describe('The byte to read from: 0, then the next of the previous answer.') });

const outputTool: HostedTool = {
  name: 'run_output',
  action: 'runs.output',
  title: 'Detached run output',
  description: 'Output of one of this session\'s detached runs from a byte offset, bounded per call; continue with next until done.',
  inputSchema: outputInput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof outputInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const output = await fs.runOutput(caller, args.runId, args.since === undefined ? {} : { since: args.since });
    return { content: [{ type: 'text', text: output.data }], structuredContent: { next: output.next, done: output.done } };
  },
};

const killInput = z.object({ runId });

const killTool: HostedTool = {
  name: 'run_kill',
  action: 'runs.kill',
  title: 'Stop a detached run',
  description: 'Asks one of this session\'s detached runs to stop; run_status shows when it has ended.',
  inputSchema: killInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async call(args: z.infer<typeof killInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    await fs.killRun(caller, args.runId);
    return { content: [{ type: 'text', text: `Asked run ${args.runId} to stop.` }], structuredContent: { acknowledged: true } };
  },
};

const releaseTool: HostedTool = {
  name: 'run_release',
  action: 'runs.release',
  title: 'Forget a detached run',
  description: 'Ends one of this session\'s detached runs if it still runs and forgets it and its output.',
  inputSchema: killInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async call(args: z.infer<typeof killInput>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    await fs.releaseRun(caller, args.runId);
    return { content: [{ type: 'text', text: `Released run ${args.runId}.` }], structuredContent: { released: args.runId } };
  },
};

const runsTool: HostedTool = {
  name: 'runs',
  action: 'runs.list',
  title: 'Detached runs',
  description: 'This session\'s detached runs that are not released, newest first.',
  inputSchema: z.object({}),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async call(_args: Record<string, never>, { caller, fs }: HostedToolContext): Promise<CallToolResult> {
    const runs = await fs.runs(caller);
    return { content: [{ type: 'text', text: runs.length === 0 ? 'No detached runs.' : runs.map(runLine).join('\n') }], structuredContent: { runs } };
  },
};

export const EXEC_TOOLS: readonly HostedTool[] = [execTool, startTool, statusTool, outputTool, killTool, releaseTool, runsTool];
