/**
 * Route validators compiled when a route is first called, not when the server starts: Fastify
 * asks for every route's validators at `ready`, and compiling all of them (about 90 schemas)
 * was a third of `inseam up`'s start. The schemas are fixed and every route's tests compile
 * them, so nothing is found later than before except by a route no test calls.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

/** A validator as Fastify calls it: the result, and the last call's `errors` on the function. */
export interface LazyValidator {
  (data: unknown): boolean;
  errors: ErrorObject[] | null | undefined;
}

/** `ajv.compile(schema)` on the first call; the same answers and `errors` as the compiled function. */
export function compiledOnFirstUse(ajv: Ajv, schema: unknown): LazyValidator {
  let compiled: ValidateFunction | undefined;
  const validate = ((data: unknown): boolean => {
    compiled ??= ajv.compile(schema as object);
    const valid = compiled(data);
    validate.errors = compiled.errors;
    return valid;
  }) as LazyValidator;
  validate.errors = null;
  return validate;
}
