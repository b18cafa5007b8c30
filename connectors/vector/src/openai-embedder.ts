/**
 * An embedder over an OpenAI-compatible `POST {baseUrl}/embeddings`, the API OpenAI, Ollama,
 * llama.cpp's server, vLLM and text-embeddings-inference all speak:
 *
 *   → { "model": "…", "input": ["text", …], "encoding_format": "float", "dimensions"?: n }
 *   ← { "data": [ { "index": 0, "embedding": [0.1, …] }, … ] }
 *
 * Every request goes through the `EgressPort` it is given — the platform binds it to the egress
 * gate with the vector host's AuthSpec (config.ts `embedderAuth`), so the key is attached by the
 * gate, never seen here, and only the base URL's origin is reachable. The body is buffered, so
 * the gate retries a 429 or 503 by its policy (Retry-After, backoff); a 429 still there after its
 * retries is `rate_limited` here.
 *
 * Each answer is checked: one embedding per input, at its `index`, each of `dimension` finite
 * numbers (a server that answers another length is `invalid_config`: the configured dimension or
 * model is wrong). Vectors are scaled to unit length (not every server does). An empty or
 * blank text gets the zero vector without a request (OpenAI refuses empty input). Answers are
 * read up to MAX_ANSWER_BYTES. No message carries a text, a server's error body or a key.
 */
import { isEgressError, type EgressPort, type EgressResponse } from '@inseam/connector';
import {
  EgressRefusedError,
  InvalidConfigError,
  PermissionDeniedError,
  RateLimitedError,
  TimeoutError,
  UnavailableError,
  type ConnectorError,
} from '@neuralis/package-system/contracts';
import type { OpenAiEmbedderSettings } from './config.js';
import { checkBatch, normalize, type EmbedOptions, type Embedder } from './embedder.js';

/** The largest answer read: 2048 inputs of 8192 numbers at about 20 bytes each, with room to spare. */
export const MAX_ANSWER_BYTES = 512 * 1024 * 1024;

/** The model id of an OpenAI-compatible embedder: the endpoint, the server's model name and the dimension name one vector space. */
export function openAiModelId(settings: Pick<OpenAiEmbedderSettings, 'baseUrl' | 'model' | 'dimension'>): string {
  return `openai:${settings.baseUrl}#${settings.model}@${settings.dimension}`;
}

export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimension: number;
  readonly maxBatch: number;
  readonly #settings: OpenAiEmbedderSettings;
  readonly #egress: EgressPort;
  readonly #url: string;
  readonly #origin: string;

  constructor(settings: OpenAiEmbedderSettings, egress: EgressPort) {
    this.#settings = settings;
    this.#egress = egress;
    this.#url = `${settings.baseUrl}/embeddings`;
    this.#origin = new URL(settings.baseUrl).origin;
    this.dimension = settings.dimension;
    this.maxBatch = settings.batchSize;
    this.model = openAiModelId(settings);
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    checkBatch(texts, this.maxBatch);
    const vectors = texts.map(() => new Float32Array(this.dimension));
    const sent = texts.map((text, index) => ({ text, index })).filter(({ text }) => text.trim() !== '');
    if (sent.length === 0) return vectors;
    const body = JSON.stringify({
      model: this.#settings.model,
      input: sent.map(({ text }) => text),
      encoding_format: 'float',
      ...(this.#settings.sendDimensions ? { dimensions: this.dimension } : {}),
    });
    const deadline = AbortSignal.timeout(this.#settings.timeoutMs);
    const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]);
    let response: EgressResponse;
    try {
      response = await this.#egress.fetch({
        method: 'POST',
        url: this.#url,
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: new TextEncoder().encode(body),
        signal,
      });
    } catch (error) {
      throw this.#egressFailure(error, deadline.aborted);
    }
    const answer = await this.#readAnswer(response, deadline);
    const embeddings = this.#embeddings(answer, sent.length);
    sent.forEach(({ index }, position) => vectors[index]!.set(embeddings[position]!));
    return vectors.map(normalize);
  }

  async #readAnswer(response: EgressResponse, deadline: AbortSignal): Promise<unknown> {
    if (response.status < 200 || response.status >= 300) {
      await response.body?.cancel().catch(() => undefined);
      throw this.#statusError(response);
    }
    let text: string;
    try {
      text = await readCapped(response.body, MAX_ANSWER_BYTES);
    } catch (error) {
      if (error instanceof RangeError) throw this.#malformed(`an answer larger than ${MAX_ANSWER_BYTES} bytes`);
      throw deadline.aborted
        ? new TimeoutError(`The embeddings endpoint ${this.#origin} did not finish its answer in time (embedder.timeoutMs).`, { details: { origin: this.#origin } })
        : new UnavailableError(`The answer of the embeddings endpoint ${this.#origin} broke off; retry later.`, { details: { origin: this.#origin } });
    }
    try {
      return JSON.parse(text);
    } catch {
      throw this.#malformed('an answer that is not JSON');
    }
  }

  /** The embeddings of an answer, by input position. */
  #embeddings(answer: unknown, count: number): Float32Array[] {
    const data = (answer as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || data.length !== count) {
      throw this.#malformed(`${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs`);
    }
    const byIndex = new Array<Float32Array | undefined>(count);
    data.forEach((item: unknown, position) => {
      const { index = position, embedding } = (item ?? {}) as { index?: unknown; embedding?: unknown };
      if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count || byIndex[index as number] !== undefined) {
        throw this.#malformed(`an embedding with index ${String(index)} for ${count} inputs`);
      }
      if (!Array.isArray(embedding) || !embedding.every((value) => typeof value === 'number' && Number.isFinite(value))) {
        throw this.#malformed('an embedding that is not a list of finite numbers');
      }
      if (embedding.length !== this.dimension) {
        throw new InvalidConfigError(
          `The embeddings endpoint ${this.#origin} answered vectors of ${embedding.length} dimensions for model "${this.#settings.model}", not the configured ${this.dimension}; set "embedder.dimension" to ${embedding.length} (the index is rebuilt for the new model).`,
          { details: { fields: ['embedder.dimension'], expected: this.dimension, actual: embedding.length } },
        );
      }
      byIndex[index as number] = Float32Array.from(embedding as number[]);
    });
    return byIndex as Float32Array[];
  }

  #malformed(what: string): InvalidConfigError {
    return new InvalidConfigError(`The embeddings endpoint ${this.#origin} answered ${what}; check "embedder.baseUrl" and "embedder.model" (is it an OpenAI-compatible /v1/embeddings?).`, {
      details: { fields: ['embedder.baseUrl', 'embedder.model'], origin: this.#origin },
    });
  }

  #statusError(response: EgressResponse): ConnectorError {
    const { status } = response;
    const details = { origin: this.#origin, status };
    if (status === 401 || status === 403) {
      return new PermissionDeniedError(`The embeddings endpoint ${this.#origin} refused the API key (HTTP ${status}); store a valid "apiKey" credential for the vector host.`, { details });
    }
    if (status === 429) {
      return new RateLimitedError(`The embeddings endpoint ${this.#origin} is rate limiting (HTTP 429) after the egress gate's retries; indexing tries again later.`, retryAfterMs(response.headers['retry-after']), {
        details,
      });
    }
    if (status === 404) return new InvalidConfigError(`The embeddings endpoint ${this.#origin} has no ${new URL(this.#url).pathname} or no model "${this.#settings.model}" (HTTP 404); check "embedder.baseUrl" and "embedder.model".`, { details: { ...details, fields: ['embedder.baseUrl', 'embedder.model'] } });
    if (status >= 400 && status < 500) {
      return new InvalidConfigError(`The embeddings endpoint ${this.#origin} refused the request (HTTP ${status}); check "embedder.model"${this.#settings.sendDimensions ? ' and whether the model takes "dimensions" (embedder.sendDimensions)' : ''}.`, {
        details: { ...details, fields: ['embedder.model'] },
      });
    }
    return new UnavailableError(`The embeddings endpoint ${this.#origin} failed (HTTP ${status}); retry later.`, { details });
  }

  #egressFailure(error: unknown, timedOut: boolean): ConnectorError {
    if (!isEgressError(error)) return new UnavailableError(`The request to the embeddings endpoint ${this.#origin} could not be sent.`, { cause: error, details: { origin: this.#origin } });
    const details = { origin: error.origin, failure: error.failure };
    switch (error.failure) {
      case 'origin_refused':
        return new EgressRefusedError(error.origin, 'origin_refused');
      case 'credential_missing':
        return new PermissionDeniedError('No API key is stored for the vector host; store its "apiKey" credential (or set "embedder.apiKey" to "none" for a server without one).', {
          details: { ...details, reason: 'credentials_missing' },
        });
      case 'timeout':
        return new TimeoutError(`The embeddings endpoint ${error.origin} did not answer in time.`, { details });
      case 'aborted':
        return new TimeoutError(timedOut ? `The embeddings endpoint ${error.origin} did not answer within embedder.timeoutMs.` : 'The embedding was aborted.', { details });
      case 'unreachable':
        return new UnavailableError(`Cannot reach the embeddings endpoint ${error.origin}; check "embedder.baseUrl" and that the server is up.`, { details });
      case 'invalid_request':
        return new InvalidConfigError(`The request to ${error.origin} is malformed; check "embedder.baseUrl".`, { details: { ...details, fields: ['embedder.baseUrl'] } });
    }
  }
}

function retryAfterMs(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

/** The body as text, refusing (RangeError) more than `cap` bytes. */
async function readCapped(body: ReadableStream<Uint8Array> | null, cap: number): Promise<string> {
  if (body === null) return '';
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > cap) {
      await reader.cancel().catch(() => undefined);
      throw new RangeError('answer too large');
    }
    parts.push(value);
  }
  return Buffer.concat(parts).toString('utf8');
}
