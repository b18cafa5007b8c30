// Search filters: which host, which type (a MIME family), when modified and where (a path
// prefix), sent as the search API's `host` and `where` filters (docs/search.md) and kept in the
// route's query, so a reload or a shared link searches the same.

import { button, h, uid } from './dom.js';

/** The types the Type filter offers, each a MIME family: `[key in the route, label, mime prefix]`. */
export const TYPE_FAMILIES = [
  ['text', 'Text', 'text/'],
  ['image', 'Images', 'image/'],
  ['audio', 'Audio', 'audio/'],
  ['video', 'Video', 'video/'],
  ['application', 'Documents and data', 'application/'],
  ['message', 'Mail', 'message/'],
];

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const NONE = Object.freeze({ host: '', type: '', after: '', before: '', path: '' });

/** The filters a route's query names; a value that is not one the form could give is left out. */
export function readFilters(search) {
  const type = search.get('type') ?? '';
  const date = (key) => (DATE.test(search.get(key) ?? '') ? search.get(key) : '');
  return {
    host: search.get('host') ?? '',
    type: TYPE_FAMILIES.some(([key]) => key === type) ? type : '',
    after: date('after'),
    before: date('before'),
    path: (search.get('path') ?? '').trim(),
  };
}

export function activeFilters(filters) {
  return Object.values(filters).filter((value) => value !== '').length;
}

/** A path prefix as the catalog spells paths: no leading slash, each segment percent-encoded. */
function encodedPrefix(text) {
  return text
    .replace(/^\/+/, '')
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/');
}

/**
 * The search API's parameters for `filters`: `host`, and `where` conditions that must all hold.
 * Dates are whole days in UTC (a date alone is its midnight UTC to the server): "after" keeps
 * that day, "before" stops at its start.
 */
export function apiFilters(filters) {
  const where = [];
  const family = TYPE_FAMILIES.find(([key]) => key === filters.type);
  if (family) where.push(`mime^=${family[2]}`);
  if (filters.after) where.push(`mtime>=${filters.after}`);
  if (filters.before) where.push(`mtime<${filters.before}`);
  if (filters.path) where.push(`path^=${encodedPrefix(filters.path)}`);
  return { host: filters.host === '' ? undefined : filters.host, where };
}

/**
 * The filter form of the search results: `hosts` are the network's (GET /v1/hosts),
 * `onApply(filters)` gets the filters as the person set them (all empty when cleared).
 */
export function filterForm({ hosts, filters, onApply }) {
  const field = (label, control) => h('div', { class: 'field' }, h('label', { for: control.id, class: 'label', text: label }), control);
  const host = h(
    'select',
    { id: uid('filter-host'), name: 'host' },
    h('option', { value: '', text: 'Every host' }),
    hosts.map((item) => h('option', { value: item.slug, text: item.label && item.label !== item.slug ? `${item.label} (${item.slug})` : item.slug })),
  );
  const type = h('select', { id: uid('filter-type'), name: 'type' }, h('option', { value: '', text: 'Any type' }), TYPE_FAMILIES.map(([key, label]) => h('option', { value: key, text: label })));
  const after = h('input', { id: uid('filter-after'), type: 'date', name: 'after' });
  const before = h('input', { id: uid('filter-before'), type: 'date', name: 'before' });
  const path = h('input', { id: uid('filter-path'), type: 'text', name: 'path', class: 'mono', placeholder: 'docs/2024', autocomplete: 'off', spellcheck: 'false' });
  // A link may name a host this token does not see: it stays selectable, so the filter shown is the one applied.
  if (filters.host !== '' && !hosts.some((item) => item.slug === filters.host)) host.append(h('option', { value: filters.host, text: filters.host }));
  host.value = filters.host;
  type.value = filters.type;
  after.value = filters.after;
  before.value = filters.before;
  path.value = filters.path;
  const error = h('p', { class: 'field-error', hidden: true, id: uid('filter-error') });
  for (const input of [after, before]) input.setAttribute('aria-describedby', error.id);
  const clear = button('Clear filters', { kind: 'ghost', hidden: activeFilters(filters) === 0, onClick: () => onApply({ ...NONE }) });
  const form = h(
    'form',
    { class: 'search-filters', novalidate: true, 'aria-label': 'Search filters' },
    h('div', { class: 'filter-fields' }, field('Host', host), field('Type', type), field('Modified on or after', after), field('Modified before', before), field('Path starts with', path)),
    error,
    h('div', { class: 'row gap wrap' }, button('Apply filters', { kind: 'secondary', type: 'submit' }), clear),
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const next = { host: host.value, type: type.value, after: after.value, before: before.value, path: path.value.trim() };
    const backwards = next.after !== '' && next.before !== '' && next.after >= next.before;
    error.hidden = !backwards;
    error.textContent = backwards ? 'The first day must come before the last: “Modified before” is the day after the last one to keep.' : '';
    for (const input of [after, before]) {
      if (backwards) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    }
    if (backwards) {
      after.focus();
      return;
    }
    onApply(next);
  });
  return form;
}
