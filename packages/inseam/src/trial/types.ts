/**
 * The public shapes of the conformance trial: what a caller hands `runTrial` and the report that
 * comes back. The eleven checks are the skill document's, numbered as there (TRIAL_CHECKS).
 */
import type { Connector } from '@inseam/connector';
import type { CheckDefinition, CheckRecord, SampleBody } from '@neuralis/package-system/testing';
import type { SandboxLimits, SandboxLogRecord } from '../sandbox/index.js';
import type { TrialSandbox } from './sandbox.js';

/** The skill document's check numbers. */
export type TrialCheckId = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11;

/** The eleven checks, in the skill document's order and words. */
export const TRIAL_CHECKS: readonly CheckDefinition<TrialCheckId>[] = Object.freeze([
  { id: 1, name: 'describe() returns a kind, capabilities, an AuthSpec with origins, and dimensions with exactly one ordering: true' },
  { id: 2, name: 'list() returns entries; a cursor round-trips; list({ order: "newest" }) is honoured when the host can' },
  { id: 3, name: 'every declared dimension is present on every listed entry and has the declared type' },
  { id: 4, name: 'stat(path) of a listed entry matches the listing' },
  { id: 5, name: 'read(path) of a small sample streams bytes; read with a range returns that range' },
  { id: 6, name: 'paths are canonical: list → stat → list again gives the same path for the same object' },
  { id: 7, name: 'defaultScope validates against the declared dimensions' },
  { id: 8, name: 'if watch or webhook is claimed: a parsed event has a type, a path and, for move, a from' },
  { id: 9, name: 'if nativeId is reported: a rename of a scratch object keeps its nativeId, or a move event is emitted' },
  { id: 10, name: 'if writes is declared: on the scratch prefix, create, read back the same bytes, replace with ifMatch, delete, once per declared mime' },
  { id: 11, name: 'only the declared origins were used; a refusal from the gate fails the trial and names the origin' },
].map((check) => Object.freeze(check as CheckDefinition<TrialCheckId>)));

/**
 * `submit`: before approval. The gate is in audit mode (reads pass, writes are refused, every
 * origin is recorded); checks 9 and 10, which need writes, skip.
 * `install`: after approval, on the scratch prefix a person named. Writes pass the gate only
 * while the trial's own write and delete calls run, and those name only paths under the prefix.
 */
export type TrialPhase = 'submit' | 'install';

export const TRIAL_PHASES = ['submit', 'install'] as const satisfies readonly TrialPhase[];

/**
 * A sample webhook delivery, as the host would send it (from its documentation), for check 8.
 * `body` is sent as is when a string, as JSON otherwise.
 */
export interface TrialWebhookSample {
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
}

/**
 * A sample object for check 10, for a declared MIME type the built-in samples do not cover (a
 * vCard, a host's own JSON document shape) or to replace the built-in one: a valid object of the
 * type, named by `extension`, and a different second one. `markers` are a phrase of each that a
 * host declaring `writes.roundTrip: "normalised"` must keep (JSON is compared as parsed values).
 */
export interface TrialWriteSample extends SampleBody {
  readonly markers?: readonly [body: string, replacement: string];
  /**
   * Where the object goes below the scratch prefix, `{name}` standing for the trial's unique
   * name (`{name}/doc.json`); default `{name}.<extension>`. A connector's declared
   * `writes.samples` set it.
   */
  readonly path?: string;
}

/**
 * What is trialled: a connector module's source text, run in the sandbox behind the egress gate
 * (how every submitted connector runs), or a host `Connector` object run in-process (the
 * built-in kinds: no gate, so check 11 skips, and a connector that reaches no network may declare
 * no origins).
 */
export type TrialSubject =
  | { readonly module: string; readonly label?: string }
  | { readonly connector: Connector; readonly label?: string };

/**
 * Who owns the mailbox a message host serves, for comparing envelopes with message headers
 * (check 5, authoring.md#envelopes-messages). Given, it overrides the connector config's
 * `ownAddresses` and `authservId`.
 */
export interface TrialEnvelopeOwner {
  /** Every address the owner sends from: a message whose From or Sender is one of them is `sent`. */
  readonly ownAddresses?: readonly string[];
  /** The authserv-id of the owner's receiving host: only its `Authentication-Results` count. */
  readonly authservId?: string;
}

export interface TrialOptions {
  readonly subject: TrialSubject;
  /** Default `submit`. `install` needs `scratchPrefix`. */
  readonly phase?: TrialPhase;
  /** Handed to the module's createConnector(config). Module subjects only. */
  readonly config?: Readonly<Record<string, unknown>>;
  /** Values for the AuthSpec fields; the gate uses them, the module never sees them. */
  readonly credentials?: Readonly<Record<string, string>>;
  /**
   * Declared origins a person approved as private (a NAS, a service on loopback): exact entries
   * of `auth.origins`. Module subjects only.
   */
  readonly allowPrivateOrigins?: readonly string[];
  /**
   * The host path under which the install phase may create, replace, rename and delete objects,
   * in canonical form (`scratch` or `team/scratch`; a trailing `/` is ignored). The trial works
   * on `<prefix>/inseam-trial-<token>-…` names and removes what it created.
   */
  readonly scratchPrefix?: string;
  /**
   * Renames an object on the host by the host's own means, outside the connector (the Connector
   * interface has no rename), as a person would in the host's app. Check 9 needs it; without it
   * check 9 skips with the reason. Paths are canonical host paths under the scratch prefix.
   */
  readonly rename?: (from: string, to: string) => Promise<void>;
  /**
   * Picks the objects check 5 reads at random (an integer 0 to 4294967295); default a random one.
   * Check 5's detail names the seed, so giving it again reads the same objects of the same listing.
   */
  readonly seed?: number;
  /**
   * Puts an object under the scratch prefix by the host's own means (sends a message to a mail
   * catcher, enqueues a job), for a delete-only host: check 10 finds it by listing the prefix
   * before and after, then deletes it. Without it, check 10 skips for a delete-only host.
   */
  readonly plant?: () => Promise<void>;
  /** The owner's addresses and receiving host, for envelopes; default the config's `ownAddresses` and `authservId`. */
  readonly envelope?: TrialEnvelopeOwner;
  /** For check 8 when the connector parses webhooks. */
  readonly webhookSample?: TrialWebhookSample;
  /** Check 10's samples for declared types; they come before the built-in ones of the same type. */
  readonly samples?: readonly TrialWriteSample[];
  /**
   * A sandbox shared across trials (one at a time per label); default a fresh one for this trial,
   * closed at its end.
   */
  readonly sandbox?: TrialSandbox;
  /** Limits for the module's runtime (see the sandbox README). */
  readonly limits?: Partial<SandboxLimits>;
  /** Receives the module's console lines and the sandbox's records about it. */
  readonly log?: (record: SandboxLogRecord) => void;
  /**
   * A check still waiting on the connector after this many ms fails as timed out. Default 20,000;
   * check 9 may take 10 minutes more when `rename` is given (a person renaming by hand).
   */
  readonly checkTimeoutMs?: number;
  /** How long the install phase waits for watch events after its writes. Default 3,000 ms. */
  readonly eventWaitMs?: number;
}

export type TrialCheckRecord = CheckRecord<TrialCheckId>;

/** A gate refusal: the origin only, never a path or a credential. */
export interface TrialRefusal {
  readonly origin: string;
  readonly method: string;
  readonly reason: string;
  /** Which part of the request the refusal is about (`url`, `body`, `header <name>`), when the gate says. */
  readonly part?: string;
}

export interface TrialReport {
  /** The connector's kind, or `unknown` when describe() gave none. */
  readonly kind: string;
  readonly phase: TrialPhase;
  /** True when no check failed; skips do not fail. */
  readonly passed: boolean;
  /** All eleven, in order 1–11. */
  readonly checks: readonly TrialCheckRecord[];
  /** Origins the connector reached through the gate, in first-use order; [] for in-process subjects. */
  readonly origins: readonly string[];
  /**
   * The POSTs the connector declares as reads (`auth.readEndpoints`), as `POST <origin><path>`:
   * the gate let exactly these through where only reads pass, and the person approving sees them.
   */
  readonly readEndpoints: readonly string[];
  readonly refusals: readonly TrialRefusal[];
  /**
   * What the trial left on the host: paths it created and could not remove (delete not declared,
   * or it failed), and anything with the trial's scratch names still listed afterwards. Not
   * empty fails check 10.
   */
  readonly leftovers: readonly string[];
  /**
   * Check 2 passed and verified newest-first listing: a host installed from this trial is crawled
   * newest first (HostRecord.honoursOrder), so a skipped window's lower bound ends its listing.
   */
  readonly honoursOrder: boolean;
  /** describe() declares `writes`: a host of it may be made writable only after check 10 passed on its scratch prefix. */
  readonly declaresWrites: boolean;
  readonly durationMs: number;
}

/** The report's JSON form (DESIGN.md): exactly these fields per check. */
export interface TrialReportJson {
  readonly kind: string;
  readonly passed: boolean;
  readonly checks: readonly { readonly id: TrialCheckId; readonly name: string; readonly status: 'pass' | 'fail' | 'skip'; readonly detail: string }[];
  readonly origins: readonly string[];
  readonly readEndpoints: readonly string[];
  readonly leftovers: readonly string[];
  readonly phase: TrialPhase;
  readonly durationMs: number;
}
