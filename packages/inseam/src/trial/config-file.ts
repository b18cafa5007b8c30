/**
 * The trial's config file (DESIGN.md):
 *
 *   { "config": { ... }, "credentials": { "<field>": "<value>" }, "scratchPrefix"?: "...",
 *     "allowPrivateOrigins"?: ["http://127.0.0.1:8080"], "webhookSample"?: { "headers"?, "body" },
 *     "samples"?: [{ "mime", "extension", "body" | "bodyBase64", "replacement" | "replacementBase64", "markers"? }],
 *     "envelope"?: { "ownAddresses"?: ["ada@example.com"], "authservId"?: "mx.example.com" } }
 *
 * `config` goes to the module's createConnector(config); `credentials` fill the AuthSpec fields
 * (the gate uses them, the module never sees them; for OAuth 2 or exchange hosts, give the token
 * values the `present` templates name, such as access_token); `scratchPrefix` is the folder the
 * install phase may write in. The two optional keys beyond DESIGN.md's: `allowPrivateOrigins`,
 * the declared origins a person approves as private (a NAS, a service on loopback), and
 * `webhookSample`, a delivery as the host sends it, for check 8, and `samples`, check 10's objects
 * for declared types without a built-in sample (text as UTF-8, or base64 for bytes), and `envelope`,
 * the owner's addresses and receiving host that message envelopes are compared with. Unknown keys
 * are refused, so a typo is not silently ignored.
 */
import { readFile } from 'node:fs/promises';
import { InvalidConfigError, NotFoundError } from '@neuralis/package-system/contracts';
import type { TrialEnvelopeOwner, TrialWebhookSample, TrialWriteSample } from './types.js';

export interface TrialConfigFile {
  readonly config: Readonly<Record<string, unknown>>;
  readonly credentials: Readonly<Record<string, string>>;
  readonly scratchPrefix?: string;
  readonly allowPrivateOrigins?: readonly string[];
  readonly webhookSample?: TrialWebhookSample;
  readonly samples?: readonly TrialWriteSample[];
  readonly envelope?: TrialEnvelopeOwner;
}

const KEYS = ['config', 'credentials', 'scratchPrefix', 'allowPrivateOrigins', 'webhookSample', 'samples', 'envelope'];
const SAMPLE_KEYS = ['mime', 'extension', 'body', 'bodyBase64', 'replacement', 'replacementBase64', 'markers'];
const SAMPLE_MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, message: string): never {
  throw new InvalidConfigError(`The trial config file: ${message}`, { details: { field } });
}

/** Checks a parsed config file. Throws `invalid_config` naming the field and what is accepted. */
export function parseTrialConfig(value: unknown): TrialConfigFile {
  if (!isRecord(value)) invalid('$', 'it must be a JSON object { "config": {...}, "credentials": {...}, "scratchPrefix"?: "..." }.');
  for (const key of Object.keys(value)) {
    if (!KEYS.includes(key)) invalid(key, `"${key}" is not a field; the fields are ${KEYS.join(', ')}.`);
  }
  const config = value['config'] ?? {};
  if (!isRecord(config)) invalid('config', '"config" must be an object (it is handed to createConnector(config)).');
  const credentials = value['credentials'] ?? {};
  if (!isRecord(credentials)) invalid('credentials', '"credentials" must be an object of field name → string value.');
  for (const [name, secret] of Object.entries(credentials)) {
    if (typeof secret !== 'string') invalid(`credentials.${name}`, `credentials."${name}" must be a string.`);
  }
  const file: { -readonly [K in keyof TrialConfigFile]: TrialConfigFile[K] } = { config, credentials: credentials as Record<string, string> };
  const scratchPrefix = value['scratchPrefix'];
  if (scratchPrefix !== undefined) {
    if (typeof scratchPrefix !== 'string' || scratchPrefix.replace(/\/$/, '') === '') {
      invalid('scratchPrefix', '"scratchPrefix" must name a folder on the host, such as "scratch" or "team/scratch".');
    }
    file.scratchPrefix = scratchPrefix;
  }
  const allow = value['allowPrivateOrigins'];
  if (allow !== undefined) {
    if (!Array.isArray(allow) || allow.some((origin) => typeof origin !== 'string')) {
      invalid('allowPrivateOrigins', '"allowPrivateOrigins" must be an array of origins such as "http://127.0.0.1:8080".');
    }
    file.allowPrivateOrigins = allow as string[];
  }
  const webhook = value['webhookSample'];
  if (webhook !== undefined) {
    if (!isRecord(webhook) || !('body' in webhook)) invalid('webhookSample', '"webhookSample" must be { "method"?, "headers"?, "body" }.');
    const { method, headers } = webhook;
    if (method !== undefined && typeof method !== 'string') invalid('webhookSample.method', '"webhookSample.method" must be a string.');
    if (headers !== undefined && (!isRecord(headers) || Object.values(headers).some((item) => typeof item !== 'string'))) {
      invalid('webhookSample.headers', '"webhookSample.headers" must be an object of header name → string.');
    }
    file.webhookSample = webhook as unknown as TrialWebhookSample;
  }
  if (value['samples'] !== undefined) file.samples = parseTrialSamples(value['samples']);
  if (value['envelope'] !== undefined) file.envelope = parseEnvelopeOwner(value['envelope']);
  return file;
}

const ADDRESS = /^[^\s@<>]+@[^\s@<>]+$/;

function parseEnvelopeOwner(value: unknown): TrialEnvelopeOwner {
  const form = '"envelope" must be { "ownAddresses"?: ["ada@example.com"], "authservId"?: "mx.example.com" }.';
  if (!isRecord(value)) invalid('envelope', form);
  for (const key of Object.keys(value)) {
    if (key !== 'ownAddresses' && key !== 'authservId') invalid(`envelope.${key}`, `"${key}" is not a field of "envelope"; ${form}`);
  }
  const { ownAddresses, authservId } = value;
  if (ownAddresses !== undefined && (!Array.isArray(ownAddresses) || ownAddresses.some((address) => typeof address !== 'string' || !ADDRESS.test(address.trim())))) {
    invalid('envelope.ownAddresses', '"envelope.ownAddresses" must be a list of the owner\'s email addresses, such as ["ada@example.com"].');
  }
  if (authservId !== undefined && (typeof authservId !== 'string' || !/^[A-Za-z0-9.\-_:[\]]+$/.test(authservId))) {
    invalid('envelope.authservId', '"envelope.authservId" must be the authserv-id the owner\'s receiving host writes in Authentication-Results, such as "mx.example.com".');
  }
  return { ...(ownAddresses === undefined ? {} : { ownAddresses: ownAddresses as string[] }), ...(authservId === undefined ? {} : { authservId }) };
}

/** Check 10's objects in their JSON form (as a config file or a request body gives them). Throws `invalid_config` naming the field. */
export function parseTrialSamples(samples: unknown): TrialWriteSample[] {
  if (!Array.isArray(samples)) invalid('samples', '"samples" must be an array of { "mime", "extension", "body", "replacement", "markers"? }.');
  return samples.map((sample, index) => parseSample(sample, `samples[${index}]`));
}

function sampleBytes(sample: Record<string, unknown>, key: 'body' | 'replacement', at: string): Uint8Array {
  const text = sample[key];
  const base64 = sample[`${key}Base64`];
  if ((text === undefined) === (base64 === undefined)) invalid(`${at}.${key}`, `${at} needs exactly one of "${key}" (text) and "${key}Base64".`);
  if (text !== undefined) {
    if (typeof text !== 'string' || text === '') invalid(`${at}.${key}`, `${at}.${key} must be non-empty text.`);
    return new TextEncoder().encode(text);
  }
  if (typeof base64 !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64) || base64.length % 4 !== 0) invalid(`${at}.${key}Base64`, `${at}.${key}Base64 must be standard base64.`);
  return Uint8Array.from(Buffer.from(base64, 'base64'));
}

function parseSample(value: unknown, at: string): TrialWriteSample {
  if (!isRecord(value)) invalid(at, `${at} must be an object { "mime", "extension", "body", "replacement", "markers"? }.`);
  for (const key of Object.keys(value)) {
    if (!SAMPLE_KEYS.includes(key)) invalid(`${at}.${key}`, `"${key}" is not a field of a sample; the fields are ${SAMPLE_KEYS.join(', ')}.`);
  }
  const { mime, extension, markers } = value;
  if (typeof mime !== 'string' || !SAMPLE_MIME.test(mime)) invalid(`${at}.mime`, `${at}.mime must be a lowercase MIME type such as "text/vcard".`);
  if (typeof extension !== 'string' || !/^[a-z0-9]{1,16}$/.test(extension)) invalid(`${at}.extension`, `${at}.extension must be a file extension without the dot, such as "vcf".`);
  const body = sampleBytes(value, 'body', at);
  const replacement = sampleBytes(value, 'replacement', at);
  if (Buffer.from(body).equals(Buffer.from(replacement))) invalid(`${at}.replacement`, `${at}.replacement must differ from its body.`);
  const sample = { mime, extension, body, replacement };
  if (markers === undefined) return sample;
  if (!Array.isArray(markers) || markers.length !== 2 || markers.some((marker) => typeof marker !== 'string' || marker === '')) {
    invalid(`${at}.markers`, `${at}.markers must be two non-empty phrases: one of the body, one of the replacement.`);
  }
  return { ...sample, markers: [markers[0] as string, markers[1] as string] };
}

/**
 * Reads and checks a config file. Throws `not_found` when it does not exist, `invalid_config`
 * when it is not JSON or breaks the form. Messages name the file as given, never its contents.
 */
export async function readTrialConfigFile(path: string): Promise<TrialConfigFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'EISDIR') throw new NotFoundError(`The trial config file ${JSON.stringify(path)} does not exist.`);
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    // The parser's message quotes the text around the mistake, which may be a credential: give only the position.
    const position = /position (\d+)/.exec(error instanceof Error ? error.message : '')?.[1];
    throw new InvalidConfigError(`The trial config file ${JSON.stringify(path)} is not JSON${position === undefined ? '' : ` (the mistake is at character ${position})`}; check for a missing comma, quote or brace.`);
  }
  return parseTrialConfig(value);
}
