import { describe, expect, it } from 'vitest';
import * as paths from './index.js';

describe('@neuralis/package-system/paths', () => {
  it('spec: exports exactly the named containment primitives and their code list', () => {
    expect(Object.keys(paths).sort()).toEqual(['CONTAINMENT_ERROR_CODES', 'containedRealPath', 'listContained', 'openContainedDescriptor', 'openContainedHandle', 'resolveContained']);
  });
});
