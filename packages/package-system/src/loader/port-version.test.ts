import { describe, expect, it } from 'vitest';
import type { ConnectorPort } from '../contracts/index.js';
import { PortAdapterRegistry, requireSupportedPort } from './port-version.js';

const context = { kind: 'old', source: 'box' };

describe('port version gate', () => {
  it('a v4 instance passes through unchanged', () => {
    const instance = { portVersion: 4 };
    expect(requireSupportedPort(instance, new PortAdapterRegistry(), context)).toBe(instance);
  });

  it('"v1 execution signatures are rejected without an adapter": portVersion 1 with exec is refused, naming the adapter hook', () => {
    const v1 = { portVersion: 1, exec: (command: string, cwd: string) => `${command}@${cwd}` };
    expect(() => requireSupportedPort(v1, new PortAdapterRegistry(), context)).toThrow(
      expect.objectContaining({ code: 'port_version_unsupported', message: expect.stringContaining('exec(command, cwd)') }),
    );
  });

  it('"bumped on any breaking change": an unknown, missing or non-numeric version is port_version_unsupported', () => {
    for (const portVersion of [9, 3, undefined, '4', Number.NaN]) {
      expect(() => requireSupportedPort({ portVersion }, new PortAdapterRegistry(), context)).toThrow(expect.objectContaining({ code: 'port_version_unsupported' }));
    }
  });

  it('an explicitly registered adapter turns an old instance into a v4 port', () => {
    const adapters = new PortAdapterRegistry();
    const adapted = { portVersion: 4 } as unknown as ConnectorPort;
    const seen: unknown[] = [];
    adapters.register(1, (instance, adapterContext) => {
      seen.push(instance, adapterContext);
      return adapted;
    });
    const v1 = { portVersion: 1, exec: () => undefined };
    expect(requireSupportedPort(v1, adapters, context)).toBe(adapted);
    expect(seen).toEqual([v1, { kind: 'old', source: 'box', declaredVersion: 1 }]);
  });

  it('an adapter that does not produce a v4 port is refused; one that throws untyped is connector_failed', () => {
    const adapters = new PortAdapterRegistry();
    adapters.register(2, (instance) => instance as ConnectorPort);
    adapters.register(3, () => {
      throw new Error('adapter bug');
    });
    expect(() => requireSupportedPort({ portVersion: 2 }, adapters, context)).toThrow(expect.objectContaining({ code: 'port_version_unsupported' }));
    expect(() => requireSupportedPort({ portVersion: 3 }, adapters, context)).toThrow(expect.objectContaining({ code: 'connector_failed' }));
  });

  it('adapters are registered only for older, integer versions, once each', () => {
    const adapters = new PortAdapterRegistry();
    const adapter = (instance: object) => instance as ConnectorPort;
    expect(() => adapters.register(4, adapter)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    expect(() => adapters.register(1.5, adapter)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
    adapters.register(1, adapter);
    expect(() => adapters.register(1, adapter)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
  });
});
