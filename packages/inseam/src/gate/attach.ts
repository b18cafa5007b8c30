/**
 * Attaching a host's credential to one hop, in `present` order, with SigV4 last so it signs the
 * request exactly as it leaves: headers are set (replacing any of the same name), query
 * parameters replace any of the same name, cookies join into one `cookie` header, `basic` is
 * `Authorization: Basic base64(utf8(user:pass))`.
 */
import type { AuthPresent } from '@inseam/connector';
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import { renderTemplate } from './credentials.js';
import type { ResolvedCredentials } from './credentials.js';
import { decodedQuery, setQueryParam } from './query.js';
import { signRequest } from './sigv4.js';

const COOKIE_OCTETS = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Headers a `present` entry may never set: they frame the message or are the gate's own. */
const UNSETTABLE = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade', 'expect']);

/** Rejects a `present` list the gate could not apply safely (`invalid_config`, naming the entry). */
export function validatePresent(present: readonly AuthPresent[]): void {
  present.forEach((entry, index) => {
    const refuse = (why: string): never => {
      throw new InvalidConfigError(`auth.present[${index}] (${entry.in}) is not valid: ${why}`, { details: { entry: index } });
    };
    switch (entry.in) {
      case 'header':
        if (!TOKEN.test(entry.name)) refuse('the header name is not an HTTP token.');
        if (UNSETTABLE.has(entry.name.toLowerCase())) refuse(`the gate never lets a credential set "${entry.name}".`);
        break;
      case 'cookie':
        if (!TOKEN.test(entry.name)) refuse('the cookie name is not an HTTP token.');
        break;
      case 'query':
        if (entry.name === '') refuse('the query parameter needs a name.');
        break;
      case 'basic':
      case 'aws_sigv4':
        break;
    }
  });
}

export interface HopRequest {
  readonly method: string;
  /** Edited in place for query credentials. */
  readonly url: URL;
  /** Lower-case names; edited in place. */
  readonly headers: Record<string, string>;
  readonly body: Uint8Array | 'stream' | null;
}

function checkHeaderValue(name: string, value: string): string {
  if (/[\r\n\0]/.test(value)) throw new InvalidConfigError(`The credential value for "${name}" contains a line break or NUL; it cannot be sent.`);
  return value;
}

/**
 * Applies every `present` entry to `hop`. Every header value it writes from a template (whole:
 * `Bearer …`, `Basic …`, the cookie line), the basic pair and the SigV4 signature are added to
 * the credentials' redactor, so a reflection of any of them is found too. Throws `MissingCredentialError` when a template names an absent value, and
 * `InvalidConfigError` when a value cannot be carried where `present` puts it.
 */
export async function attachCredentials(hop: HopRequest, present: readonly AuthPresent[], credentials: ResolvedCredentials): Promise<void> {
  const render = (template: string): string => renderTemplate(template, credentials.values);
  const cookies: string[] = [];
  let sigv4: Extract<AuthPresent, { in: 'aws_sigv4' }> | undefined;
  for (const entry of present) {
    switch (entry.in) {
      case 'header': {
        const value = checkHeaderValue(entry.name, render(entry.value));
        if (value !== entry.value) credentials.redactor.add(value);
        hop.headers[entry.name.toLowerCase()] = value;
        break;
      }
      case 'query':
        setQueryParam(hop.url, entry.name, render(entry.value));
        break;
      case 'cookie': {
        const value = render(entry.value);
        if (!COOKIE_OCTETS.test(value)) throw new InvalidConfigError(`The credential value for cookie "${entry.name}" has characters a cookie cannot carry.`);
        cookies.push(`${entry.name}=${value}`);
        break;
      }
      case 'basic': {
        const username = render(entry.username);
        if (username.includes(':')) throw new InvalidConfigError('A basic-auth username cannot contain ":".');
        const pair = Buffer.from(`${username}:${render(entry.password)}`, 'utf8').toString('base64');
        credentials.redactor.add(pair);
        credentials.redactor.add(`Basic ${pair}`);
        hop.headers['authorization'] = `Basic ${pair}`;
        break;
      }
      case 'aws_sigv4':
        sigv4 = entry;
        break;
    }
  }
  if (cookies.length > 0) {
    hop.headers['cookie'] = cookies.join('; ');
    credentials.redactor.add(hop.headers['cookie']);
  }
  if (sigv4 === undefined) return;
  const query = decodedQuery(hop.url);
  if (query === null) throw new InvalidConfigError('The request URL has malformed percent-encoding in its query, so it cannot be signed.');
  const signed = await signRequest(
    { method: hop.method, url: hop.url, headers: hop.headers, query, body: hop.body },
    {
      accessKeyId: render(sigv4.accessKeyId),
      secretAccessKey: render(sigv4.secretAccessKey),
      region: render(sigv4.region),
      service: render(sigv4.service),
    },
  );
  credentials.redactor.addTransient(signed.signature);
  Object.assign(hop.headers, signed.headers);
}
