/**
 * The config schema a sandboxed kind is registered with. The skill's `Connector` interface has no
 * schema, so the submitter gives one (closed, draft-07, as every kind's configSchema must be), or
 * install infers one from the config the first host is installed with.
 */
import { InvalidConfigError, type ConfigSchema } from '@neuralis/package-system/contracts';

/** Checks that a schema is a closed object schema. Throws `invalid_config` naming what is wrong. */
export function checkClosedSchema(value: unknown, field = 'configSchema'): ConfigSchema {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InvalidConfigError(`${field} must be a JSON Schema object (draft-07).`, { details: { fields: [field] } });
  }
  const schema = value as Record<string, unknown>;
  if (schema['type'] !== 'object' || schema['additionalProperties'] !== false) {
    throw new InvalidConfigError(`${field} must be closed: { "type": "object", "additionalProperties": false, "properties": { … } }, so a mistyped config key is refused instead of ignored.`, {
      details: { fields: [field] },
    });
  }
  const properties = schema['properties'];
  if (properties !== undefined && (typeof properties !== 'object' || properties === null || Array.isArray(properties))) {
    throw new InvalidConfigError(`${field}.properties must be an object of property schemas.`, { details: { fields: [`${field}.properties`] } });
  }
  return schema;
}

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/**
 * A closed schema from one config: every key it has, each required and typed as its value is
 * (whole numbers as `integer`). Later hosts of the kind must have the same keys.
 */
export function inferConfigSchema(config: Readonly<Record<string, unknown>>): ConfigSchema {
  const keys = Object.keys(config).sort();
  return {
    type: 'object',
    additionalProperties: false,
    properties: Object.fromEntries(keys.map((key) => [key, { type: typeOf(config[key]) }])),
    required: keys,
  };
}
