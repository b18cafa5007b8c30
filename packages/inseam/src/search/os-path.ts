/**
 * A hit's real OS path, asked of its host's connector now (`resolveOsUri`), never taken from the
 * catalog: a path the catalog remembers may have moved or gone since the crawl. A kind with no OS
 * paths (a bucket, a mailbox, the vector index) says so with `os_uri_unresolvable`; a host that
 * cannot be opened or does not answer in time gives that error's code instead. Either way the
 * hit carries no path rather than a made-up one.
 */
import { isConnectorError } from '@neuralis/package-system/contracts';
import { addressToSourceUri, type Address } from '../address/index.js';
import type { HostKinds } from '../platform/host-kinds.js';
import type { HostRecord } from '../store/index.js';

/** How long one hit's lookup may take before it is reported as `timeout`. */
export const OS_PATH_TIMEOUT_MS = 2_000;

export type OsPath = { readonly osPath: string; readonly osPathError?: undefined } | { readonly osPath: null; readonly osPathError: { readonly code: string; readonly message: string } };

export async function resolveOsPath(kinds: Pick<HostKinds, 'openPort'>, record: HostRecord, address: Address): Promise<OsPath> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const lookup = (async () => {
      const port = await kinds.openPort(record);
      if (port.resolveOsUri === undefined) return unresolvable(record);
      const path = await port.resolveOsUri(addressToSourceUri(address));
      return { osPath: path };
    })();
    const late = new Promise<OsPath>((resolve) => {
      timer = setTimeout(() => resolve({ osPath: null, osPathError: { code: 'timeout', message: `Host "${record.slug}" did not answer with the OS path in time.` } }), OS_PATH_TIMEOUT_MS);
    });
    lookup.catch(() => undefined);
    return await Promise.race([lookup, late]);
  } catch (error) {
    if (isConnectorError(error)) {
      if (error.code === 'os_uri_unresolvable') return unresolvable(record);
      return { osPath: null, osPathError: { code: error.code, message: `Host "${record.slug}" could not resolve the OS path (${error.code}).` } };
    }
    return { osPath: null, osPathError: { code: 'internal', message: `Host "${record.slug}" could not resolve the OS path.` } };
  } finally {
    clearTimeout(timer);
  }
}

function unresolvable(record: HostRecord): OsPath {
  return { osPath: null, osPathError: { code: 'os_uri_unresolvable', message: `Kind "${record.kind}" has no OS paths; use the inseam address.` } };
}
