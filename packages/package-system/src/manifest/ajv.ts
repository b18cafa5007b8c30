/**
 * The one Ajv configuration config schemas are checked and compiled with: draft-07, strict mode
 * (unknown keywords, type-less type keywords, undeclared `required` names and misplaced defaults
 * are errors), every error reported, defaults applied. No format vocabulary is installed, so
 * strict mode refuses `format`; schemas use `pattern` instead.
 */
import { Ajv } from 'ajv';
import { at } from './issues.js';

export const DRAFT_07_META_SCHEMA_IDS = ['http://json-schema.org/draft-07/schema#', 'http://json-schema.org/draft-07/schema'] as const;

/**
 * `validateSchema: false` is for a schema already checked against the draft-07 meta-schema: each
 * Ajv instance that validates schemas compiles the meta-schema first, which costs more than
 * compiling a small config schema.
 */
export function createStrictAjv(options: { readonly validateSchema?: boolean } = {}): Ajv {
  return new Ajv({
    ...(options.validateSchema === false ? { validateSchema: false } : {}),
    strict: true,
    allErrors: true,
    verbose: true,
    useDefaults: true,
    allowUnionTypes: true,
    logger: false,
  });
}

/** JSON-pointer (`/properties/a~1b/items/0`) → issue path (`properties["a/b"].items[0]`), walking `root` to tell array indexes from keys. */
export function pointerToPath(base: string, pointer: string, root: unknown): string {
  if (pointer === '' || pointer === '/') return base;
  let path = base;
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node) && /^\d+$/.test(key)) {
      path = at(path, Number(key));
      node = node[Number(key)];
    } else {
      path = at(path, key);
      node = typeof node === 'object' && node !== null && Object.prototype.hasOwnProperty.call(node, key) ? (node as Record<string, unknown>)[key] : undefined;
    }
  }
  return path;
}
