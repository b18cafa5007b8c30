/**
 * `{{fieldName}}` templates in an exchange request. The syntax is the gate's `present` syntax:
 * double braces around a name of letters, digits, `_`, `.` or `-`, spaces inside the braces
 * allowed; there is no escape and no expression. A name is looked up in the host's stored field
 * values; a name that is not there refuses the request (`invalid_config`, naming the field).
 *
 * Where the value lands decides how it is encoded: in the URL it is percent-encoded
 * (`encodeURIComponent`), so a value can never change the URL's structure; in a header it must
 * not contain CR, LF or NUL; in JSON it replaces the placeholder inside the string it appears in
 * (keys are not templated); in a form it is a raw value that form encoding escapes.
 */
import { InvalidConfigError } from '@neuralis/package-system/contracts';
import type { JsonValue } from './store.js';

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

export function renderTemplate(template: string, values: Readonly<Record<string, string>>, encode: (value: string) => string = (value) => value): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    if (!Object.hasOwn(values, name)) {
      throw new InvalidConfigError(`The exchange request uses {{${name}}}, but no value is stored for field "${name}"; store it and retry.`, { details: { field: name } });
    }
    return encode(values[name] as string);
  });
}

export function renderUrl(template: string, values: Readonly<Record<string, string>>): string {
  return renderTemplate(template, values, encodeURIComponent);
}

export function renderHeader(name: string, template: string, values: Readonly<Record<string, string>>): string {
  const rendered = renderTemplate(template, values);
  if (/[\r\n\0]/.test(rendered)) throw new InvalidConfigError(`The exchange request header "${name}" would contain a line break or NUL; check the stored fields.`, { details: { header: name } });
  return rendered;
}

export function renderJson(template: unknown, values: Readonly<Record<string, string>>): JsonValue {
  if (typeof template === 'string') return renderTemplate(template, values);
  if (Array.isArray(template)) return template.map((item) => renderJson(item, values));
  if (typeof template === 'object' && template !== null) {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(template)) out[key] = renderJson(item, values);
    return out;
  }
  if (typeof template === 'number' || typeof template === 'boolean' || template === null) return template;
  throw new InvalidConfigError('The exchange request json is not plain JSON.', { details: { reason: 'exchange_json' } });
}
