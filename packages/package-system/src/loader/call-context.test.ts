/**
 * A binding's call context (SourceBindingRequest.callContext): the factory, every forwarded call
 * of the handed-out instance and each step of an async iterator it returns run inside it — the
 * steps too, although the consumer takes them after the call has returned — and without one the
 * instance forwards as before, handing out the connector's own iterator.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { notionEntry } from './__fixtures__/support.js';
import { checkConnectorCapabilities } from './capability-check.js';
import { buildGuardedInstance } from './guarded-instance.js';

const owner = new AsyncLocalStorage<string>();

function connector(seen: (string | undefined)[]): object {
  return {
    kind: 'notion',
    source: 'notes+user.bob',
    portVersion: 4,
    capabilities: () => new Set(['list', 'read', 'walk']),
    list: async () => {
      seen.push(owner.getStore());
      return { entries: [] };
    },
    read: async () => ({ text: owner.getStore() ?? 'none', mime: 'text/plain', size: 0 }),
    walk: async function* () {
      for (const name of ['a', 'b']) {
        await new Promise((resolve) => setTimeout(resolve, 1));
        seen.push(owner.getStore());
        yield { uri: `notes+user.bob://${name}`, name, type: 'file' };
      }
    },
  };
}

function guarded(target: object, callContext?: <T>(call: () => T) => T) {
  const checked = checkConnectorCapabilities(target, notionEntry({ capabilities: ['list', 'read', 'walk'] }));
  return buildGuardedInstance(target, checked, { kind: 'notion', source: 'notes+user.bob', execRequires: [], pathPolicy: undefined }, callContext);
}

describe('a binding call context', () => {
  it('runs each call and each iterator step inside it', async () => {
    const seen: (string | undefined)[] = [];
    const port = guarded(connector(seen), (call) => owner.run('bob', call));
    await port.list('notes+user.bob://');
    expect((await port.read('notes+user.bob://a')) as { text: string }).toMatchObject({ text: 'bob' });
    const names: string[] = [];
    // Consumed outside any context: the steps still see the binding's.
    for await (const entry of port.walk!('notes+user.bob://')) names.push(entry.name);
    expect(names).toEqual(['a', 'b']);
    expect(seen).toEqual(['bob', 'bob', 'bob']);
  });

  it('changes nothing without one', async () => {
    const seen: (string | undefined)[] = [];
    const port = await owner.run('outer', async () => {
      const made = guarded(connector(seen));
      await made.list('notes+user.bob://');
      return made;
    });
    await port.list('notes+user.bob://');
    expect(seen).toEqual(['outer', undefined]);
  });
});
