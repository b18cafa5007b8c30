import { describe, expect, it } from 'vitest';
import { ManifestValidationError } from '../contracts/errors.js';
import { NOTION_CONNECTOR } from './__fixtures__/spec-examples.js';
import { modulePathProblem, parseConnectorFactory } from './module-reference.js';

describe('parseConnectorFactory', () => {
  it('spec: "connectorFactory is a modulePath#exportName reference" — splits the spec example', () => {
    expect(parseConnectorFactory(NOTION_CONNECTOR.connectorFactory)).toEqual({
      modulePath: './dist/connectors/NotionConnector.js',
      exportName: 'createNotionConnector',
    });
  });

  it.each(['../../etc/passwd.js#x', '/tmp/evil.js#x', 'file:///tmp/evil.js#x', './a/../../b.js#x', 'x.js', 42])(
    'throws manifest_invalid at path "connectorFactory" for %s, so a loader cannot import outside the package lexically',
    (reference) => {
      try {
        parseConnectorFactory(reference as string);
        throw new Error('expected a failure');
      } catch (error) {
        expect(error).toBeInstanceOf(ManifestValidationError);
        const issue = (error as ManifestValidationError).issues[0];
        expect(issue?.path).toBe('connectorFactory');
        expect(issue?.expected).toContain('"modulePath#exportName"');
      }
    },
  );

  it('modulePathProblem accepts nested relative paths and refuses a bare "./"', () => {
    expect(modulePathProblem('dist/a/b.cjs')).toBeUndefined();
    expect(modulePathProblem('./')).toBeDefined();
    expect(modulePathProblem('.')).toBeDefined();
  });
});
