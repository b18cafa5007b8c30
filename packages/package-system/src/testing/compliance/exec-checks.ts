/**
 * Checks of command execution: exec's result shape and cwd refusals, and the detached-run
 * lifecycle (start, status long poll, output from an offset, kill acknowledgement, release).
 */
import type { DetachedExecFacet, DetachedRunStatus } from '../../contracts/index.js';
import { describeValue, ensure } from '../checks.js';
import { MARKER, childUri, expectCode, otherSource, usable, usableDetached } from './context.js';
import type { ComplianceCheck, ComplianceContext } from './context.js';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const DEFAULT_EXEC_COMMAND = `echo ${MARKER}`;
const DEFAULT_DETACHED_COMMAND = `echo ${MARKER}; sleep 30`;
/** How long the harness waits for a run's output or its end before failing. */
const RUN_DEADLINE_MS = 8_000;

function execCwd(context: ComplianceContext): string {
  return context.subject.execCwd ?? context.root;
}

const execRun: ComplianceCheck = {
  id: 'exec.run',
  name: 'exec returns exitCode, stdout, stderr, truncated and durationMs; a bad, missing or file cwd is refused',
  capability: 'exec',
  async run(context) {
    const exec = usable(context, 'exec');
    const command = context.subject.execCommand ?? DEFAULT_EXEC_COMMAND;
    const cwd = execCwd(context);
    const result = await exec({ command, cwd }, { session: context.session });
    ensure(
      typeof result?.stdout === 'string' &&
        typeof result.stderr === 'string' &&
        typeof result.truncated === 'boolean' &&
        typeof result.durationMs === 'number' &&
        Number.isFinite(result.durationMs) &&
        result.durationMs >= 0 &&
        (result.timedOut === undefined || typeof result.timedOut === 'boolean') &&
        (result.display === undefined || typeof result.display === 'string'),
      {
        expected: '{ exitCode, stdout: string, stderr: string, truncated: boolean, durationMs >= 0, timedOut?: boolean, display?: string }',
        actual: describeValue(result),
      },
    );
    ensure(result.exitCode === 0, {
      expected: `${describeValue(command)} in ${cwd} exits 0`,
      actual: `exitCode ${describeValue(result.exitCode)}, stderr ${describeValue(result.stderr)}`,
    });
    if (context.subject.execCommand === undefined) {
      ensure(result.stdout.includes(MARKER), { expected: `stdout contains "${MARKER}"`, actual: `stdout ${describeValue(result.stdout)}` });
    }
    const request = (badCwd: string): (() => Promise<unknown>) => () => exec({ command, cwd: badCwd }, { session: context.session });
    await expectCode(request(`${otherSource(context)}://`), 'invalid_uri', "exec with another source's cwd");
    await expectCode(request(childUri(cwd, `${MARKER}-missing-${context.token}`)), 'not_found', 'exec with a missing cwd');
    const file = context.scratchTree?.textFile.uri ?? context.subject.fixture?.uri;
    if (file !== undefined) await expectCode(request(file), 'not_a_directory', 'exec with a file as cwd');
    return `exit 0 in ${result.durationMs} ms; bad cwds refused`;
  },
};

/** Polls status (a bounded long poll) until `done` holds or the deadline passes. */
async function waitFor(facet: DetachedExecFacet, runId: string, done: (status: DetachedRunStatus) => Promise<boolean> | boolean): Promise<DetachedRunStatus> {
  const deadline = Date.now() + RUN_DEADLINE_MS;
  let status = await facet.status(runId);
  while (!(await done(status)) && Date.now() < deadline) status = await facet.status(runId, 250);
  return status;
}

const detachedLifecycle: ComplianceCheck = {
  id: 'execDetached.lifecycle',
  name: 'a detached run starts, reports status by long poll, serves output from any offset, acknowledges kill, and is not_found once released',
  capability: 'execDetached',
  async run(context) {
    const facet = usableDetached(context);
    const command = context.subject.detachedCommand ?? DEFAULT_DETACHED_COMMAND;
    const handle = await facet.start({ command, cwd: execCwd(context) }, { session: context.session });
    ensure(typeof handle?.runId === 'string' && handle.runId !== '', { expected: 'start returns { runId }', actual: describeValue(handle) });
    const { runId } = handle;
    context.openRuns.add(runId);

    const first = await facet.status(runId);
    ensure(first?.runId === runId && first.state === 'running' && first.exitCode === null && RFC3339.test(first.startedAt) && Number.isInteger(first.outputBytes), {
      expected: `status of a fresh run: { runId, state: "running", exitCode: null, startedAt (RFC 3339), outputBytes }`,
      actual: describeValue(first),
    });
    let data = '';
    await waitFor(facet, runId, async (status) => {
      if (status.outputBytes === 0) return false;
      data = (await facet.output(runId, 0)).data;
      return context.subject.detachedCommand === undefined ? data.includes(MARKER) : data !== '';
    });
    ensure(data !== '' && (context.subject.detachedCommand !== undefined || data.includes(MARKER)), {
      expected: `output of ${describeValue(command)} within ${RUN_DEADLINE_MS} ms`,
      actual: `output ${describeValue(data)}`,
    });
    const fromThree = await facet.output(runId, 3);
    ensure(fromThree.data.startsWith(data.slice(3)) && fromThree.next === 3 + Buffer.byteLength(fromThree.data, 'utf8'), {
      expected: `output since 3 returns the output from byte 3 (${describeValue(data.slice(3))}) and next = 3 + its length`,
      actual: describeValue(fromThree),
    });
    const pastEnd = await facet.output(runId, fromThree.next + 1000);
    ensure(pastEnd.data === '', { expected: 'output since past the end returns empty data', actual: describeValue(pastEnd) });

    const running = await facet.status(runId);
    ensure(running.state === 'running', {
      expected: 'the run is still running before the kill (the command must keep running)',
      actual: `state ${describeValue(running.state)}`,
    });
    const ack = await facet.kill(runId, MARKER);
    ensure(ack?.acknowledged === true, { expected: 'kill returns { acknowledged: true }', actual: describeValue(ack) });
    const ended = await waitFor(facet, runId, (status) => status.state !== 'running');
    ensure(ended.state === 'killed' && typeof ended.endedAt === 'string' && RFC3339.test(ended.endedAt), {
      expected: `status reports the real end within ${RUN_DEADLINE_MS} ms: state "killed" with endedAt`,
      actual: describeValue(ended),
    });
    let output = await facet.output(runId, 0);
    for (let calls = 0; !output.done && calls < 1000; calls += 1) output = await facet.output(runId, output.next);
    ensure(output.done, { expected: 'output of an ended run reaches done: true', actual: describeValue(output) });
    const again = await facet.kill(runId);
    ensure(again?.acknowledged === true, { expected: 'killing an ended run is acknowledged too', actual: describeValue(again) });

    await facet.release(runId);
    context.openRuns.delete(runId);
    await expectCode(() => facet.status(runId), 'not_found', 'status of a released run');
    await expectCode(() => facet.output(runId, 0), 'not_found', 'output of a released run');
    await expectCode(() => facet.kill(runId), 'not_found', 'kill of a released run');
    await expectCode(() => facet.status(`${MARKER}-never-started`), 'not_found', 'status of a run id never issued');
    return 'started, polled, read from offsets, killed, released';
  },
};

export const EXEC_CHECKS: readonly ComplianceCheck[] = [execRun, detachedLifecycle];

/** Releases runs a failed check left behind; errors are ignored, the report already says why. */
export async function releaseOpenRuns(context: ComplianceContext): Promise<void> {
  const facet = context.port.detached;
  for (const runId of context.openRuns) {
    await Promise.resolve()
      .then(() => facet?.release(runId))
      .catch(() => undefined);
  }
  context.openRuns.clear();
}
