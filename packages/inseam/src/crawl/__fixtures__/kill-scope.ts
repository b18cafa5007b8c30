import type { Scope } from '@inseam/connector';

/** Content for most entries, a folder left out, large files kept as metadata only. */
export const KILL_TEST_SCOPE: Scope = {
  rules: [{ exclude: { dim: 'path', op: 'glob', value: 'd3/**' } }],
  limits: { maxEntryBytes: 1000 },
};
