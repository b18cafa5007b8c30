/**
 * Checks of the optional, non-capability members: probeConnection, resolveOsUri and, for
 * runtimeGated kinds, isRuntimeActive. Absent optional members skip with the reason.
 */
import { ERROR_CODES, PROBE_REASONS } from '../../contracts/index.js';
import { describeError, describeValue, ensure, fail, skip } from '../checks.js';
import { MARKER, dataTarget, expectCode, otherSource } from './context.js';
import type { ComplianceCheck } from './context.js';

const probe: ComplianceCheck = {
  id: 'probe.connection',
  name: 'probeConnection never throws and answers { connected, reason?, code? } with reason from the fixed enum',
  async run({ port }) {
    if (typeof port.probeConnection !== 'function') skip('probeConnection: not implemented (it is optional)');
    let result: unknown;
    try {
      result = await port.probeConnection();
    } catch (error) {
      fail('probeConnection resolves; a failure to probe is { connected: false, reason }', `it threw ${describeError(error)}`);
    }
    const { connected, reason, code } = (result ?? {}) as { connected?: unknown; reason?: unknown; code?: unknown };
    ensure(
      typeof connected === 'boolean' &&
        (reason === undefined || (PROBE_REASONS as readonly unknown[]).includes(reason)) &&
        (connected || reason !== undefined) &&
        (code === undefined || (!connected && (ERROR_CODES as readonly unknown[]).includes(code))),
      {
        expected: `{ connected: boolean, reason?: ${PROBE_REASONS.join(' | ')}, code?: an error code }, with a reason when not connected and a code only then`,
        actual: describeValue(result),
      },
    );
    return connected ? 'connected' : `not connected: ${String(reason)}`;
  },
};

/** Absolute on POSIX (`/…`) or Windows (`C:\…`, `\\server\…`). */
const ABSOLUTE_PATH = /^(\/|[A-Za-z]:[\\/]|\\\\)/;

const osUri: ComplianceCheck = {
  id: 'os-uri.resolve',
  name: 'resolveOsUri returns a real absolute path or throws os_uri_unresolvable; never a fabricated one',
  async run(context) {
    const resolveOsUri = context.port.resolveOsUri;
    if (typeof resolveOsUri !== 'function') skip('resolveOsUri: not implemented (it is optional)');
    const target = dataTarget(context);
    const uri = target.file?.uri ?? target.dir;
    let path: unknown;
    try {
      path = await resolveOsUri.call(context.port, uri);
    } catch (error) {
      ensure((error as { code?: unknown }).code === 'os_uri_unresolvable', {
        expected: 'a host path, or the typed os_uri_unresolvable',
        actual: `it threw ${describeError(error)}`,
      });
      path = undefined;
    }
    ensure(path === undefined || (typeof path === 'string' && ABSOLUTE_PATH.test(path)), {
      expected: 'an absolute path (the real host path, or a sandbox\'s own internal path)',
      actual: describeValue(path),
      fix: 'return the real path, or throw OsUriUnresolvableError; never invent a plausible-looking path',
    });
    await expectCode(() => resolveOsUri.call(context.port, `${otherSource(context)}://${MARKER}`), 'invalid_uri', "resolveOsUri of another source's URI");
    return path === undefined ? 'os_uri_unresolvable, as declared' : 'an absolute path';
  },
};

const runtimeGated: ComplianceCheck = {
  id: 'runtime-gated.active',
  name: 'a runtimeGated kind answers isRuntimeActive() with a boolean for its exact binding',
  async run({ port, manifest }) {
    if (manifest.runtimeGated !== true) skip('runtimeGated: not declared');
    ensure(typeof port.isRuntimeActive === 'function', {
      expected: 'runtimeGated kinds implement isRuntimeActive()',
      actual: 'no isRuntimeActive member',
    });
    const active = await port.isRuntimeActive();
    ensure(typeof active === 'boolean', { expected: 'isRuntimeActive() answers a boolean', actual: describeValue(active) });
    return active ? 'runtime active' : 'runtime stopped';
  },
};

export const OPTIONAL_CHECKS: readonly ComplianceCheck[] = [probe, osUri, runtimeGated];
