import { describe, expect, it } from 'vitest';
import { TrustViolationError } from '../contracts/errors.js';
import type { ConnectorManifestEntry, PackageTrust } from '../contracts/manifest.js';
import { EXEC_CONNECTOR, GIT_MCP_CONNECTOR, HTTP_MCP_CONNECTOR, NOTION_CONNECTOR } from './__fixtures__/spec-examples.js';
import { checkRuntimeRegistrationTrust } from './trust.js';

const notion = NOTION_CONNECTOR as unknown as ConnectorManifestEntry;
const git = GIT_MCP_CONNECTOR as unknown as ConnectorManifestEntry;
const http = HTTP_MCP_CONNECTOR as unknown as ConnectorManifestEntry;
const stdio = { id: 'local', type: 'mcp', transport: 'stdio', name: 'Local', command: 'node' } as ConnectorManifestEntry;

function trustErrorOf(run: () => void): TrustViolationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(TrustViolationError);
    expect((error as TrustViolationError).code).toBe('trust_violation');
    return error as TrustViolationError;
  }
  throw new Error('expected a TrustViolationError');
}

describe('checkRuntimeRegistrationTrust (the second gate)', () => {
  it.each(['untrusted', 'sandboxed'] as const)('spec: "an untrusted package is rejected … again at runtime registration" — a source connector from a %s package', (trust) => {
    const error = trustErrorOf(() => checkRuntimeRegistrationTrust(notion, trust));
    expect(error.details).toEqual({ connectorId: 'my-notion', type: 'source', transport: 'in-process', trust });
    expect(error.message).toContain('trusted or first-party');
  });

  it.each(['first-party', 'trusted'] as const)('spec: "first-party and trusted packages may contribute source connectors with any capability" — %s', (trust) => {
    expect(() => checkRuntimeRegistrationTrust(notion, trust)).not.toThrow();
    expect(() => checkRuntimeRegistrationTrust(EXEC_CONNECTOR as unknown as ConnectorManifestEntry, trust)).not.toThrow();
  });

  it.each(['untrusted', 'sandboxed'] as const)('spec: in-process and stdio MCP need "a trusted (or first-party) package only" — refused at registration for %s', (trust) => {
    trustErrorOf(() => checkRuntimeRegistrationTrust(git, trust));
    trustErrorOf(() => checkRuntimeRegistrationTrust(stdio, trust));
  });

  it.each(['first-party', 'trusted', 'untrusted', 'sandboxed'] as const)('streamable-http MCP runs nothing in the host and registers at any trust (%s)', (trust) => {
    expect(() => checkRuntimeRegistrationTrust(http, trust)).not.toThrow();
  });

  it('deny-by-default: an unrecognised trust value or connector type is refused', () => {
    const error = trustErrorOf(() => checkRuntimeRegistrationTrust(notion, 'root' as PackageTrust));
    expect(error.details['trust']).toBeNull();
    trustErrorOf(() => checkRuntimeRegistrationTrust({ ...git, type: 'plugin' } as unknown as ConnectorManifestEntry, 'untrusted'));
    trustErrorOf(() => checkRuntimeRegistrationTrust({ ...git, transport: 'sidecar' } as unknown as ConnectorManifestEntry, 'sandboxed'));
  });
});
