/**
 * The host `Connector` interface from the inseam connector skill (release 1), exactly as written
 * there. Built-in kinds implement it beside ConnectorPort so the conformance trial and the crawler
 * treat built-in and sandboxed hosts the same way. Paths are the host-local part of
 * `inseam://{network}/{host}/{path}`; the connector owns their canonical form.
 */

export type HostCapability = 'list' | 'stat' | 'read' | 'watch' | 'write' | 'delete';

export const HOST_CAPABILITIES = ['list', 'stat', 'read', 'watch', 'write', 'delete'] as const satisfies readonly HostCapability[];

export type DimensionType = 'string' | 'path' | 'enum' | 'bytes' | 'integer' | 'datetime' | 'boolean';

export const DIMENSION_TYPES = ['string', 'path', 'enum', 'bytes', 'integer', 'datetime', 'boolean'] as const satisfies readonly DimensionType[];

/** The Entry field a dimension reads: a top-level field or a dotted path under `extra`. */
export type DimensionSource = 'path' | 'size' | 'mtime' | 'mime' | `extra.${string}`;

export interface Dimension {
  readonly type: DimensionType;
  readonly from: DimensionSource;
  /** Exactly one dimension per connector; the scope window runs along it. */
  readonly ordering?: true;
  /** For `enum`. */
  readonly values?: readonly string[];
  readonly description: string;
}

export interface Envelope {
  readonly direction: 'sent' | 'received' | 'owned';
  readonly parties: readonly { readonly identity: string; readonly role: string }[];
  readonly auth?: { readonly dkim?: boolean; readonly spf?: boolean; readonly dmarc?: boolean };
  readonly list?: string;
}

export interface Entry {
  readonly path: string;
  readonly size?: number;
  /** RFC 3339 UTC. */
  readonly mtime?: string;
  readonly etag?: string;
  readonly mime?: string;
  readonly nativeHash?: string;
  readonly nativeId?: string;
  readonly envelope?: Envelope;
  readonly extra?: Readonly<Record<string, unknown>>;
}

export interface ChangeEvent {
  readonly type: 'put' | 'delete' | 'move' | 'rescan';
  readonly path: string;
  readonly from?: string;
  readonly entry?: Entry;
}

export interface Writes {
  readonly mimes: readonly string[] | '*';
  readonly create: boolean;
  readonly replace: boolean;
  readonly delete: boolean;
  readonly maxBytes?: number;
}

export interface AuthField {
  readonly name: string;
  readonly label: string;
  readonly secret: boolean;
  readonly pattern?: string;
  readonly help?: string;
}

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

export type AuthAcquire = { readonly type: 'none' } | { readonly type: 'static' } | OAuth2Acquire | ExchangeAcquire;

export type AuthPresent =
  | { readonly in: 'header' | 'query' | 'cookie'; readonly name: string; readonly value: string }
  | { readonly in: 'basic'; readonly username: string; readonly password: string }
  | { readonly in: 'aws_sigv4'; readonly accessKeyId: string; readonly secretAccessKey: string; readonly region: string; readonly service: string };

export interface AuthSpec {
  readonly fields?: readonly AuthField[];
  readonly instructions?: string;
  readonly acquire: AuthAcquire;
  readonly present: readonly AuthPresent[];
  readonly origins: readonly string[];
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

export interface Description {
  readonly kind: string;
  readonly capabilities: readonly HostCapability[];
  readonly auth: AuthSpec;
  readonly dimensions: Readonly<Record<string, Dimension>>;
  /** Sets the default for `window.outside`: free → index, metered → skip. */
  readonly listing: 'free' | 'metered';
  readonly defaultScope?: Scope;
  /** What the host accepts on write; absent means read-only. */
  readonly writes?: Writes;
}

export interface HostListOptions {
  readonly prefix?: string;
  readonly cursor?: string;
  readonly since?: string;
  readonly order?: 'newest';
}

export interface HostListPage {
  readonly entries: readonly Entry[];
  readonly cursor?: string;
}

/**
 * `range` is `[start, end)`: `start` inclusive, `end` exclusive, like `Blob.slice` (so the length
 * is `end - start` and an empty range is expressible). A range running past the end is clipped to
 * the object; a `start` at or past the end yields an empty stream. An HTTP host maps it to
 * `Range: bytes=start-(end-1)`.
 */
export interface HostReadOptions {
  readonly range?: readonly [number, number];
}

export interface Connector {
  describe(): Description;
  list(opts: HostListOptions): Promise<HostListPage>;
  stat(path: string): Promise<Entry | null>;
  read(path: string, opts?: HostReadOptions): Promise<ReadableStream<Uint8Array>>;
  watch?(emit: (event: ChangeEvent) => void): Promise<() => void>;
  webhook?(req: Request): Promise<ChangeEvent[]>;
  write?(path: string, body: ReadableStream<Uint8Array>, opts?: { readonly ifMatch?: string }): Promise<Entry>;
  delete?(path: string): Promise<void>;
}
