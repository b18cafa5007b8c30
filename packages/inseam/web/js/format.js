// Numbers, sizes and times as people read them.

const numberFormat = new Intl.NumberFormat('en');

export function count(value) {
  return numberFormat.format(value);
}

export function plural(n, one, many = `${one}s`) {
  return `${count(n)} ${n === 1 ? one : many}`;
}

const UNITS = ['B', 'KB', 'MB', 'GB', 'TB'];

export function bytes(value) {
  if (value === undefined || value === null) return '—';
  let size = value;
  let unit = 0;
  while (size >= 1000 && unit < UNITS.length - 1) {
    size /= 1000;
    unit += 1;
  }
  return unit === 0 ? `${size} B` : `${size < 10 ? size.toFixed(1) : Math.round(size)} ${UNITS[unit]}`;
}

const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const STEPS = [
  [60, 'second'],
  [60, 'minute'],
  [24, 'hour'],
  [7, 'day'],
  [4.35, 'week'],
  [12, 'month'],
  [Infinity, 'year'],
];

/** "3 minutes ago" for an epoch-ms time or an ISO string. */
export function ago(time) {
  if (time === undefined || time === null) return '—';
  const ms = typeof time === 'number' ? time : Date.parse(time);
  if (Number.isNaN(ms)) return '—';
  let delta = (ms - Date.now()) / 1000;
  if (Math.abs(delta) < 5) return 'just now';
  for (const [size, unit] of STEPS) {
    if (Math.abs(delta) < size) return relative.format(Math.round(delta), unit);
    delta /= size;
  }
  return relative.format(Math.round(delta), 'year');
}

const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });

export function when(time) {
  if (time === undefined || time === null) return '—';
  const ms = typeof time === 'number' ? time : Date.parse(time);
  return Number.isNaN(ms) ? '—' : dateFormat.format(new Date(ms));
}

export function duration(ms) {
  if (ms === undefined || ms === null) return '—';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`;
}

export function shortSha(sha) {
  return String(sha ?? '').slice(0, 12);
}
