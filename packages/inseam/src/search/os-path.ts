/**
 * A hit's real OS path, asked of its host's connector now (`resolveOsUri`), never taken from the
 * catalog: a path the catalog remembers may have moved or gone since the crawl. A kind with no OS
 * paths (a bucket, a mailbox, the vector index) says so with `os_uri_unresolvable`; a host that
 * cannot be opened or does not answer in time gives that error's code instead. Either way the
 * hit carries no path rather than a made-up one.
 *
 * A path is only meaningful on the machine it names, so each comes marked (`osPathOn`): `local` for
 * a host whose files live on the machine inseam runs on (`fs`, `local`), `runtime` for a
 * runtime-gated kind (a machine over SSH, a container), whose path is its runtime's own coordinate
 * — the remote machine's absolute path, handed on as the connector said it and never translated
 * into, or mistaken for, a path here.
 */
import { isConnectorError } from '@neuralis/package-system/contracts';
import { addressToSourceUri, type Address } from '../address/index.js';
import type { HostKinds } from '../platform/host-kinds.js';
import type { HostRecord } from '../store/index.js';

/** How long one hit's lookup may take before it is reported as `timeout`. */
export const OS_PATH_TIMEOUT_MS = 2_000;

/** `local`: a path on the machine inseam runs on; `runtime`: a path inside the host's own runtime (another machine, a container). */
export type OsPathOn = 'local' | 'runtime';

export type OsPath =
  | { readonly osPath: string; readonly osPathOn: OsPathOn; readonly osPathError?: undefined }
  | { readonly osPath: null; readonly osPathOn?: undefined; readonly osPathError: { readonly code: string; readonly message: string } };

export async function resolveOsPath(kinds: Pick<HostKinds, 'openPort' | 'runtimeGated'>, record: HostRecord, address: Address): Promise<OsPath> {
  let timer: NodeJS.Timeout | undefined;
  try {
    const lookup = (async () => {
      const port = await kinds.openPort(record);
      if (port.resolveOsUri === undefined) return unresolvable(record);
      const path = await port.resolveOsUri(addressToSourceUri(address));
      const on: OsPathOn = kinds.runtimeGated(record.kind) ? 'runtime' : 'local';
      return { osPath: path, osPathOn: on };
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
