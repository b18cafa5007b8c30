// Form fields rendered from a JSON Schema (the draft-07 subset configSchemas use): strings,
// numbers, integers, booleans, enums, arrays of simple values and nested objects, with their
// constraints checked as the person types and explained inline. Anything else is a JSON field.

import { h, uid } from './dom.js';

const ACRONYMS = new Set(['api', 'id', 'url', 'uri', 'http', 'https', 'json', 'mime', 'pdf', 'ssl', 'tls', 'dns', 'ip', 's3', 'r2', 'sql', 'csv', 'ca', 'imap', 'ssh']);
const SPELLINGS = new Map([['oauth', 'OAuth']]);
/** A string allowed to be this long is text of several lines (a PEM certificate, a key), not a one-line value. */
const MULTILINE_MIN_LENGTH = 1024;

/** "textCapBytes" → "Text cap bytes"; "baseUrl" → "Base URL". */
export function humanize(name) {
  const words = String(name)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((word) => SPELLINGS.get(word) ?? (ACRONYMS.has(word) ? word.toUpperCase() : word))
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function typeOf(schema) {
  if (!schema || typeof schema !== 'object') return 'json';
  if (Array.isArray(schema.enum) && schema.enum.every((item) => ['string', 'number', 'boolean'].includes(typeof item))) return 'enum';
  const type = Array.isArray(schema.type) ? schema.type.find((item) => item !== 'null') : schema.type;
  if (type === 'object' && schema.properties && typeof schema.properties === 'object') return 'object';
  if (type === 'array' && schema.items && ['string', 'integer', 'number'].includes(schema.items.type)) return 'list';
  if (['string', 'integer', 'number', 'boolean'].includes(type)) return type;
  return 'json';
}

function patternOf(pattern) {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return null;
  }
}

/**
 * Checks one value against a schema's constraints: an error sentence, or null.
 */
export function checkValue(schema, value) {
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return `Choose one of ${schema.enum.join(', ')}.`;
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && [...value].length < schema.minLength) return schema.minLength === 1 ? 'Must not be empty.' : `Must be at least ${schema.minLength} characters.`;
    if (schema.maxLength !== undefined && [...value].length > schema.maxLength) return `Must be at most ${schema.maxLength} characters.`;
    if (schema.pattern !== undefined) {
      const pattern = patternOf(schema.pattern);
      if (pattern !== null && !pattern.test(value)) return `Must match the pattern ${schema.pattern}.`;
    }
  }
  if (typeof value === 'number') {
    if (schema.type === 'integer' && !Number.isInteger(value)) return 'Enter a whole number.';
    if (schema.minimum !== undefined && value < schema.minimum) return `Must be at least ${schema.minimum}.`;
    if (schema.maximum !== undefined && value > schema.maximum) return `Must be at most ${schema.maximum}.`;
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) return `Must be more than ${schema.exclusiveMinimum}.`;
    if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) return `Must be less than ${schema.exclusiveMaximum}.`;
    if (schema.multipleOf !== undefined && Math.abs(value / schema.multipleOf - Math.round(value / schema.multipleOf)) > 1e-9) return `Must be a multiple of ${schema.multipleOf}.`;
  }
  return null;
}

function parseNumber(schema, text) {
  const trimmed = text.trim();
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(trimmed)) return { error: typeOf(schema) === 'integer' ? 'Enter a whole number.' : 'Enter a number.' };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { error: 'Enter a smaller number.' };
  return { value };
}

/**
 * Fields for the properties of an object schema.
 *
 *   const form = schemaFields(schema, { values, idPrefix: 'config' });
 *   form.element           the fields (required first; optional ones under a disclosure)
 *   form.read()            { value, errors: Map(path → message) }, showing the errors inline
 *   form.showErrors(map)   inline errors from the server (paths like "root" or "caps.image");
 *                          returns the paths it could not place
 *   form.clearErrors()
 *   form.focusFirstError()
 */
export function schemaFields(schema, options = {}) {
  const fields = [];
  const root = objectFields(schema ?? { type: 'object', properties: {} }, '', options.values ?? {}, fields, options, 0);
  const element = h('div', { class: 'schema-fields' }, root);

  function clearErrors() {
    for (const field of fields) field.setError(null);
  }

  return {
    element,
    read({ show = true } = {}) {
      const errors = new Map();
      const value = collect(schema, '', fields, errors);
      if (show) {
        for (const field of fields) field.setError(errors.get(field.path) ?? null);
        openDisclosures(fields, errors);
      }
      return { value: value ?? {}, errors };
    },
    showErrors(messages) {
      clearErrors();
      const unplaced = [];
      for (const [path, message] of messages) {
        const field = fields.find((item) => item.path === path) ?? fields.find((item) => path.startsWith(`${item.path}.`) || path.startsWith(`${item.path}[`));
        if (field === undefined) unplaced.push([path, message]);
        else field.setError(message);
      }
      openDisclosures(fields, new Map(fields.filter((field) => field.hasError()).map((field) => [field.path, true])));
      return unplaced;
    },
    clearErrors,
    focusFirstError() {
      const field = fields.find((item) => item.hasError());
      field?.focus();
      return field !== undefined;
    },
    get empty() {
      return fields.length === 0;
    },
  };
}

function openDisclosures(fields, errors) {
  for (const field of fields) if (errors.has(field.path)) field.element.closest('details')?.setAttribute('open', '');
}

function collect(schema, prefix, fields, errors) {
  const out = {};
  for (const [name, child] of Object.entries(schema.properties ?? {})) {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const required = (schema.required ?? []).includes(name);
    if (typeOf(child) === 'object') {
      // An optional group left wholly empty is left out, its required fields with it.
      const inside = fields.filter((item) => item.path.startsWith(`${path}.`));
      if (!required && inside.every((item) => item.isEmpty())) continue;
      out[name] = collect(child, path, fields, errors) ?? {};
      continue;
    }
    const field = fields.find((item) => item.path === path);
    if (field === undefined) continue;
    const result = field.read(required);
    if (result.error) errors.set(path, result.error);
    else if (result.present) out[name] = result.value;
  }
  return Object.keys(out).length === 0 && prefix !== '' ? undefined : out;
}

function objectFields(schema, prefix, values, fields, options, depth) {
  const entries = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const render = ([name, child]) => {
    const path = prefix === '' ? name : `${prefix}.${name}`;
    const value = values && typeof values === 'object' ? values[name] : undefined;
    if (typeOf(child) === 'object') {
      return h(
        'fieldset',
        { class: 'fieldset' },
        h('legend', { text: child.title ?? humanize(name) }),
        child.description ? h('p', { class: 'help', text: child.description }) : null,
        objectFields(child, path, value ?? {}, fields, options, depth + 1),
      );
    }
    const field = leafField(path, name, child, required.has(name), value, options);
    fields.push(field);
    return field.element;
  };
  const mandatory = entries.filter(([name]) => required.has(name)).map(render);
  const optional = entries.filter(([name]) => !required.has(name));
  if (optional.length === 0) return mandatory;
  if (depth > 0 || mandatory.length === 0) return [...mandatory, ...optional.map(render)];
  const details = h('details', { class: 'optional' }, h('summary', {}, `Optional settings`, h('span', { class: 'count', text: String(optional.length) })), h('div', { class: 'optional-body' }, optional.map(render)));
  return [...mandatory, details];
}

function leafField(path, name, schema, required, initial, options) {
  const id = uid(options.idPrefix ?? 'field');
  const helpId = `${id}-help`;
  const errorId = `${id}-error`;
  const kind = typeOf(schema);
  const describedBy = [schema.description ? helpId : null, errorId].filter(Boolean).join(' ');
  const common = { id, name: path, 'aria-describedby': describedBy, required, autocomplete: 'off', spellcheck: 'false' };
  let control;
  let read;
  if (kind === 'enum') {
    control = h(
      'select',
      common,
      required && schema.default === undefined ? h('option', { value: '', text: 'Choose…' }) : null,
      !required ? h('option', { value: '', text: schema.default === undefined ? 'Default' : `Default (${schema.default})` }) : null,
      schema.enum.map((item) => h('option', { value: JSON.stringify(item), text: String(item), selected: initial === item })),
    );
    read = (isRequired) => {
      if (control.value === '') return isRequired ? { error: 'Choose a value.' } : { present: false };
      return { present: true, value: JSON.parse(control.value) };
    };
  } else if (kind === 'boolean' && required) {
    control = h('input', { ...common, type: 'checkbox', checked: initial === true || (initial === undefined && schema.default === true) });
    read = () => ({ present: true, value: control.checked });
  } else if (kind === 'boolean') {
    control = h(
      'select',
      common,
      h('option', { value: '', text: schema.default === undefined ? 'Default' : `Default (${schema.default ? 'yes' : 'no'})` }),
      h('option', { value: 'true', text: 'Yes', selected: initial === true }),
      h('option', { value: 'false', text: 'No', selected: initial === false }),
    );
    read = () => (control.value === '' ? { present: false } : { present: true, value: control.value === 'true' });
  } else if (kind === 'integer' || kind === 'number') {
    control = h('input', { ...common, type: 'text', inputmode: kind === 'integer' ? 'numeric' : 'decimal', value: initial === undefined ? '' : String(initial), placeholder: schema.default === undefined ? null : String(schema.default) });
    read = (isRequired) => {
      if (control.value.trim() === '') return isRequired ? { error: 'Required.' } : { present: false };
      const parsed = parseNumber(schema, control.value);
      if (parsed.error) return parsed;
      const error = checkValue(schema, parsed.value);
      return error ? { error } : { present: true, value: parsed.value };
    };
  } else if (kind === 'string') {
    const value = initial === undefined ? '' : String(initial);
    control =
      schema.maxLength > MULTILINE_MIN_LENGTH
        ? h('textarea', { ...common, rows: '4', class: 'mono', value })
        : h('input', { ...common, type: 'text', value, placeholder: schema.default === undefined ? (schema.examples?.[0] ?? null) : String(schema.default) });
    read = (isRequired) => {
      if (control.value === '') return isRequired ? { error: 'Required.' } : { present: false };
      const error = checkValue(schema, control.value);
      return error ? { error } : { present: true, value: control.value };
    };
  } else if (kind === 'list') {
    control = h('textarea', { ...common, rows: '3', value: Array.isArray(initial) ? initial.join('\n') : '', placeholder: 'One per line' });
    read = (isRequired) => {
      const lines = control.value.split('\n').map((line) => line.trim()).filter((line) => line !== '');
      if (lines.length === 0) return isRequired ? { error: 'Add at least one value.' } : { present: false };
      const items = [];
      for (const [index, line] of lines.entries()) {
        let item = line;
        if (schema.items.type !== 'string') {
          const parsed = parseNumber(schema.items, line);
          if (parsed.error) return { error: `Line ${index + 1}: ${parsed.error}` };
          item = parsed.value;
        }
        const error = checkValue(schema.items, item);
        if (error) return { error: `Line ${index + 1}: ${error}` };
        items.push(item);
      }
      if (schema.minItems !== undefined && items.length < schema.minItems) return { error: `Add at least ${schema.minItems} values.` };
      if (schema.maxItems !== undefined && items.length > schema.maxItems) return { error: `Give at most ${schema.maxItems} values.` };
      return { present: true, value: items };
    };
  } else {
    control = h('textarea', { ...common, rows: '3', class: 'mono', value: initial === undefined ? '' : JSON.stringify(initial, null, 2), placeholder: 'JSON' });
    read = (isRequired) => {
      if (control.value.trim() === '') return isRequired ? { error: 'Required.' } : { present: false };
      try {
        return { present: true, value: JSON.parse(control.value) };
      } catch {
        return { error: 'Enter valid JSON.' };
      }
    };
  }
  const error = h('p', { class: 'field-error', id: errorId, hidden: true });
  const label = h('label', { for: id, class: `label${required ? ' is-required' : ''}`, text: schema.title ?? humanize(name) });
  const isCheckbox = control.type === 'checkbox';
  const element = h(
    'div',
    { class: `field${isCheckbox ? ' field-check' : ''}`, 'data-path': path },
    // The config key is shown beside the label, outside it: the field's name stays its label.
    isCheckbox ? h('div', { class: 'check-row' }, control, label) : [h('div', { class: 'label-row' }, label, h('code', { class: 'key', 'aria-hidden': 'true', text: path })), control],
    schema.description ? h('p', { class: 'help', id: helpId, text: schema.description }) : null,
    error,
  );
  let hasError = false;
  const setError = (message) => {
    hasError = Boolean(message);
    error.hidden = !hasError;
    error.textContent = message ?? '';
    element.classList.toggle('invalid', hasError);
    if (hasError) control.setAttribute('aria-invalid', 'true');
    else control.removeAttribute('aria-invalid');
  };
  // Once a field was flagged, it is checked again as the person fixes it.
  control.addEventListener('input', () => {
    if (!hasError) return;
    const result = read(required);
    setError(result.error ?? null);
  });
  control.addEventListener('change', () => options.onChange?.(path));
  const isEmpty = () => (control.type === 'checkbox' ? !control.checked : control.value.trim() === '');
  return { path, element, control, read, setError, isEmpty, hasError: () => hasError, focus: () => control.focus() };
}

/** The config fields an `invalid_config` answer names (`details.fields`), each with its `expected` text. */
export function configErrors(error) {
  const fields = Array.isArray(error?.details?.fields) ? error.details.fields : [];
  const expected = Array.isArray(error?.details?.expected) ? error.details.expected : [];
  const map = new Map();
  for (const field of fields) {
    const hint = expected.find((line) => typeof line === 'string' && line.startsWith(`${field}: `));
    // A refusal about one field in particular (a folder root that is missing, say) explains itself.
    const own = fields.length === 1 && typeof error?.details?.reason === 'string' && typeof error.message === 'string' ? error.message.replace(/^Invalid source config: /, '') : null;
    map.set(String(field), hint ? `Expected ${hint.slice(field.length + 2)}.` : (own ?? 'Not accepted by the server.'));
  }
  return map;
}
