/**
 * Exec and detached runs. Starting one is an exec entry (the `exec` right at the cwd, the kind's
 * entry features on the token, e.g. `exec.machine`); reading, stopping and releasing a run needs
 * only to own it.
 */
import type { Call, RouteSpec } from '../route.js';
import { execBody, execResult, fsRun, runBody, runOutput, runParams, runStatus } from '../schemas.js';
import { addressNetwork } from './fs.js';

const TAG = 'exec';

function runId(call: Call): string {
  return (call.request.params as { id: string }).id;
}

export const execRoutes: readonly RouteSpec[] = [
  {
    method: 'POST',
    url: '/v1/exec',
    operationId: 'exec',
    action: 'exec.run',
    summary: 'Run a command in a directory of a host and wait for it',
    description: 'Needs the `exec` right at `cwd` and the kind\'s entry features on the token. A client that disconnects ends the command.',
    tag: TAG,
    body: execBody,
    responses: { 200: { description: 'How it ended, with its (bounded) output.', schema: execResult } },
    handler: async (call) => {
      const body = call.request.body as { command: string; cwd: string; timeout?: number; env?: Record<string, string> };
      const caller = await call.caller(addressNetwork(body.cwd));
      const aborted = new AbortController();
      const onClose = (): void => {
        if (!call.reply.raw.writableFinished) aborted.abort();
      };
      call.reply.raw.once('close', onClose);
      try {
        return await call.services.fs.exec(caller, body, { signal: aborted.signal });
      } finally {
        call.reply.raw.off('close', onClose);
      }
    },
  },
  {
    method: 'GET',
    url: '/v1/runs',
    operationId: 'listRuns',
    action: 'runs.list',
    summary: 'The caller\'s detached runs that are not released, newest first',
    tag: TAG,
    responses: { 200: { description: 'Runs.', schema: { type: 'array', items: fsRun } } },
    handler: async (call) => call.services.fs.runs(await call.caller()),
  },
  {
    method: 'POST',
    url: '/v1/runs',
    operationId: 'startRun',
    action: 'runs.start',
    summary: 'Start a detached run',
    description: 'Checked exactly as exec; the caller (its user and agent) owns the run.',
    tag: TAG,
    body: runBody,
    responses: { 201: { description: 'Started.', schema: fsRun } },
    handler: async (call) => {
      const body = call.request.body as { command: string; cwd: string; env?: Record<string, string> };
      const run = await call.services.fs.startRun(await call.caller(addressNetwork(body.cwd)), body);
      call.reply.code(201);
      return run;
    },
  },
  {
    method: 'GET',
    url: '/v1/runs/:id',
    operationId: 'runStatus',
    action: 'runs.status',
    summary: 'A run\'s state (waitMs long-polls)',
    tag: TAG,
    params: runParams,
    querystring: { type: 'object', properties: { waitMs: { type: 'integer', minimum: 0, maximum: 60_000 } }, additionalProperties: false },
    responses: { 200: { description: 'Its state.', schema: runStatus } },
    handler: async (call) => {
      const { waitMs } = call.request.query as { waitMs?: number };
      return call.services.fs.runStatus(await call.caller(), runId(call), waitMs === undefined ? {} : { waitMs });
    },
  },
  {
    method: 'GET',
    url: '/v1/runs/:id/output',
    operationId: 'runOutput',
    action: 'runs.output',
    summary: 'A run\'s output from byte `since`',
    tag: TAG,
    params: runParams,
    querystring: { type: 'object', properties: { since: { type: 'integer', minimum: 0 } }, additionalProperties: false },
    responses: { 200: { description: 'Output; pass `next` as `since` to continue.', schema: runOutput } },
    handler: async (call) => {
      const { since } = call.request.query as { since?: number };
      return call.services.fs.runOutput(await call.caller(), runId(call), since === undefined ? {} : { since });
    },
  },
  {
    method: 'POST',
    url: '/v1/runs/:id/kill',
    operationId: 'killRun',
    action: 'runs.kill',
    summary: 'Ask a run to stop',
    description: 'An acknowledgement; the real end shows in the run\'s state.',
    tag: TAG,
    params: runParams,
    responses: { 200: { description: 'Acknowledged.', schema: { type: 'object', properties: { acknowledged: { type: 'boolean' } }, required: ['acknowledged'] } } },
    handler: async (call) => call.services.fs.killRun(await call.caller(), runId(call)),
  },
  {
    method: 'DELETE',
    url: '/v1/runs/:id',
    operationId: 'releaseRun',
    action: 'runs.release',
    summary: 'End a run and forget it and its output',
    tag: TAG,
    params: runParams,
    responses: { 204: { description: 'Released; the run is `not_found` from now on.' } },
    handler: async (call) => {
      await call.services.fs.releaseRun(await call.caller(), runId(call));
      return undefined;
    },
  },
];
