// The catalog over a host's syncs: its entries and bytes when each sync stopped, as two small
// line charts drawn as inline SVG (no chart library: the page loads nothing it does not serve),
// with a sentence and a table of the same numbers, for screen readers and for anyone who wants
// the figures rather than the shape.

import { h } from './dom.js';
import { bytes, count, plural, when } from './format.js';

const SVG = 'http://www.w3.org/2000/svg';
// The drawing's own units; the SVG scales to its box's width, keeping this shape.
const WIDTH = 400;
const HEIGHT = 150;
const PAD = { left: 52, right: 14, top: 12, bottom: 28 };

function s(tag, attributes = {}, ...children) {
  const element = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) if (value !== undefined && value !== null) element.setAttribute(key, String(value));
  for (const child of children.flat()) if (child !== null && child !== undefined) element.append(child instanceof Node ? child : document.createTextNode(String(child)));
  return element;
}

/** The syncs that recorded the catalog's size, oldest first: one point each. */
export function chartPoints(syncs) {
  return syncs
    .filter((sync) => sync.catalog !== null && sync.catalog !== undefined)
    .map((sync) => ({ runId: sync.runId, at: sync.endedAt, entries: sync.catalog.entries, bytes: sync.catalog.bytes }))
    .sort((a, b) => a.at - b.at || a.runId - b.runId);
}

/** A round top for the axis, at least the largest value (1 for an empty catalog). */
function niceMax(value) {
  if (value <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  for (const factor of [1, 2, 2.5, 5, 10]) if (factor * step >= value) return factor * step;
  return 10 * step;
}

const HOUR_MS = 3_600_000;
const byDay = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric' });
const byMinute = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' });
const bySecond = new Intl.DateTimeFormat('en', { hour: 'numeric', minute: '2-digit', second: '2-digit' });

/** The time axis's labels as fine as the syncs' span needs: days apart, the day; minutes apart, the second. */
function axisTime(span) {
  if (span >= 7 * 24 * HOUR_MS) return byDay;
  return span >= HOUR_MS ? byMinute : bySecond;
}

function lineChart({ points, key, title, format, series }) {
  const max = niceMax(Math.max(...points.map((point) => point[key])));
  const first = points[0].at;
  const span = points.at(-1).at - first;
  const plotWidth = WIDTH - PAD.left - PAD.right;
  const plotHeight = HEIGHT - PAD.top - PAD.bottom;
  // By time when the syncs are apart; a single sync (or several at once) sits in the middle.
  const x = (point, index) => PAD.left + (span > 0 ? ((point.at - first) / span) * plotWidth : points.length === 1 ? plotWidth / 2 : (index / (points.length - 1)) * plotWidth);
  const y = (value) => PAD.top + plotHeight - (value / max) * plotHeight;
  const coords = points.map((point, index) => [x(point, index), y(point[key])]);
  const id = `chart-${series}-title`;
  const time = axisTime(span);
  return s(
    'svg',
    { class: `sync-chart-svg series-${series}`, viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-labelledby': id, 'data-chart': series },
    s('title', { id }, title),
    s('line', { class: 'chart-axis', x1: PAD.left, x2: WIDTH - PAD.right, y1: y(0), y2: y(0) }),
    s('line', { class: 'chart-grid', x1: PAD.left, x2: WIDTH - PAD.right, y1: y(max), y2: y(max) }),
    s('text', { class: 'chart-label', x: PAD.left - 6, y: y(max) + 4, 'text-anchor': 'end' }, format(max)),
    s('text', { class: 'chart-label', x: PAD.left - 6, y: y(0) + 4, 'text-anchor': 'end' }, '0'),
    s('text', { class: 'chart-label', x: PAD.left, y: HEIGHT - 6, 'text-anchor': 'start' }, time.format(first)),
    span > 0 ? s('text', { class: 'chart-label', x: WIDTH - PAD.right, y: HEIGHT - 6, 'text-anchor': 'end' }, time.format(points.at(-1).at)) : null,
    points.length > 1 ? s('polyline', { class: 'chart-line', points: coords.map(([cx, cy]) => `${cx.toFixed(1)},${cy.toFixed(1)}`).join(' ') }) : null,
    points.map((point, index) =>
      s('circle', { class: 'chart-point', cx: coords[index][0].toFixed(1), cy: coords[index][1].toFixed(1), r: 4, 'data-run': point.runId, 'data-value': point[key] }, s('title', {}, `${when(point.at)}: ${format(point[key])}`)),
    ),
  );
}

/** What the charts show, in a sentence. */
export function chartSummary(points) {
  const last = points.at(-1);
  const now = `${plural(last.entries, 'entry', 'entries')} (${bytes(last.bytes)})`;
  if (points.length === 1) return `After its one recorded sync (${when(last.at)}) the catalog held ${now}.`;
  const first = points[0];
  return `Over ${points.length} syncs, from ${when(first.at)} to ${when(last.at)}, the catalog went from ${plural(first.entries, 'entry', 'entries')} (${bytes(first.bytes)}) to ${now}.`;
}

/** The chart card's body: the two charts, the sentence, and the numbers as a table. */
export function syncChart(syncs) {
  const points = chartPoints(syncs);
  if (points.length === 0) return h('p', { class: 'muted', 'data-chart': 'none', text: 'No sync has recorded the catalog\'s size yet.' });
  const summaryId = 'sync-chart-summary';
  return h(
    'div',
    { class: 'sync-chart', 'data-points': String(points.length) },
    h(
      'div',
      { class: 'sync-chart-grid', 'aria-describedby': summaryId },
      h('figure', { class: 'sync-chart-figure' }, h('figcaption', { class: 'small muted', text: 'Entries' }), lineChart({ points, key: 'entries', title: 'Entries in the catalog after each sync', format: count, series: 'entries' })),
      h('figure', { class: 'sync-chart-figure' }, h('figcaption', { class: 'small muted', text: 'Bytes' }), lineChart({ points, key: 'bytes', title: 'Bytes in the catalog after each sync', format: bytes, series: 'bytes' })),
    ),
    h('p', { id: summaryId, class: 'small', 'data-chart-summary': '', text: chartSummary(points) }),
    h(
      'details',
      { class: 'sync-chart-numbers' },
      h('summary', { class: 'small', text: 'The numbers' }),
      h(
        'table',
        { class: 'table sync-chart-table' },
        h('caption', { class: 'sr-only', text: 'The catalog after each sync, oldest first' }),
        h('thead', {}, h('tr', {}, ['Sync ended', 'Entries', 'Bytes'].map((title) => h('th', { scope: 'col', text: title })))),
        h(
          'tbody',
          {},
          points.map((point) =>
            h(
              'tr',
              { 'data-run': String(point.runId) },
              h('td', { class: 'nowrap' }, h('time', { datetime: new Date(point.at).toISOString(), text: when(point.at) })),
              h('td', { class: 'num', 'data-count': 'entries', text: count(point.entries) }),
              h('td', { class: 'num', 'data-count': 'bytes', 'data-bytes': String(point.bytes), title: `${count(point.bytes)} bytes`, text: bytes(point.bytes) }),
            ),
          ),
        ),
      ),
    ),
  );
}
