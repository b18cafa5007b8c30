/**
 * JSON Schemas shared by the routes: what requests must look like (validated) and what answers
 * look like (documented in the OpenAPI description). Request schemas are closed, so a misspelt
 * field is refused rather than ignored.
 */
import { ERROR_CODES } from '@neuralis/package-system/contracts';
import { HTTP_ONLY_CODES } from './errors.js';
import type { JsonSchema } from './route.js';

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
const nullable = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] });
const object = (properties: Record<string, JsonSchema>, required: readonly string[] = [], closed = false): JsonSchema => ({
  type: 'object',
  properties,
  ...(required.length === 0 ? {} : { required }),
  ...(closed ? { additionalProperties: false } : {}),
});
const array = (items: JsonSchema): JsonSchema => ({ type: 'array', items });
const anyObject: JsonSchema = { type: 'object' };

export const errorSchema: JsonSchema = object(
  {
    error: object(
      {
        code: { type: 'string', enum: [...ERROR_CODES, ...HTTP_ONLY_CODES], description: 'Stable code (docs/errors.md); match on it, never on the message.' },
        message: { type: 'string', description: 'For people; never contains a secret or a host path outside a source root.' },
        details: { type: 'object', description: 'Structured, secret-free facts (e.g. argument, right, missingFeatures, retryAfterMs).' },
      },
      ['code', 'message', 'details'],
    ),
  },
  ['error'],
);

/* ------------------------------------------------------------------ request pieces */

export const networkSlug: JsonSchema = { type: 'string', minLength: 1, maxLength: 63, description: 'A network slug (a DNS label).' };
export const hostSlug: JsonSchema = { type: 'string', minLength: 1, maxLength: 64, description: 'A host slug (a URI scheme).' };
export const address: JsonSchema = { type: 'string', minLength: 1, maxLength: 8192, description: 'inseam://{network}/{host}/{path}, or {host}://{path} in the caller\'s network.' };

export const hostParams: JsonSchema = object({ network: networkSlug, host: hostSlug }, ['network', 'host'], true);
export const addressQuery: JsonSchema = object({ address }, ['address'], true);
export const runParams: JsonSchema = object({ id: { type: 'string', minLength: 1, maxLength: 256 } }, ['id'], true);
export const shaParams: JsonSchema = object({ sha: { type: 'string', minLength: 8, maxLength: 64, pattern: '^[0-9a-fA-F]+$', description: 'The module\'s SHA-256, or a unique prefix of 8+ hex digits.' } }, ['sha'], true);

const permissionRights = object({ read: bool, write: bool, exec: bool }, [], true);
export const permissionTree: JsonSchema = object({ default: permissionRights, paths: { type: 'object', additionalProperties: permissionRights } }, ['default'], true);
export const syncSettings: JsonSchema = object(
  { trigger: { type: 'string', enum: ['auto', 'manual'] }, interval: str, exclude: array(str), alwaysActive: bool },
  ['trigger'],
  true,
);
const credentials: JsonSchema = { type: 'object', additionalProperties: str, description: 'Values for the kind\'s AuthSpec fields; stored encrypted, never echoed.' };

/** The fields a host is added with (POST /v1/hosts and install). */
export const hostFields: Record<string, JsonSchema> = {
  config: { ...anyObject, description: 'Checked against the kind\'s closed configSchema.' },
  scope: nullable({ ...anyObject, description: 'Which entries are crawled (docs/scope.md).' }),
  credentials,
  label: { type: 'string', maxLength: 200 },
  description: { type: 'string', maxLength: 4000 },
  ownership: { type: 'string', enum: ['project', 'user', 'agent'] },
  ownerId: { type: 'string', minLength: 1, maxLength: 256 },
  sync: nullable(syncSettings),
  permissions: nullable(permissionTree),
  writable: { type: 'boolean', description: 'Turn writes on (true) or off (false) on top of `permissions` or the kind\'s default. Absent: a given tree as it is, else read only.' },
  privateOrigins: array(str),
};

/* ------------------------------------------------------------------ answers */

export const networkRecord: JsonSchema = object({ id: int, slug: str, label: str, createdAt: int, updatedAt: int }, ['slug', 'label']);

export const hostStatus: JsonSchema = object({
  state: { type: 'string', enum: ['online', 'offline', 'unknown'] },
  reason: str,
  code: str,
  probed: bool,
  runtimeActive: bool,
  checkedAt: int,
});

/** A host as the caller may use it (FsService.hosts). */
export const fsHost: JsonSchema = object(
  {
    network: str,
    slug: str,
    address: str,
    kind: str,
    label: str,
    description: str,
    origin: nullable(str),
    ownership: { type: 'string', enum: ['project', 'user', 'agent'] },
    ownerId: nullable(str),
    category: nullable(str),
    capabilities: array(str),
    rights: permissionRights,
    runtimeGated: bool,
    status: hostStatus,
  },
  ['network', 'slug', 'address', 'kind', 'status'],
);

/** A host's stored settings (NetworkService's HostView): never a credential value. */
export const hostView: JsonSchema = object(
  {
    network: str,
    slug: str,
    address: str,
    kind: str,
    label: str,
    description: str,
    config: anyObject,
    scope: nullable(anyObject),
    sync: nullable(syncSettings),
    permissions: nullable(permissionTree),
    origin: nullable(str),
    ownership: str,
    ownerId: nullable(str),
    privateOrigins: array(str),
    honoursOrder: bool,
    kindRegistered: bool,
    credentials: nullable(object({ acquire: str, fields: array(str), stored: array(str) })),
    createdAt: int,
    updatedAt: int,
  },
  ['network', 'slug', 'kind'],
);

/** What making a host of a writes-declaring sandboxed connector writable came to (connectors/host-writes.ts). */
export const writesOutcome: JsonSchema = object(
  {
    writable: { type: 'boolean', description: 'The platform\'s install-phase trial of the host passed, check 10 included: the host is writable.' },
    scratchPrefix: nullable({ type: 'string', description: 'Where the trial wrote.' }),
    trial: nullable({ type: 'string', description: 'The recorded install-phase trial (GET /v1/trials/{id}).' }),
    check: nullable({ type: 'integer', description: 'The check that kept the host read only.' }),
    message: { type: 'string', description: 'What passed, or why the host stays read only (the check\'s detail, naming the fix).' },
  },
  ['writable', 'scratchPrefix', 'trial', 'check', 'message'],
);

/** A host added or changed, with `writes` when writes were asked of a writes-declaring sandboxed connector. */
export const hostWritesView: JsonSchema = object(
  { ...(hostView['properties'] as Record<string, JsonSchema>), writes: { ...nullable(writesOutcome), description: 'Null when no trial was needed.' } },
  ['network', 'slug', 'kind', 'writes'],
);

/** One entry of a host's sync history (store/sync-history-types.ts). */
export const syncRecord: JsonSchema = object(
  {
    runId: int,
    mode: { type: 'string', enum: ['full', 'incremental'] },
    state: { type: 'string', enum: ['running', 'paused', 'failed', 'completed', 'abandoned'] },
    startedAt: int,
    endedAt: int,
    elapsedMs: int,
    entries: int,
    added: int,
    changed: int,
    removed: int,
    moved: int,
    errors: int,
    error: nullable(object({ code: str, message: str }, ['code', 'message'])),
    catalog: {
      ...nullable(object({ entries: int, bytes: int }, ['entries', 'bytes'])),
      description: 'The host\'s catalog when the run last stopped: its entries and the sum of their sizes (bytes). Null in records written before inseam kept it.',
    },
  },
  ['runId', 'mode', 'state', 'startedAt', 'endedAt', 'elapsedMs', 'entries', 'added', 'changed', 'removed', 'moved', 'errors', 'error', 'catalog'],
);

/** GET /v1/hosts/{network}/{host}: the host, and its settings for a caller with hosts.manage. */
export const hostDetail: JsonSchema = object({ host: fsHost, settings: nullable(hostView) }, ['host', 'settings']);

export const sourceKind: JsonSchema = object(
  {
    kind: str,
    label: str,
    category: nullable(str),
    description: str,
    configSchema: anyObject,
    capabilities: array(str),
    sandboxed: bool,
    providerPackageId: str,
    defaultPermissions: nullable(permissionTree),
    defaultOwnership: str,
    allowedOwnership: array(str),
  },
  ['kind', 'label', 'category', 'configSchema', 'capabilities'],
);

/** A `seed: "discoverable"` source a package offers (NetworkService.discoverable). */
export const discoverableSource: JsonSchema = object(
  {
    packageId: str,
    source: str,
    label: str,
    kind: str,
    description: str,
    root: nullable(str),
    ownership: { type: 'string', enum: ['project', 'user', 'agent'] },
    kindRegistered: bool,
    added: { type: 'boolean', description: 'A host from this declaration exists in the network.' },
    seeRequires: array(str),
  },
  ['packageId', 'source', 'label', 'kind', 'description', 'added'],
);

/** How a host authenticates, as a form shows it: never a present template or a value. */
export const authView: JsonSchema = object(
  {
    acquire: object({ type: { type: 'string', enum: ['none', 'static', 'oauth2', 'exchange'] }, grant: { type: 'string', enum: ['authorization_code', 'device_code'] } }, ['type']),
    fields: array(object({ name: str, label: str, secret: bool, pattern: str, help: str }, ['name', 'label', 'secret'])),
    instructions: nullable(str),
    origins: array(str),
  },
  ['acquire', 'fields', 'instructions', 'origins'],
);

export const fsEntry: JsonSchema = object(
  { address: str, host: str, path: str, name: str, type: { type: 'string', enum: ['file', 'directory'] }, size: int, mtime: str, etag: str, mime: str },
  ['address', 'host', 'path', 'name', 'type'],
);
const contentSource: JsonSchema = { type: 'string', enum: ['live', 'catalog'], description: '`catalog`: the host is offline and this is its synced copy.' };
const envelope: JsonSchema = object(
  {
    direction: { type: 'string', enum: ['sent', 'received', 'owned'] },
    parties: array(object({ identity: str, role: str }, ['identity', 'role'])),
    auth: object({ dkim: bool, spf: bool, dmarc: bool }),
    list: str,
  },
  ['direction', 'parties'],
);
export const fsStat: JsonSchema = { ...fsEntry, properties: { ...(fsEntry['properties'] as object), source: contentSource, envelope } };
export const fsTransfer: JsonSchema = object(
  {
    from: { type: 'string', description: 'The source, global.' },
    to: { type: 'string', description: 'Where it went, global: inside `to` when `to` named a folder that was there.' },
    type: { type: 'string', enum: ['file', 'directory'] },
    files: { type: 'integer', description: 'Files written at the target.' },
    bytes: { type: 'integer', description: 'Bytes those files hold, as the target reported them.' },
  },
  ['from', 'to', 'type', 'files', 'bytes'],
);
export const fsFolder: JsonSchema = {
  ...fsEntry,
  properties: {
    ...(fsEntry['properties'] as object),
    created: { type: 'boolean', description: 'False when the folder was there already (or nothing could be made: `implied`).' },
    implied: { type: 'boolean', description: 'A host whose folders exist only through what is in them (a bucket): the name was checked to be free, and the folder shows once something is written below it.' },
  },
  required: [...(fsEntry['required'] as string[]), 'created', 'implied'],
};
export const fsListPage: JsonSchema = object({ address: str, entries: array(fsEntry), cursor: str, source: contentSource }, ['address', 'entries', 'source']);

export const fsReadResult: JsonSchema = object(
  {
    address: str,
    mime: str,
    size: int,
    etag: str,
    encoding: { type: 'string', enum: ['text', 'base64', 'marker'] },
    content: str,
    offset: int,
    length: int,
    nextOffset: int,
    lines: object({ start: int, count: int, next: int }),
    omitted: object({ reason: str, cap: int, capability: str }),
    source: contentSource,
  },
  ['address', 'mime', 'size', 'encoding', 'content', 'offset', 'length', 'source'],
);

export const documentTextPage: JsonSchema = object(
  {
    address: str,
    mime: str,
    size: int,
    etag: str,
    format: { type: 'string', enum: ['text'] },
    extractedFrom: { type: 'string', enum: ['pdf', 'docx', 'xlsx', 'pptx', 'html'] },
    text: str,
    lines: object({ start: int, count: int, total: int, next: int }, ['start', 'count', 'total']),
    done: bool,
    truncated: bool,
    source: contentSource,
  },
  ['address', 'mime', 'format', 'extractedFrom', 'text', 'lines', 'done', 'source'],
);

export const searchPage: JsonSchema = object(
  {
    hits: array(
      object({
        address: str,
        network: str,
        host: str,
        path: str,
        snippet: str,
        highlights: array(array(int)),
        score: { type: 'number' },
        size: nullable(int),
        mtime: nullable(str),
        mime: nullable(str),
        etag: nullable(str),
        matched: array(str),
        passage: nullable(object({ start: int, end: int, text: str }, ['start', 'end', 'text'])),
        osPath: nullable(str),
        osPathOn: { type: 'string', enum: ['local', 'runtime'] },
        osPathError: object({ code: str, message: str }, ['code', 'message']),
      }),
    ),
    next: str,
    index: array(
      object({
        network: str,
        vectorHost: nullable(str),
        model: nullable(str),
        indexed: int,
        pending: int,
        failed: int,
        error: object({ code: str, message: str }, ['code', 'message']),
      }),
    ),
  },
  ['hits'],
);

export const execResult: JsonSchema = object(
  { exitCode: nullable(int), stdout: str, stderr: str, truncated: bool, durationMs: int, timedOut: bool, display: str },
  ['exitCode', 'stdout', 'stderr', 'truncated', 'durationMs'],
);
export const execBody: JsonSchema = object(
  {
    command: { type: 'string', minLength: 1, maxLength: 65536 },
    cwd: address,
    timeout: { type: 'integer', minimum: 1, description: 'Milliseconds; the connector applies its own ceiling.' },
    env: { type: 'object', additionalProperties: str },
  },
  ['command', 'cwd'],
  true,
);
export const runBody: JsonSchema = object(
  { command: { type: 'string', minLength: 1, maxLength: 65536 }, cwd: address, env: { type: 'object', additionalProperties: str } },
  ['command', 'cwd'],
  true,
);
export const fsRun: JsonSchema = object({ runId: str, network: str, host: str, userId: str, agentId: nullable(str), createdAt: int }, ['runId', 'network', 'host']);
export const runStatus: JsonSchema = object(
  { runId: str, state: { type: 'string', enum: ['running', 'exited', 'killed', 'failed'] }, exitCode: nullable(int), startedAt: str, endedAt: str, outputBytes: int, network: str, host: str },
  ['runId', 'state', 'exitCode', 'network', 'host'],
);
export const runOutput: JsonSchema = object({ data: str, next: int, done: bool }, ['data', 'next', 'done']);

export const crawlProgress: JsonSchema = object(
  {
    runId: int,
    host: object({ network: str, host: str }),
    mode: { type: 'string', enum: ['full', 'incremental'] },
    state: { type: 'string', enum: ['running', 'paused', 'failed', 'completed', 'abandoned'] },
    phase: { type: 'string', enum: ['list', 'sweep', 'done'] },
    entries: int,
    bytes: int,
    indexed: int,
    contentBytes: int,
    skipped: int,
    moved: int,
    deleted: int,
    errors: int,
    pages: int,
    total: nullable(int),
    rate: { type: 'number' },
    bytesRate: { type: 'number' },
    etaMs: nullable(int),
    fraction: nullable({ type: 'number' }),
    elapsedMs: int,
    startedAt: int,
    updatedAt: int,
    finishedAt: nullable(int),
    error: nullable(object({ code: str, message: str })),
  },
  ['runId', 'state', 'entries'],
);
export const crawlStatus: JsonSchema = object(
  {
    host: str,
    state: {
      type: 'string',
      enum: ['idle', 'queued', 'running'],
      description: '`running`: a crawl runs, in this server or on a live worker; `queued`: a crawl job waits for a worker (or one just took it); `idle`: neither.',
    },
    running: { type: 'boolean', description: 'A crawl of the host is running, in this server or on a live worker holding the host.' },
    queued: {
      ...nullable(
        object(
          {
            job: { type: 'string', description: 'The queue job id.' },
            state: { type: 'string', enum: ['waiting', 'taken'], description: '`taken`: a worker fetched it and is starting its run.' },
            queuedAt: int,
            mode: { type: 'string', enum: ['auto', 'full', 'incremental'] },
          },
          ['job', 'state', 'queuedAt', 'mode'],
        ),
      ),
      description: 'The crawl job waiting for a worker (shared PostgreSQL store only); null otherwise.',
    },
    progress: nullable(crawlProgress),
    entries: { type: 'integer', description: 'Entries in the catalog.' },
    bytes: { type: 'integer', description: 'The sum of the catalog\'s entry sizes (bytes).' },
    watermark: nullable(str),
    lastSync: { ...nullable(int), description: 'When the newest completed crawl finished (epoch ms).' },
  },
  ['host', 'state', 'running', 'queued', 'progress', 'entries', 'bytes'],
);

const trialSummary: JsonSchema = object(
  {
    id: str,
    kind: str,
    passed: bool,
    phase: str,
    origins: array(str),
    readEndpoints: array(str),
    createdAt: int,
    approvedBy: nullable(str),
    approvedAt: nullable(int),
    declaresWrites: bool,
    scratchPrefix: nullable({ type: 'string', description: 'The install phase\'s scratch prefix.' }),
    writesChecked: { type: 'boolean', description: 'An install-phase trial whose check 10 (writes) passed on scratchPrefix.' },
    host: nullable({ type: 'string', description: 'The host whose writes the platform checked with this trial before making it writable; null for a trial someone ran.' }),
  },
  ['id', 'kind', 'passed'],
);
const phaseResult: JsonSchema = { type: 'string', enum: ['passed', 'failed', 'not_run'] };
/** What a module's trials in the network showed, phase by phase (connectors/lifecycle.ts TrialPhases). */
const trialPhases: JsonSchema = object(
  {
    submit: phaseResult,
    install: phaseResult,
    declaresWrites: bool,
    writesCheckedOn: { ...array(str), description: 'Scratch prefixes where a passed install-phase trial passed check 10.' },
  },
  ['submit', 'install', 'declaresWrites', 'writesCheckedOn'],
);
export const approvalSummary: JsonSchema = object({ ...(trialSummary['properties'] as Record<string, JsonSchema>), phases: trialPhases }, ['id', 'kind', 'passed', 'phases']);
export const connectorView: JsonSchema = object(
  {
    sha: str,
    name: nullable(str),
    bytes: int,
    submittedBy: str,
    submittedAt: int,
    configSchema: nullable(anyObject),
    kind: nullable(str),
    state: { type: 'string', enum: ['submitted', 'trialled', 'approved', 'installed'] },
    trials: array(trialSummary),
    phases: trialPhases,
    confirmation: nullable({ type: 'string', description: 'What a person types to approve it.' }),
    installation: nullable(object({ kind: str, network: str, installedBy: str, installedAt: int })),
  },
  ['sha', 'state', 'trials'],
);
export const trialOutcome: JsonSchema = object(
  {
    trial: trialSummary,
    report: object({
      kind: str,
      passed: bool,
      checks: array(object({ id: int, name: str, status: { type: 'string', enum: ['pass', 'fail', 'skip'] }, detail: str })),
      origins: array(str),
      phase: str,
      durationMs: int,
      refusals: array(anyObject),
      readEndpoints: array(str),
      leftovers: array(str),
    }),
  },
  ['trial', 'report'],
);
export { trialSummary };

/** POST /v1/connectors/{sha}/install: the host, its first crawl, and what its write trial said. */
export const installOutcome: JsonSchema = object({ host: hostView, crawl: crawlStatus, writes: { ...nullable(writesOutcome), description: 'Null when writes were not asked or the module declares none.' } }, ['host', 'crawl', 'writes']);
