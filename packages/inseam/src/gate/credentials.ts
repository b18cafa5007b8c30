/**
 * Credential values for one host, and how `present` turns them into a request's credential.
 *
 * `present` values are templates: `{{name}}` (spaces inside the braces allowed) is replaced by
 * the value of credential `name`. Names are looked up in the host's tokens first (what an OAuth 2
 * or exchange acquisition produced, e.g. `{{access_token}}`), then its stored fields. A name
 * that is in neither rejects the request with `credential_missing`, naming the field only.
 */
import type { AuthPresent, AuthSpec } from '@inseam/connector';
import { Redactor } from './redact.js';

/**
 * Where a host's credential values come from (the credential store implements it). Both methods
 * are called once per connector request, so a rotated value takes effect on the next request.
 * A rejection is reported to the connector as `credential_missing`; its message is not shown.
 */
export interface HostCredentialSource {
  /** The host's stored AuthSpec field values, by field name. */
  fields(): Promise<Readonly<Record<string, string>>>;
  /** Values an acquisition produced (access tokens); every one is treated as secret. */
  tokens?(): Promise<Readonly<Record<string, string>>>;
  /**
   * Told the status of a credentialed answer, until one renewal has happened for the request.
   * Resolves true when the credential was stale and has been renewed (an AuthSpec `renewOn`
   * status, an OAuth 401): the gate then sends the request once more with the new values. Never
   * called for a streamed body, which cannot be replayed.
   */
  onStatus?(status: number): Promise<boolean>;
}

/** A referenced credential value is not stored for the host. */
export class MissingCredentialError extends Error {
  readonly field: string;

  constructor(field: string) {
    super(`The host's credential has no value for field "${field}"; store it and retry.`);
    this.name = 'MissingCredentialError';
    this.field = field;
  }
}

const TEMPLATE = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function renderTemplate(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(TEMPLATE, (_whole, name: string) => {
    const value = values.get(name);
    if (value === undefined) throw new MissingCredentialError(name);
    return value;
  });
}

/** A host's credential values for one request, with the redactor that hides the secret ones. */
export interface ResolvedCredentials {
  readonly values: ReadonlyMap<string, string>;
  readonly redactor: Redactor;
}

/**
 * Loads the values and builds the redactor. Secret: every token, every field the AuthSpec marks
 * `secret: true`, and every field it does not declare at all (unknown means secret).
 */
export async function resolveCredentials(auth: Pick<AuthSpec, 'fields'>, source: HostCredentialSource): Promise<ResolvedCredentials> {
  const fields = await source.fields();
  const tokens = source.tokens === undefined ? {} : await source.tokens();
  const publicFields = new Set((auth.fields ?? []).filter((field) => !field.secret).map((field) => field.name));
  const values = new Map<string, string>();
  const redactor = new Redactor();
  for (const [name, value] of Object.entries(fields)) {
    values.set(name, value);
    if (!publicFields.has(name)) redactor.add(value);
  }
  for (const [name, value] of Object.entries(tokens)) {
    values.set(name, value);
    redactor.add(value);
  }
  return { values, redactor };
}

/** Lower-case header names a host's `present` sets; connectors may not send them themselves. */
export function presentHeaderNames(present: readonly AuthPresent[]): Set<string> {
  const names = new Set<string>();
  for (const entry of present) {
    if (entry.in === 'header') names.add(entry.name.toLowerCase());
    if (entry.in === 'basic' || entry.in === 'aws_sigv4') names.add('authorization');
    if (entry.in === 'cookie') names.add('cookie');
  }
  return names;
}

/** Query parameter names a host's `present` sets; removed from a hop that gets no credential. */
export function presentQueryNames(present: readonly AuthPresent[]): Set<string> {
  return new Set(present.flatMap((entry) => (entry.in === 'query' ? [entry.name] : [])));
}
