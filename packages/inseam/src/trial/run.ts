/**
 * The conformance trial: the skill document's eleven checks against the real host.
 *
 *   const report = await runTrial({ subject: { module: source }, config, credentials });
 *   console.log(formatTrialReport(report));
 *
 * It never throws for a connector's faults: each is a failed check saying what was expected,
 * what came back and how to fix it; a check that does not apply is skipped with the reason.
 * Checks run one after another (the watch subscription opens after check 2 and stays open until
 * check 8), in the order 1–7, 10, 9, 8, 11, so the writes of 10 and the rename of 9 produce the
 * events 8 checks; the report lists them 1–11. Objects the trial created are deleted before
 * check 11 runs; whatever is still on the host then (`leftovers`) fails check 10. A failed
 * check's detail ends with `see: docs/connectors/authoring.md#<section>`, the section of the
 * author's reference that explains the rule it broke.
 */
import { InvalidArgumentError, InvalidUriError } from '@neuralis/package-system/contracts';
import { runCheck, type CheckBody } from '@neuralis/package-system/testing';
import { HOST_PATH, parsePath } from '../address/path.js';
import { checkDefaultScope, checkDescription } from './checks/description.js';
import { checkEnvelopes } from './checks/envelopes.js';
import { checkEvents, closeWatch, openWatch } from './checks/events.js';
import { checkCanonical, checkDimensions, checkList, checkStat } from './checks/listing.js';
import { checkNativeId } from './checks/native-id.js';
import { checkOrigins } from './checks/origins.js';
import { checkRead } from './checks/read.js';
import { cleanUpScratch, checkWrites, findLeftovers, leftoversFailure } from './checks/writes.js';
import type { TrialContext } from './context.js';
import { withSection } from './docs.js';
import { loadSubject } from './subject.js';
import { TRIAL_CHECKS, TRIAL_PHASES, type TrialCheckId, type TrialCheckRecord, type TrialOptions, type TrialPhase, type TrialReport } from './types.js';

/** The canonical form of a scratch prefix. Throws `invalid_argument` naming what is wrong. */
export function canonicalScratchPrefix(prefix: string): string {
  if (typeof prefix !== 'string') throw new InvalidArgumentError('scratchPrefix must be a host path such as "scratch" or "team/scratch".');
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (trimmed === '') throw new InvalidArgumentError('scratchPrefix must name a folder below the host\'s root (such as "scratch"); the trial does not write at the root.');
  try {
    return parsePath(trimmed, HOST_PATH).path;
  } catch (error) {
    throw new InvalidArgumentError(`scratchPrefix is not a host path: ${error instanceof InvalidUriError ? error.message : String(error)}`);
  }
}

const MAX_SEED = 0xffff_ffff;

function checkOptions(options: TrialOptions): { phase: TrialPhase; scratchPrefix?: string } {
  const phase = options.phase ?? 'submit';
  if (options.seed !== undefined && !(Number.isSafeInteger(options.seed) && options.seed >= 0 && options.seed <= MAX_SEED)) {
    throw new InvalidArgumentError(`The trial seed must be an integer from 0 to ${MAX_SEED}, not ${JSON.stringify(options.seed)}.`);
  }
  if (!(TRIAL_PHASES as readonly string[]).includes(phase)) throw new InvalidArgumentError(`The trial phase must be "submit" or "install", not ${JSON.stringify(phase)}.`);
  if (phase === 'install' && options.scratchPrefix === undefined) {
    throw new InvalidArgumentError('The install phase needs a scratch prefix: the host folder a person named for the trial\'s writes ("scratchPrefix" in the config file).');
  }
  if (options.scratchPrefix === undefined || phase === 'submit') return { phase };
  return { phase, scratchPrefix: canonicalScratchPrefix(options.scratchPrefix) };
}

const DEFAULT_CHECK_TIMEOUT_MS = 20_000;
/** How long check 9 may wait on `rename` beyond the check timeout (a person renaming by hand). */
const RENAME_WAIT_MS = 10 * 60_000;

function definition(id: TrialCheckId): (typeof TRIAL_CHECKS)[number] {
  return TRIAL_CHECKS[id - 1]!;
}

/**
 * Runs the trial. Throws only for the caller's mistakes: `invalid_argument` (an unknown phase,
 * install without a scratch prefix, a bad scratch prefix, label or seed) and `invalid_config`
 * (credentials the AuthSpec needs are missing, or allowPrivateOrigins names an undeclared origin).
 */
export async function runTrial(options: TrialOptions): Promise<TrialReport> {
  const started = performance.now();
  const { phase, scratchPrefix } = checkOptions(options);
  const loaded = await loadSubject(options);
  const context: TrialContext = {
    options,
    phase,
    token: globalThis.crypto.randomUUID().slice(0, 8),
    seed: options.seed ?? globalThis.crypto.getRandomValues(new Uint32Array(1))[0]!,
    ...(scratchPrefix === undefined ? {} : { scratchPrefix }),
    ...(loaded.egress === undefined ? {} : { egress: loaded.egress }),
    ...(loaded.connector === undefined ? {} : { connector: loaded.connector }),
    ...(loaded.description === undefined ? {} : { description: loaded.description }),
    ...(loaded.loadFailure === undefined ? {} : { loadFailure: loaded.loadFailure }),
    ...(loaded.loadSection === undefined ? {} : { loadSection: loaded.loadSection }),
    created: new Set(),
    lastWriteAt: 0,
  };
  const records = new Map<TrialCheckId, TrialCheckRecord>();
  const timeoutMs = options.checkTimeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const run = async (id: TrialCheckId, body: CheckBody): Promise<void> => {
    // Check 9 may wait for a person to rename an object on the host.
    const limit = id === 9 && options.rename !== undefined ? timeoutMs + RENAME_WAIT_MS : timeoutMs;
    const record = await runCheck(definition(id), body, { timeoutMs: limit });
    // Every failure ends with the reference section that explains it (docs.ts).
    records.set(id, record.status === 'fail' ? { ...record, detail: withSection(record.detail, id) } : record);
  };
  let leftovers: string[] = [];
  try {
    await run(1, () => checkDescription(context));
    await run(2, () => checkList(context));
    // After check 2, which counts the requests its listings cost: a polling watch would add to them.
    await openWatch(context);
    await run(3, () => checkDimensions(context));
    await run(4, () => checkStat(context));
    // Check 5 holds what is listed to the bytes read: sizes and hashes, then envelopes to message headers.
    await run(5, async () => [await checkRead(context), await checkEnvelopes(context)].filter((note) => note !== undefined).join('; '));
    await run(6, () => checkCanonical(context));
    await run(7, () => checkDefaultScope(context));
    await run(10, () => checkWrites(context));
    await run(9, () => checkNativeId(context));
    await run(8, () => checkEvents(context, loaded.logs));
    const cleaned = [...context.created];
    leftovers = await findLeftovers(context, await cleanUpScratch(context), cleaned);
    // Check 10 answers for what was left, unless it already failed (its failure says why).
    if (leftovers.length > 0 && records.get(10)?.status !== 'fail') await run(10, () => leftoversFailure(leftovers));
    await run(11, () => checkOrigins(context));
  } finally {
    await closeWatch(context);
    await loaded.close();
  }
  const checks = TRIAL_CHECKS.map((check) => records.get(check.id)!);
  return {
    kind: context.description?.kind ?? 'unknown',
    phase,
    passed: checks.every((check) => check.status !== 'fail'),
    checks,
    origins: loaded.egress?.originsUsed() ?? [],
    readEndpoints: (context.description?.auth.readEndpoints ?? []).map((endpoint) => `${endpoint.method} ${endpoint.origin}${endpoint.path}`),
    refusals: loaded.egress?.refusals() ?? [],
    leftovers,
    honoursOrder: context.newestVerified === true && records.get(2)?.status === 'pass',
    declaresWrites: context.description?.writes !== undefined,
    durationMs: Math.round(performance.now() - started),
  };
}
