/**
 * Query-string edits that leave every other parameter exactly as the connector wrote it
 * (URLSearchParams would re-encode the whole string). Names compare after percent-decoding.
 */

function decodeName(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

function pairs(search: string): string[] {
  return search.replace(/^\?/, '').split('&').filter((pair) => pair !== '');
}

function pairName(pair: string): string {
  const eq = pair.indexOf('=');
  return decodeName(eq === -1 ? pair : pair.slice(0, eq));
}

/** Drops every parameter whose name is in `names`. */
export function withoutQueryParams(url: URL, names: ReadonlySet<string>): void {
  if (names.size === 0 || url.search === '') return;
  const kept = pairs(url.search).filter((pair) => !names.has(pairName(pair)));
  url.search = kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** Replaces every parameter named `name` with one `name=value`, appended last. */
export function setQueryParam(url: URL, name: string, value: string): void {
  const kept = pairs(url.search).filter((pair) => pairName(pair) !== name);
  kept.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  url.search = `?${kept.join('&')}`;
}

/**
 * The query as decoded name → value(s), for SigV4's canonical query. `+` stays a literal plus
 * (AWS decodes only %XX). Returns null when a parameter has malformed percent-encoding, which
 * could not be signed the way the service will read it.
 */
export function decodedQuery(url: URL): Record<string, string | string[]> | null {
  const out = Object.create(null) as Record<string, string | string[]>;
  for (const pair of pairs(url.search)) {
    const eq = pair.indexOf('=');
    let name: string;
    let value: string;
    try {
      name = decodeURIComponent(eq === -1 ? pair : pair.slice(0, eq));
      value = eq === -1 ? '' : decodeURIComponent(pair.slice(eq + 1));
    } catch {
      return null;
    }
    const existing = out[name];
    if (existing === undefined) out[name] = value;
    else out[name] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}
