/**
 * What the sandbox process hands the prelude (src/sandbox/runtime.ts, `#hostObject`), and what the
 * prelude gives back. Only strings, numbers and byte copies cross; a call with a bad argument
 * throws a TypeError inside the sandbox.
 */
interface PreludeHost {
  /** Sends one message to the sandbox process; `buffer[offset, offset + length)` is copied. */
  post(op: string, id: number, json?: string, buffer?: ArrayBufferLike, offset?: number, length?: number): void;
  /** A call's result in binary form (binary-json.ts), or null when it cannot be encoded that way. */
  encodeResult(value: unknown): { readonly plan: readonly number[]; readonly cursor?: string | null } | null;
  utf8Encode(text: string): ArrayBuffer;
  utf8Decode(buffer: ArrayBufferLike, offset: number, length: number, fatal?: boolean): string;
  /** A JSON body parsed by the sandbox process, or undefined to parse it here. */
  parseJson(buffer: ArrayBufferLike, offset: number, length: number): unknown;
  /** The WHATWG URL record as JSON, or null when the input does not parse. */
  urlParse(input: string, base?: string): string | null;
  urlSet(href: string, key: string, value: string): string;
  /** `[name, value]` pairs as JSON. */
  formParse(text: string): string;
  formSerialize(pairsJson: string): string;
  /** `{ resolved }` without an epoch, `{ parts }` with one, or `{ error }` (src/sandbox/intl.ts). */
  dateTimeFormat(optionsJson: string, epoch?: number): string;
  /** The IANA time zones, as a JSON array. */
  timeZones(): string;
}

/** What the prelude returns: the sandbox process's two ways in. */
interface PreludeApi {
  receive(op: string, id: number, json?: string, buffer?: ArrayBuffer): void;
  init(...args: unknown[]): void;
}
