/**
 * The description of a host nobody described: what it holds — its kind, the name of what its
 * root is (a folder's name, a bucket, a server) and how many entries its catalog holds — rather
 * than the kind's generic sentence, which says the same of every host of the kind and so tells
 * an agent nothing about this one.
 *
 * Only the last segment of a folder root is named: the rest of the path lies outside the host's
 * root and is not the agent's to learn.
 */

const COUNT = new Intl.NumberFormat('en-US');

/** The name of what a host's root is, from its config; undefined when the config names none. */
export function rootNameOf(config: Readonly<Record<string, unknown>>): string | undefined {
  const root = config['root'];
  if (typeof root === 'string') {
    const name = root.split(/[\\/]+/).filter((segment) => segment !== '').pop();
    if (name !== undefined && name !== '.' && name !== '..' && !name.includes('${')) return name;
  }
  for (const key of ['bucket', 'host'] as const) {
    const value = config[key];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}

/** `Folder (fs) host named "notes", 1,204 entries synced.` */
export function describeHolding(kind: { readonly kind: string; readonly label: string | undefined }, rootName: string | undefined, entries: number): string {
  const what = kind.label === undefined || kind.label === '' || kind.label === kind.kind ? kind.kind : `${kind.label} (${kind.kind})`;
  const named = rootName === undefined ? '' : ` named "${rootName}"`;
  const held = entries === 0 ? 'nothing synced yet' : `${COUNT.format(entries)} entr${entries === 1 ? 'y' : 'ies'} synced`;
  return `${what} host${named}, ${held}.`;
}
