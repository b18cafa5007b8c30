// Building the page's elements. Text always goes in as text nodes (textContent), never as HTML:
// nothing a host, a connector or a person typed can become markup or script.

const PROPERTIES = new Set(['value', 'checked', 'disabled', 'hidden', 'selected', 'indeterminate', 'open', 'multiple', 'readOnly', 'required']);

/**
 * h('button', { class: 'btn', type: 'button', onClick: fn, 'aria-label': 'Close' }, 'text', child)
 * Props: `class`, `text`, `onX` listeners, the DOM properties above, anything else an attribute
 * (null, undefined and false leave it out). Children: nodes, strings, arrays, null.
 */
export function h(tag, props = {}, ...children) {
  const element = document.createElement(tag);
  setProps(element, props);
  append(element, children);
  return element;
}

function setProps(element, props) {
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') element.setAttribute('class', value);
    else if (key === 'text') element.textContent = String(value);
    else if (key.startsWith('on') && typeof value === 'function') element.addEventListener(key.slice(2).toLowerCase(), value);
    else if (PROPERTIES.has(key)) element[key] = value;
    else element.setAttribute(key, value === true ? '' : String(value));
  }
}

function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return parent;
}

/** Replaces the children of `parent`. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  return append(parent, children);
}

/** An http(s) URL as given, else null: links from hosts and servers never become javascript: or data: links. */
export function safeHref(url) {
  try {
    const parsed = new URL(url, location.href);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : null;
  } catch {
    return null;
  }
}

let counter = 0;
/** A unique id for label/aria wiring. */
export function uid(prefix = 'id') {
  counter += 1;
  return `${prefix}-${counter}`;
}

/** A visually hidden text for screen readers. */
function srOnly(text) {
  return h('span', { class: 'sr-only', text });
}

// Icons: 24×24 stroke paths, drawn for this page.
const ICONS = {
  disk: ['M3 13h18', 'M5 13l2-7h10l2 7', 'M3 13v5a1 1 0 0 0 1 1h16a1 1 0 0 0 1-1v-5', 'M7 16h.01', 'M11 16h.01'],
  vector: ['M12 3l1.8 4.7L18.5 9.5 13.8 11.3 12 16l-1.8-4.7L5.5 9.5l4.7-1.8z', 'M19 15l.8 2.2L22 18l-2.2.8L19 21l-.8-2.2L16 18l2.2-.8z'],
  machine: ['M6 5h12a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H6a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M9 9h6v6H9z', 'M9 2v3', 'M15 2v3', 'M9 19v3', 'M15 19v3', 'M2 9h3', 'M2 15h3', 'M19 9h3', 'M19 15h3'],
  api: ['M9 2v5', 'M15 2v5', 'M6 7h12v4a6 6 0 0 1-12 0z', 'M12 17v5'],
  db: ['M4 6c0-1.7 3.6-3 8-3s8 1.3 8 3-3.6 3-8 3-8-1.3-8-3z', 'M4 6v12c0 1.7 3.6 3 8 3s8-1.3 8-3V6', 'M4 12c0 1.7 3.6 3 8 3s8-1.3 8-3'],
  generic: ['M21 8l-9-5-9 5 9 5z', 'M3 8v8l9 5 9-5V8', 'M12 13v8'],
  folder: ['M3 7a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z'],
  file: ['M14 3H7a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h10a1 1 0 0 0 1-1V7z', 'M14 3v4h4'],
  text: ['M14 3H7a1 1 0 0 0-1 1v16a1 1 0 0 0 1 1h10a1 1 0 0 0 1-1V7z', 'M14 3v4h4', 'M9 12h6', 'M9 16h6'],
  image: ['M4 5h16a1 1 0 0 1 1 1v12a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1z', 'M7 10a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0', 'M21 15l-5-5-9 9'],
  search: ['M11 4a7 7 0 1 0 0 14 7 7 0 0 0 0-14z', 'M20 20l-4-4'],
  plus: ['M12 5v14', 'M5 12h14'],
  refresh: ['M20 11a8 8 0 0 0-14.5-4.5L4 8', 'M4 4v4h4', 'M4 13a8 8 0 0 0 14.5 4.5L20 16', 'M20 20v-4h-4'],
  download: ['M12 4v11', 'M7 10l5 5 5-5', 'M5 20h14'],
  upload: ['M12 15V4', 'M7 9l5-5 5 5', 'M5 20h14'],
  trash: ['M4 7h16', 'M10 11v6', 'M14 11v6', 'M6 7l1 13h10l1-13', 'M9 7V4h6v3'],
  pencil: ['M4 20l4-1 11-11-3-3L5 16z', 'M14 6l3 3'],
  chevron: ['M9 6l6 6-6 6'],
  check: ['M5 12.5l4.5 4.5L19 7'],
  cross: ['M6 6l12 12', 'M18 6L6 18'],
  alert: ['M12 3l9.5 17H2.5z', 'M12 10v4', 'M12 17h.01'],
  skip: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M8 12h8'],
  logout: ['M15 4h4a1 1 0 0 1 1 1v14a1 1 0 0 1-1 1h-4', 'M10 8l-4 4 4 4', 'M6 12h10'],
  external: ['M14 4h6v6', 'M20 4l-9 9', 'M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5'],
  key: ['M3.5 15.5a4 4 0 1 0 8 0a4 4 0 1 0-8 0', 'M10.3 12.7L20 3', 'M16.5 6.5l2.5 2.5', 'M14 9l2 2'],
  shield: ['M12 3l8 3v6c0 4.5-3.4 8.3-8 9-4.6-.7-8-4.5-8-9V6z', 'M9 12l2 2 4-4'],
  copy: ['M9 9h10a1 1 0 0 1 1 1v10a1 1 0 0 1-1 1H9a1 1 0 0 1-1-1V10a1 1 0 0 1 1-1z', 'M5 15H4a1 1 0 0 1-1-1V4a1 1 0 0 1 1-1h10a1 1 0 0 1 1 1v1'],
  hosts: ['M4 4h16v6H4z', 'M4 14h16v6H4z', 'M7 7h.01', 'M7 17h.01'],
  browse: ['M3 7a1 1 0 0 1 1-1h5l2 2h9a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1H4a1 1 0 0 1-1-1z', 'M3 11h18'],
  connectors: ['M8 3v4', 'M16 3v4', 'M5 7h14v3a7 7 0 0 1-14 0z', 'M12 17v4'],
  clock: ['M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18z', 'M12 7v5l3 2'],
  link: ['M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1', 'M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1'],
};

const SVG = 'http://www.w3.org/2000/svg';

/** An inline icon; decorative (aria-hidden) unless `label` is given. */
export function icon(name, { label, className } = {}) {
  const svg = document.createElementNS(SVG, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('class', `icon${className ? ` ${className}` : ''}`);
  svg.setAttribute('fill', 'none');
  svg.setAttribute('stroke', 'currentColor');
  svg.setAttribute('stroke-width', '1.8');
  svg.setAttribute('stroke-linecap', 'round');
  svg.setAttribute('stroke-linejoin', 'round');
  if (label === undefined) svg.setAttribute('aria-hidden', 'true');
  else {
    svg.setAttribute('role', 'img');
    svg.setAttribute('aria-label', label);
  }
  for (const d of ICONS[name] ?? ICONS.generic) {
    const path = document.createElementNS(SVG, 'path');
    path.setAttribute('d', d);
    svg.append(path);
  }
  return svg;
}

/** The categories the page knows; any other is shown with the generic chip. */
const CATEGORIES = {
  disk: 'Disk',
  vector: 'Vector',
  machine: 'Machine',
  api: 'API',
  db: 'Database',
};

function categoryKey(category) {
  return Object.hasOwn(CATEGORIES, category ?? '') ? category : 'generic';
}

/** The chip naming a kind's category. */
export function categoryChip(category) {
  const key = categoryKey(category);
  const text = key === 'generic' ? (category ? String(category) : 'Other') : CATEGORIES[key];
  return h('span', { class: `chip cat-${key}`, 'data-category': key }, text);
}

/** A small rounded square with the category's icon. */
export function categoryIcon(category) {
  const key = categoryKey(category);
  return h('span', { class: `cat-icon cat-${key}` }, icon(key));
}

export function chip(text, tone = 'neutral', props = {}) {
  return h('span', { ...props, class: `chip tone-${tone}${props.class ? ` ${props.class}` : ''}` }, text);
}

export function button(label, { kind = 'secondary', iconName, onClick, type = 'button', ...rest } = {}) {
  return h('button', { ...rest, type, class: `btn btn-${kind}${rest.class ? ` ${rest.class}` : ''}`, onClick }, iconName ? icon(iconName) : null, h('span', { text: label }));
}

export function spinner(label = 'Loading') {
  return h('span', { class: 'spinner', role: 'status' }, srOnly(label));
}

/** A progress bar; `fraction` null is indeterminate. */
export function progressBar(fraction, label) {
  const bar = h('div', {
    class: `progress${fraction === null ? ' indeterminate' : ''}`,
    role: 'progressbar',
    'aria-label': label,
    'aria-valuemin': '0',
    'aria-valuemax': '100',
    ...(fraction === null ? {} : { 'aria-valuenow': String(Math.round(fraction * 100)) }),
  });
  const fill = h('div', { class: 'progress-fill' });
  if (fraction !== null) fill.style.width = `${Math.max(0, Math.min(1, fraction)) * 100}%`;
  bar.append(fill);
  return bar;
}

export function emptyState(title, text, ...actions) {
  return h('div', { class: 'empty' }, h('p', { class: 'empty-title', text: title }), text ? h('p', { class: 'muted', text }) : null, actions.length > 0 ? h('div', { class: 'row gap' }, actions) : null);
}

/** An error block with the API's message and code. */
export function errorBlock(error, title = 'Something went wrong') {
  return h(
    'div',
    { class: 'alert alert-error', role: 'alert' },
    icon('alert'),
    h('div', {}, h('p', { class: 'alert-title', text: title }), h('p', { text: error?.message ?? String(error) }), error?.code ? h('p', { class: 'muted mono small', text: error.code }) : null),
  );
}
