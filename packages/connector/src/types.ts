/**
 * The host `Connector` interface from the inseam connector skill (release 1), exactly as written
 * there, with the points the skill leaves open settled in these doc comments. Each settled point
 * is explained, with an example, in docs/connectors/authoring.md (the anchor is named in the
 * comment); describe() validation (`validateDescription`) and the conformance trial enforce them.
 *
 * Built-in kinds implement it beside ConnectorPort so the trial and the crawler treat built-in and
 * sandboxed hosts the same way. Paths are the host-local part of `inseam://{network}/{host}/{path}`;
 * the connector owns their canonical form.
 */

export type HostCapability = 'list' | 'stat' | 'read' | 'watch' | 'write' | 'delete';

export const HOST_CAPABILITIES = ['list', 'stat', 'read', 'watch', 'write', 'delete'] as const satisfies readonly HostCapability[];

/**
 * How a dimension's values are written (authoring.md#dimensions-value-formats):
 * - `string`: any text. An open vocabulary (labels, tags, statuses people define) is a string.
 * - `path`: a canonical path, spelled exactly as `Entry.path` is (percent-encoded per segment);
 *   `''` is the root.
 * - `enum`: one of `values`, a closed set the connector knows in full.
 * - `bytes`: a non-negative safe integer. `integer`: a safe integer.
 * - `datetime`: RFC 3339 date-time in UTC with an uppercase `T` and `Z`
 *   (`2024-05-01T08:00:00Z`); a fraction of any length is allowed and compared to the
 *   millisecond; a date alone (`2024-05-01`) or another offset is refused.
 * - `boolean`: true or false.
 */
export type DimensionType = 'string' | 'path' | 'enum' | 'bytes' | 'integer' | 'datetime' | 'boolean';

export const DIMENSION_TYPES = ['string', 'path', 'enum', 'bytes', 'integer', 'datetime', 'boolean'] as const satisfies readonly DimensionType[];

/**
 * The Entry field a dimension reads: a top-level field, or `extra.a.b`, the **nested** field
 * `entry.extra.a.b` (never a key literally named `"a.b"`; own properties only).
 */
export type DimensionSource = 'path' | 'size' | 'mtime' | 'mime' | `extra.${string}`;

/**
 * A field a scope may filter on (authoring.md#dimensions-presence): every listed entry carries a
 * value of the declared type. A field some objects lack is declared with `from: "extra.…"` and
 * carried as `null` on those objects ("this object has none"); a missing key is an error, and the
 * ordering dimension is never null.
 */
export interface Dimension {
  readonly type: DimensionType;
  readonly from: DimensionSource;
  /** Exactly one dimension per connector; the scope window runs along it. */
  readonly ordering?: true;
  /** For `enum`: the closed set of values, distinct; order matters for a window along it. */
  readonly values?: readonly string[];
  readonly description: string;
}

/**
 * The envelope of a message-like object (authoring.md#envelopes): how it travelled and between whom.
 * - `direction`: `sent` when the owner authored it (a mail they sent, a ticket they opened, an
 *   event they organise), `received` when someone else did and it reached the owner, `owned`
 *   for an object the owner keeps with no sending act (a note, a personal event).
 * - `parties[].identity`: `scheme:value` — `mailto:alice@example.com` for an email address,
 *   `tel:+4930123456` for a phone number, otherwise `<kind>:<the host's stable user id>`
 *   (`tickets:u-17`), never a display name.
 * - `parties[].role`: a lowercase token — mail `from`, `to`, `cc`, `bcc`, `reply-to`, `sender`;
 *   calendars `organizer`, `attendee`; tickets `reporter`, `assignee`, `watcher`, `commenter`;
 *   chats `author`, `member`, `mention`.
 * - `auth`: the host's authentication results as it states them; absent when it states none.
 */
export interface Envelope {
  readonly direction: 'sent' | 'received' | 'owned';
  readonly parties: readonly { readonly identity: string; readonly role: string }[];
  readonly auth?: { readonly dkim?: boolean; readonly spf?: boolean; readonly dmarc?: boolean };
  readonly list?: string;
}

/**
 * One object on the host (authoring.md#entries-field-forms).
 * - `path`: canonical — segments joined by `/`, each percent-encoded so only `A–Z a–z 0–9 - . _ ~`
 *   stay literal, escapes uppercase; built from the host's name exactly, never Unicode-normalised
 *   (an NFC and an NFD name are two paths); `%`, `#`, `?` and `/` inside a name are `%25`, `%23`,
 *   `%3F`, `%2F`. At most 4,096 characters. A path names an object or a folder, never both.
 * - `size`: the number of bytes `read()` streams.
 * - `mtime`: RFC 3339 UTC, like a `datetime` dimension.
 * - `etag`: the host's version tag as it gives it (quoted, `W/` and all); it changes whenever the
 *   bytes change, and is what `write` receives back as `ifMatch`.
 * - `nativeHash`: `<algorithm>:<digest>` of the bytes `read()` streams, algorithm lowercase
 *   (`sha256:9f86…`, `md5:…`, `dropbox:…`); `sha256`, `sha1` and `md5` digests are hex and are
 *   verified by the trial.
 * - `nativeId`: the host's id for the object, reported only when the host never reuses it.
 * - `extra`: a JSON object (strings, finite numbers, booleans, null, arrays, objects), at most
 *   16 KiB as JSON and 8 levels deep.
 * - Text fields (`mtime`, `etag`, `mime`, `nativeHash`, `nativeId`) hold at most 4,096 characters.
 */
export interface Entry {
  readonly path: string;
  readonly size?: number;
  /** RFC 3339 UTC (`2024-05-01T08:00:00Z`, a fraction allowed). */
  readonly mtime?: string;
  readonly etag?: string;
  readonly mime?: string;
  readonly nativeHash?: string;
  readonly nativeId?: string;
  readonly envelope?: Envelope;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/**
 * A change on the host (authoring.md#change-events). `path` (and `from` on a move) is canonical,
 * like `Entry.path`; `rescan` may have an empty path (the whole host); `entry`, when given, has
 * the same path.
 */
export interface ChangeEvent {
  readonly type: 'put' | 'delete' | 'move' | 'rescan';
  readonly path: string;
  readonly from?: string;
  readonly entry?: Entry;
}

/**
 * What the host accepts on write (authoring.md#writing-create-and-replace).
 * - `mimes`: the types write() can store; the connector learns a body's type from the path's
 *   extension (the trial writes `*.txt`, `*.md`, `*.json`, `*.ics`, `*.eml`, …). A delete-only
 *   host may leave it out; the validated copy then has `[]`.
 * - `create`, `replace`, `delete`: what the host does safely. `replace` means a write with
 *   `ifMatch` replaces only that version. A host may be delete-only (a mail catcher, a queue):
 *   `create` and `replace` false, `delete` true, and the `delete` capability without `write`.
 * - `roundTrip`: `exact` (the default) — read() gives back exactly the bytes written;
 *   `normalised` — the host parses what it stores and serialises it its own way (a JSON store
 *   that orders keys, a calendar that refolds lines), so the trial compares the content, not the
 *   bytes (authoring.md#writing-normalising-hosts).
 * - `samples`: the objects the trial must write for a type, for a host whose writable objects
 *   have a fixed shape (authoring.md#writing-media-types-and-samples).
 */
export interface Writes {
  readonly mimes: readonly string[] | '*';
  readonly create: boolean;
  readonly replace: boolean;
  readonly delete: boolean;
  readonly maxBytes?: number;
  readonly roundTrip?: 'exact' | 'normalised';
  readonly samples?: readonly WriteSampleDeclaration[];
}

/**
 * An object the trial's check 10 writes for `mime`, in place of its own sample of that type.
 * `path` is where it goes below the scratch prefix, with `{name}` standing once for the trial's
 * unique name (`{name}/doc.json`, `{name}.vcf`); `body` and `replacement` are two different valid
 * objects as UTF-8 text (at most 65,536 bytes each); `markers` are a phrase of each that a
 * `roundTrip: "normalised"` host keeps.
 */
export interface WriteSampleDeclaration {
  readonly mime: string;
  readonly path: string;
  readonly body: string;
  readonly replacement: string;
  readonly markers?: readonly [body: string, replacement: string];
}

export const WRITE_ROUND_TRIPS = ['exact', 'normalised'] as const satisfies readonly NonNullable<Writes['roundTrip']>[];

/**
 * A credential field a person fills in when adding the host (authoring.md#auth-fields).
 * `name` is an identifier the `present` templates use as `{{name}}`. `pattern` is a JavaScript
 * regular expression source, compiled with the `u` flag and matched against the whole value (as
 * if written `^(?:pattern)$`). `label` is at most 100 characters, `help` at most 500, both
 * plain text.
 */
export interface AuthField {
  readonly name: string;
  readonly label: string;
  readonly secret: boolean;
  readonly pattern?: string;
  readonly help?: string;
}

/** OAuth 2 with PKCE; the acquired token is `{{access_token}}` (authoring.md#auth-acquire). */
export interface OAuth2Acquire {
  readonly type: 'oauth2';
  readonly grant: 'authorization_code' | 'device_code';
  readonly authorizationUrl?: string;
  readonly deviceUrl?: string;
  readonly tokenUrl: string;
  readonly scopes: readonly string[];
  readonly pkce: true;
  readonly clientSources: readonly ('inseam' | 'dcr' | 'network')[];
}

/**
 * A login request the platform sends with the stored fields (`{{field}}` templates in its URL,
 * headers, json strings and form values); each `extract` name (an identifier) becomes a token
 * `present` can use as `{{name}}` (authoring.md#auth-acquire).
 */
export interface ExchangeAcquire {
  readonly type: 'exchange';
  readonly request: {
    readonly method: 'GET' | 'POST';
    readonly url: string;
    readonly headers?: Readonly<Record<string, string>>;
    readonly json?: unknown;
    readonly form?: Readonly<Record<string, string>>;
  };
  readonly extract: Readonly<Record<string, string>>;
  readonly expiresIn?: string | number;
  readonly expiresAt?: string;
  readonly renewOn?: readonly number[];
}

/**
 * How the credential is obtained (authoring.md#auth-acquire): `none` — the host needs none
 * (`present` is empty, no fields); `static` — the fields a person types are stored as they are
 * and presented on every request, never renewed; `oauth2`; `exchange`.
 */
export type AuthAcquire = { readonly type: 'none' } | { readonly type: 'static' } | OAuth2Acquire | ExchangeAcquire;

/**
 * How the gate attaches the credential (authoring.md#auth-present-templates). Every value is a
 * template: `{{name}}` (spaces inside the braces allowed) is replaced by the acquired token of that
 * name (`access_token`, an `extract` name) or else the stored field; other text is kept as is;
 * there is no escape and no expression. `basic` sends `base64(utf8(username + ":" + password))`;
 * a username may not contain `:`.
 */
export type AuthPresent =
  | { readonly in: 'header' | 'query' | 'cookie'; readonly name: string; readonly value: string }
  | { readonly in: 'basic'; readonly username: string; readonly password: string }
  | { readonly in: 'aws_sigv4'; readonly accessKeyId: string; readonly secretAccessKey: string; readonly region: string; readonly service: string };

/**
 * The host's credential and reach. `origins` may be computed from the host's config (a base URL);
 * each host's gate allows exactly the origins describe() returned for its config, and a request,
 * or a redirect hop, to any other origin is refused (authoring.md#origins). `instructions` is plain
 * text for the person adding the host: at most 2,000 characters, blank lines between paragraphs,
 * bare https URLs shown as links, no HTML or Markdown (authoring.md#auth-instructions).
 */
export interface AuthSpec {
  readonly fields?: readonly AuthField[];
  readonly instructions?: string;
  readonly acquire: AuthAcquire;
  readonly present: readonly AuthPresent[];
  readonly origins: readonly string[];
  readonly readEndpoints?: readonly ReadEndpoint[];
}

/**
 * A POST that only reads (a GraphQL endpoint, a search API), declared so the gate lets it through
 * where only reads may pass: the submit-phase trial and a read-only host at run time. It matches
 * exactly this method, this origin (an exact, non-wildcard entry of `origins`) and this path (the
 * URL's path as sent, percent-encoded, no query); the query is free. The person approving the
 * connector sees each one (authoring.md#origins-post-reads).
 */
export interface ReadEndpoint {
  readonly method: 'POST';
  readonly origin: string;
  readonly path: string;
}

/** A scope: a window along the ordering dimension, ordered rules, limits (see docs/scope.md). */
export interface Scope {
  readonly window?: {
    readonly from?: string | number;
    readonly to?: string | number;
    readonly last?: string | number;
    readonly outside?: 'index' | 'skip';
  };
  readonly rules?: readonly ScopeRule[];
  readonly limits?: { readonly maxEntries?: number; readonly maxBytes?: number; readonly maxEntryBytes?: number };
}

export type ScopeRule = { readonly include: ScopePredicate } | { readonly exclude: ScopePredicate };

export type ScopePredicate =
  | {
      readonly dim: string;
      readonly op: 'eq' | 'ne' | 'in' | 'prefix' | 'glob' | 'lt' | 'lte' | 'gt' | 'gte';
      readonly value: unknown;
    }
  | { readonly all: readonly ScopePredicate[] }
  | { readonly any: readonly ScopePredicate[] }
  | { readonly not: ScopePredicate };

/**
 * What describe() returns. describe() is called once, right after createConnector(config), and
 * may be sync or async; the platform answers later calls from that validated copy
 * (authoring.md#describe).
 */
/** The longest `Description.category`, in characters (code points): it names a chip, not a sentence. */
export const MAX_CATEGORY = 40;

export interface Description {
  readonly kind: string;
  /**
   * Free text for grouping in the UI (docs/connectors/authoring.md#describe): "api", "db", or a
   * kind's own word; shown as declared, an unknown one with a generic chip. Absent: no category.
   */
  readonly category?: string;
  readonly capabilities: readonly HostCapability[];
  readonly auth: AuthSpec;
  readonly dimensions: Readonly<Record<string, Dimension>>;
  /** Sets the default for `window.outside`: free → index, metered → skip. */
  readonly listing: 'free' | 'metered';
  readonly defaultScope?: Scope;
  /** What the host accepts on write; absent means read-only. */
  readonly writes?: Writes;
}

/**
 * list() options (authoring.md#listing-cursors). The caller repeats `prefix`, `since` and `order`
 * beside the `cursor` of a page exactly as it gave them for the first page.
 * - `prefix`: a plain string prefix of the canonical path (`docs` also matches `docs2/x`; a folder
 *   is `docs/`); only entries whose path starts with it are listed.
 * - `since`: a value of the ordering dimension in its text form (a datetime as RFC 3339 UTC); list
 *   at least every entry whose value is **at or after** it (inclusive). Older entries may come
 *   too; the crawler filters them (authoring.md#listing-since).
 * - `order: "newest"`: descending along the ordering dimension (newest first for a datetime),
 *   across pages. A host that cannot sort so throws an error with code `unsupported`; never sort a
 *   whole listing in memory to fake it (authoring.md#listing-order).
 * - `cursor`: a cursor this connector issued, from any earlier run or process.
 */
export interface HostListOptions {
  readonly prefix?: string;
  readonly cursor?: string;
  readonly since?: string;
  readonly order?: 'newest';
}

/**
 * One page. `cursor` is absent on the last page; otherwise an opaque non-empty string of at most
 * 4,096 characters, different from the cursor given, that resumes right after this page. It
 * round-trips: listing with it again — later, after a restart, in a rebuilt runtime — gives the
 * same page while the host is unchanged, so encode the position in it rather than keeping state.
 * Each object appears once across the pages of one listing; without `order`, pages come in a stable
 * order of the host's choosing.
 */
export interface HostListPage {
  readonly entries: readonly Entry[];
  readonly cursor?: string;
}

/**
 * `range` is `[start, end)`: `start` inclusive, `end` exclusive, like `Blob.slice` (so the length
 * is `end - start` and an empty range is expressible). A range running past the end is clipped to
 * the object; a `start` at or past the end yields an empty stream. An HTTP host maps it to
 * `Range: bytes=start-(end-1)`; a host that ignores Range (answers 200) is cut down by the
 * connector (authoring.md#reading-ranges).
 */
export interface HostReadOptions {
  readonly range?: readonly [number, number];
}

/**
 * The host interface a connector module implements (authoring.md). Errors carry a string `code`
 * from the vocabulary in authoring.md#errors-codes; anything else becomes `connector_failed`.
 */
export interface Connector {
  describe(): Description;
  list(opts: HostListOptions): Promise<HostListPage>;
  /** The object's Entry, or null when the host has no object at the path. */
  stat(path: string): Promise<Entry | null>;
  /** The object's stored bytes; `not_found` when there is none. */
  read(path: string, opts?: HostReadOptions): Promise<ReadableStream<Uint8Array>>;
  /** Subscribes; resolves to the function that stops it. Its timers keep running while it is open. */
  watch?(emit: (event: ChangeEvent) => void): Promise<() => void>;
  webhook?(req: Request): Promise<ChangeEvent[]>;
  /**
   * Without `ifMatch`: creates the object, or replaces it when it exists (the host's last writer
   * wins). With `ifMatch`: replaces only the version with that etag; any other version, or no
   * object, fails with `precondition_failed` and writes nothing. Resolves to the Entry of the
   * object as stored — what stat() would answer now (authoring.md#writing-result).
   */
  write?(path: string, body: ReadableStream<Uint8Array>, opts?: { readonly ifMatch?: string }): Promise<Entry>;
  /** Removes the object; `not_found` when there is none (authoring.md#writing-delete). */
  delete?(path: string): Promise<void>;
}
