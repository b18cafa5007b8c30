// The page's only way to the server: same-origin fetches to /v1 with the signed-in token.

/** An error answer of the API: `code` is the stable code of docs/errors.md. */
export class ApiError extends Error {
  constructor(status, body) {
    const error = body && typeof body === 'object' ? body.error : undefined;
    super(error?.message ?? `The server answered ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = error?.code ?? 'internal';
    this.details = error?.details ?? {};
  }
}

/**
 * `session` holds `token` and `network` and is told when the token stops working. Every call
 * sends `Authorization: Bearer <token>` and the `Inseam-Network` header.
 */
export function createApi(session) {
  /** `body` goes as JSON; `raw` (a Blob or File: an upload) goes as it is, streamed by the browser. */
  async function request(method, path, { body, raw, headers = {}, signal } = {}) {
    const init = { method, headers: { ...headers }, signal, cache: 'no-store', credentials: 'omit' };
    if (session.token) init.headers.authorization = `Bearer ${session.token}`;
    if (session.network) init.headers['inseam-network'] = session.network;
    if (raw !== undefined) init.body = raw;
    else if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    if (response.status === 401 && session.token) session.expired();
    return response;
  }

  async function json(method, path, options) {
    const response = await request(method, path, options);
    if (response.status === 204) return undefined;
    const text = await response.text();
    let data;
    try {
      data = text === '' ? undefined : JSON.parse(text);
    } catch {
      data = undefined;
    }
    if (!response.ok) throw new ApiError(response.status, data);
    return data;
  }

  return {
    request,
    get: (path, options) => json('GET', path, options),
    post: (path, body, options) => json('POST', path, { ...options, body: body ?? {} }),
    patch: (path, body, options) => json('PATCH', path, { ...options, body: body ?? {} }),
    put: (path, body, options) => json('PUT', path, { ...options, body: body ?? {} }),
    delete: (path, options) => json('DELETE', path, options),
  };
}

/** The ApiError of a response that is not ok (its body the API's error envelope, when it is one). */
export async function errorOf(response) {
  let body;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  return new ApiError(response.status, body);
}

/** A query string from an object; arrays repeat the parameter. */
export function query(params) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value === undefined || value === null || value === '') continue;
    for (const item of Array.isArray(value) ? value : [value]) search.append(key, String(item));
  }
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

/** The path of a host route: /v1/hosts/{network}/{host}… */
export function hostPath(network, host, rest = '') {
  return `/v1/hosts/${encodeURIComponent(network)}/${encodeURIComponent(host)}${rest}`;
}

/**
 * `ask` as only its newest call counts: settings change faster than the server answers them.
 * `ask(current, ...args)` looks at `current()` after each await and, once it is false (a newer
 * call began), leaves the page as the newer call has it; its caller gets the newest call's outcome.
 */
export function newestOnly(ask) {
  let calls = 0;
  let newest;
  return (...args) => {
    const mine = ++calls;
    newest = ask(() => mine === calls, ...args).then((outcome) => (mine === calls ? outcome : newest));
    return newest;
  };
}
