// How a host keeps in sync, as a form shows it: automatically (a first crawl, then every interval,
// watching where the kind can) or only when someone asks. Shared by the add and edit forms; the
// value is the host's `sync` settings, `{ trigger, interval? }`, keeping any other setting
// (`exclude`, `alwaysActive`) the host had.

import { h, uid } from './dom.js';

/** The intervals offered; '' is the server's default (every 15 minutes). */
export const INTERVALS = [
  ['', 'Every 15 minutes (default)'],
  ['PT5M', 'Every 5 minutes'],
  ['PT1H', 'Every hour'],
  ['PT6H', 'Every 6 hours'],
  ['P1D', 'Every day'],
];

/** A sentence for sync settings: "Automatically, every hour", "Only when asked". */
export function syncText(sync) {
  if (!sync || sync.trigger !== 'auto') return 'Only when asked';
  const known = INTERVALS.find(([value]) => value === (sync.interval ?? ''));
  return `Automatically, ${known ? known[1].replace(/^Every/, 'every').replace(' (default)', '') : `every ${sync.interval}`}`;
}

/**
 * The sync fieldset. `value`: the host's settings (null: not known yet — the kind's default is
 * applied with `setDefault` until the person chooses). `read()` answers the settings to send.
 */
export function syncField({ value = null } = {}) {
  const name = uid('sync');
  const autoId = uid('sync-auto');
  const manualId = uid('sync-manual');
  const intervalId = uid('sync-interval');
  const auto = h('input', { type: 'radio', name, id: autoId, value: 'auto', 'aria-describedby': `${autoId}-help` });
  const manual = h('input', { type: 'radio', name, id: manualId, value: 'manual', 'aria-describedby': `${manualId}-help` });
  const interval = h('select', { id: intervalId, name: 'sync-interval' }, INTERVALS.map(([option, text]) => h('option', { value: option, text })));
  const note = h('p', { class: 'help', 'data-sync-default': '' });
  let chosen = value !== null;
  const kept = value ?? {};

  function set(sync) {
    auto.checked = sync.trigger === 'auto';
    manual.checked = !auto.checked;
    const known = INTERVALS.some(([option]) => option === (sync?.interval ?? ''));
    if (!known) interval.append(h('option', { value: sync.interval, text: `Every ${sync.interval}` }));
    interval.value = sync.interval ?? '';
    interval.disabled = !auto.checked;
  }

  for (const control of [auto, manual]) {
    control.addEventListener('change', () => {
      chosen = true;
      interval.disabled = !auto.checked;
    });
  }
  interval.addEventListener('change', () => {
    chosen = true;
  });
  // Not known yet (a new host before its settings are checked): nothing is chosen, and the server's default applies.
  if (value !== null) set(value);
  else {
    interval.disabled = true;
    note.textContent = 'The default follows from the connection settings.';
  }

  const element = h(
    'div',
    { class: 'sync-field' },
    h(
      'div',
      { class: 'field field-check', role: 'radiogroup', 'aria-label': 'Sync' },
      h('div', { class: 'check-row' }, auto, h('label', { for: autoId, text: 'Automatically' })),
      h('p', { class: 'help', id: `${autoId}-help`, text: 'It syncs by itself: at once, then on the interval below; a folder is also watched, so changes show as they happen.' }),
      h('div', { class: 'check-row' }, manual, h('label', { for: manualId, text: 'Only when asked' })),
      h('p', { class: 'help', id: `${manualId}-help`, text: 'Nothing syncs until someone presses Sync (or runs inseam crawl).' }),
    ),
    h('div', { class: 'field' }, h('label', { for: intervalId, class: 'label', text: 'Sync interval' }), interval),
    note,
  );

  return {
    element,
    /** The kind's default for this config, applied while the person has not chosen. */
    setDefault(sync) {
      note.textContent = `This kind's default: ${syncText(sync).toLowerCase()}${sync.trigger === 'auto' ? ' (it can be watched or listed for free)' : ' (its listings are metered)'}.`;
      if (!chosen) set(sync);
    },
    /** The settings to send; undefined while nothing is chosen or known (the server then applies the kind's default). */
    read() {
      if (!auto.checked && !manual.checked) return undefined;
      const { trigger: _trigger, interval: _interval, ...rest } = kept;
      if (!auto.checked) return { ...rest, trigger: 'manual' };
      return { ...rest, trigger: 'auto', ...(interval.value === '' ? {} : { interval: interval.value }) };
    },
  };
}
