// One host: what it is, how it syncs, its catalog's size (and a running crawl's rate), a chart of
// the catalog over its syncs, its last syncs (when, how long, what was added, changed and
// removed, and what went wrong), and — for a caller with hosts.manage — changing it (the edit
// view) or removing it after a confirmation. A machine host whose key no person has approved
// shows the fingerprint it presents, and — only to a caller who may pin it — an Approve button.

import { ApiError, hostPath } from './api.js';
import { errorSummary, textField, writableField } from './add-host.js';
import { confirmDialog } from './confirm-dialog.js';
import { button, categoryChip, categoryIcon, emptyState, errorBlock, h, icon, replace, spinner } from './dom.js';
import { ago, bytes, count, duration, plural, when } from './format.js';
import { crawlSummary, isDimmed, liveness } from './hosts.js';
import { configErrors, humanize, schemaFields } from './schema-form.js';
import { syncChart } from './sync-chart.js';
import { syncField, syncText } from './sync-field.js';

const BUSY_POLL_MS = 1500;
const IDLE_POLL_MS = 10_000;
/** Syncs the last-syncs table lists; the chart takes every sync the store keeps. */
const TABLE_SYNCS = 10;
const CHART_SYNCS = 50;

/** The slug of a `#/hosts/<slug>[/edit]` route, or null. */
export function hostRoute(rest) {
  const match = /^([^/]+)(\/edit)?\/?$/.exec(rest);
  return match === null ? null : { slug: decodeURIComponent(match[1]), edit: match[2] !== undefined };
}

/** The table of a host's last syncs. */
export function syncTable(syncs) {
  if (syncs.length === 0) return h('p', { class: 'muted', 'data-syncs': 'none', text: 'No syncs yet.' });
  const result = (sync) => {
    if (sync.error) return h('span', { class: 'err-text', title: sync.error.code }, icon('alert'), ` Failed: ${sync.error.message}`);
    if (sync.state === 'completed') return h('span', { class: 'ok-text', text: 'Completed' });
    return h('span', { class: 'muted', text: sync.state === 'paused' ? 'Paused (resumes next sync)' : humanize(sync.state) });
  };
  return h(
    'table',
    { class: 'table syncs-table' },
    h('caption', { class: 'sr-only', text: 'Last syncs, newest first' }),
    h('thead', {}, h('tr', {}, ['Started', 'Took', 'Kind', 'Result', 'Added', 'Changed', 'Removed', 'Errors'].map((title) => h('th', { scope: 'col', text: title })))),
    h(
      'tbody',
      {},
      syncs.map((sync) =>
        h(
          'tr',
          { 'data-run': String(sync.runId), 'data-state': sync.state },
          h('td', { class: 'nowrap' }, h('time', { datetime: new Date(sync.startedAt).toISOString(), title: when(sync.startedAt), text: ago(sync.startedAt) })),
          h('td', { class: 'nowrap', text: duration(sync.elapsedMs) }),
          h('td', { text: sync.mode === 'full' ? 'Full' : 'Changes only' }),
          h('td', {}, result(sync)),
          h('td', { class: 'num', 'data-count': 'added', text: count(sync.added) }),
          h('td', { class: 'num', 'data-count': 'changed', text: count(sync.changed) }),
          h('td', { class: 'num', 'data-count': 'removed', text: count(sync.removed) }),
          h('td', { class: 'num', 'data-count': 'errors', text: count(sync.errors) }),
        ),
      ),
    ),
  );
}

/** A running crawl's rate as the server measures it: entries stored per second of working time. */
export function rateText(rate) {
  return `${rate < 10 ? rate.toFixed(1) : count(Math.round(rate))} entries/s`;
}

function permissionText(permissions) {
  if (!permissions) return 'The kind\'s default';
  const tree = permissions.default ?? {};
  const paths = Object.keys(permissions.paths ?? {}).length;
  return `${tree.write ? 'Read and write' : 'Read only'}${tree.exec ? ', commands' : ''}${paths > 0 ? ` (${plural(paths, 'path rule')})` : ''}`;
}

export function hostView(ctx, params) {
  const route = hostRoute(params.rest);
  return route?.edit ? editView(ctx, route.slug) : detailView(ctx, route?.slug ?? '');
}

/* ---------------------------------------------------------------- the host */

function detailView(ctx, slug) {
  const { api, session, toast, navigate } = ctx;
  const title = h('h1', { tabindex: '-1', text: slug });
  const actions = h('div', { class: 'row gap' });
  const content = h('div', { class: 'panel pad' }, spinner(), ' Loading the host…');
  const element = h(
    'section',
    { class: 'view', 'data-host-view': slug },
    h('div', { class: 'view-head' }, h('div', {}, h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/hosts', text: 'Hosts' }), h('span', { 'aria-hidden': 'true', text: '/' })), title), actions),
    content,
  );
  let timer;
  let disposed = false;
  let dialog = null;
  /** The machine's presented key, asked once per view (each ask is a fresh SSH handshake). */
  let presented;

  async function load() {
    clearTimeout(timer);
    let host;
    let settings;
    let crawl;
    let syncs;
    try {
      const detail = await api.get(hostPath(session.network, slug));
      host = detail.host;
      settings = detail.settings;
      [crawl, syncs] = await Promise.all([api.get(hostPath(session.network, slug, '/crawl')), api.get(hostPath(session.network, slug, `/syncs?limit=${CHART_SYNCS}`))]);
    } catch (error) {
      if (!disposed) replace(content, errorBlock(error, 'The host could not be loaded'));
      return;
    }
    if (disposed) return;
    title.textContent = host.label || host.slug;
    content.className = 'host-detail';
    const live = liveness(host);
    element.dataset.status = live.key;
    element.classList.toggle('dim', isDimmed(host));
    const crawling = crawl.running || crawl.progress?.state === 'running';
    const sync = button('Sync now', { iconName: 'refresh', onClick: () => void startCrawl(sync) });
    replace(
      actions,
      h('a', { class: 'btn btn-ghost', href: `#/browse/${encodeURIComponent(slug)}/` }, icon('browse'), h('span', { text: 'Browse' })),
      sync,
      settings ? h('a', { class: 'btn btn-secondary', href: `#/hosts/${encodeURIComponent(slug)}/edit` }, h('span', { text: 'Edit' })) : null,
      settings && !(host.kind === 'bucket' && slug === 'pad') ? button('Remove host', { kind: 'danger', iconName: 'alert', onClick: () => confirmRemove(host) }) : null,
    );
    replace(
      content,
      h(
        'div',
        { class: 'card' },
        h('div', { class: 'form-head' }, categoryIcon(host.category), h('div', {}, h('p', { class: 'mono muted small', text: host.address }), host.description ? h('p', { text: host.description }) : null), categoryChip(host.category)),
        h(
          'dl',
          { class: 'props' },
          h('dt', { text: 'Kind' }),
          h('dd', { class: 'mono', text: host.kind }),
          h('dt', { text: 'Sync' }),
          h('dd', { 'data-field': 'sync', text: settings ? syncText(settings.sync) : '—' }),
          h('dt', { text: 'Access' }),
          h('dd', { 'data-field': 'access', text: settings ? permissionText(settings.permissions) : '—' }),
          h('dt', { text: 'Status' }),
          h('dd', { 'data-field': 'status' }, h('span', { class: `status status-${live.key}`, title: live.title }, h('span', { class: 'dot', 'aria-hidden': 'true' }), live.text), isDimmed(host) ? h('span', { class: 'muted small', text: ` · ${live.title}` }) : null),
          h('dt', { text: 'Catalog' }),
          h('dd', {}, crawlSummary(crawl)),
          h('dt', { text: 'Size' }),
          h('dd', { 'data-field': 'size', title: `${count(crawl.bytes)} bytes`, text: `${plural(crawl.entries, 'entry', 'entries')} · ${bytes(crawl.bytes)}` }),
          crawling ? h('dt', { text: 'Crawl rate' }) : null,
          crawling ? h('dd', { 'data-field': 'rate', 'data-rate': String(crawl.progress?.rate ?? 0), text: rateText(crawl.progress?.rate ?? 0) }) : null,
        ),
      ),
      host.kind === 'machine' && settings ? hostKeyCard(host, settings) : null,
      h('section', { class: 'card', 'aria-labelledby': 'chart-title', 'data-section': 'catalog-chart' }, h('h2', { id: 'chart-title', text: 'Catalog over time' }), syncChart(syncs)),
      h('section', { class: 'card', 'aria-labelledby': 'syncs-title' }, h('h2', { id: 'syncs-title', text: 'Last syncs' }), syncTable(syncs.slice(0, TABLE_SYNCS))),
    );
    const busy = crawling || crawl.state === 'queued';
    timer = setTimeout(() => void load(), busy ? BUSY_POLL_MS : IDLE_POLL_MS);
  }

  /** Pinned and accepted: the pin. Not pinned, or refused (a changed key): what the machine presents now. */
  function hostKeyCard(host, settings) {
    const pinned = typeof settings.config?.hostKey === 'string' ? settings.config.hostKey : null;
    const refused = host.status?.reason === 'fs_permission';
    const body = h('div', { 'data-host-key': pinned && !refused ? 'pinned' : 'unapproved' });
    const card = h('section', { class: 'card host-key', 'aria-labelledby': 'host-key-title' }, h('h2', { id: 'host-key-title', text: 'SSH host key' }), body);
    if (pinned && !refused) {
      replace(body, h('p', {}, 'Approved: ', h('code', { class: 'mono fingerprint', text: pinned })));
      return card;
    }
    replace(body, h('p', { class: 'muted' }, spinner(), ' Asking the machine for its key…'));
    presented ??= api.get(hostPath(session.network, slug, '/host-key'));
    presented.then(
      (shown) => {
        if (disposed) return;
        const intro = pinned
          ? `The machine refuses the approved key ${pinned}; it presents another one now. Approve it only if the machine's key was really changed.`
          : 'No key of this machine is approved yet, so inseam does not log in. Compare the fingerprint it presents with the one on the machine (ssh-keygen -l -f /etc/ssh/ssh_host_ed25519_key.pub).';
        replace(
          body,
          h('p', { text: intro }),
          h('p', {}, 'Presented: ', h('code', { class: 'mono fingerprint', 'data-fingerprint': '', text: shown.fingerprint })),
          shown.canApprove
            ? button('Approve this key', { kind: 'primary', iconName: 'check', onClick: (event) => void approve(event.currentTarget, shown.fingerprint) })
            : h('p', { class: 'muted small', 'data-approve': 'refused', text: 'Only a person signed in with hosts.manage can approve it; agents cannot.' }),
        );
      },
      (error) => {
        presented = undefined;
        if (!disposed) replace(body, h('p', { class: 'err-text', text: `The machine's key could not be read: ${error.message}` }));
      },
    );
    return card;
  }

  async function approve(control, fingerprint) {
    control.disabled = true;
    try {
      await api.post(hostPath(session.network, slug, '/host-key'), { fingerprint });
      presented = undefined;
      toast(`Host key ${fingerprint} approved; inseam now logs in to ${title.textContent}.`);
      await load();
    } catch (error) {
      presented = undefined;
      toast(error.message, 'error');
      control.disabled = false;
    }
  }

  async function startCrawl(control) {
    control.disabled = true;
    try {
      await api.post(hostPath(session.network, slug, '/crawl'), {});
      toast(`Sync of ${title.textContent} started.`);
      await load();
    } catch (error) {
      toast(error.message, 'error');
    } finally {
      control.disabled = false;
    }
  }

  function confirmRemove(host) {
    dialog?.remove();
    const opened = confirmDialog(element, {
      title: `Remove ${host.label || host.slug}?`,
      body: h('p', { text: `Everything catalogued for ${host.address} — entries, search index, sync history — and its stored credentials go with it. The files on the host itself are not touched.` }),
      confirm: 'Remove',
      kind: 'danger',
      onConfirm: async () => {
        await api.delete(hostPath(session.network, slug));
        toast(`Host ${host.label || host.slug} removed.`);
        navigate('#/hosts');
      },
    });
    dialog = opened.element;
    opened.cancel.focus();
  }

  void load();
  return {
    element,
    dispose() {
      disposed = true;
      clearTimeout(timer);
      dialog?.close();
    },
  };
}

/* ---------------------------------------------------------------- editing it */

function editView(ctx, slug) {
  const { api, session, toast, navigate } = ctx;
  const area = h('div', { class: 'form-area' }, h('div', { class: 'panel pad' }, spinner(), ' Loading the host…'));
  const element = h(
    'section',
    { class: 'view' },
    h(
      'div',
      { class: 'view-head' },
      h('div', {}, h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/hosts', text: 'Hosts' }), h('span', { 'aria-hidden': 'true', text: '/' }), h('a', { href: `#/hosts/${encodeURIComponent(slug)}`, text: slug }), h('span', { 'aria-hidden': 'true', text: '/' })), h('h1', { tabindex: '-1', text: `Edit ${slug}` })),
    ),
    area,
  );

  async function load() {
    let settings;
    let kind;
    try {
      const [detail, kinds] = await Promise.all([api.get(hostPath(session.network, slug)), api.get('/v1/source-kinds')]);
      settings = detail.settings;
      kind = kinds.find((item) => item.kind === detail.host.kind);
    } catch (error) {
      replace(area, errorBlock(error, 'The host could not be loaded'));
      return;
    }
    if (!settings) {
      replace(area, h('div', { class: 'panel pad' }, emptyState('Not yours to change', 'Changing a host needs a token with hosts.manage.')));
      return;
    }
    replace(area, form(settings, kind));
  }

  function form(settings, kind) {
    const summary = errorSummary();
    const label = textField({ label: 'Label', name: 'label', value: settings.label, required: true });
    const description = textField({ label: 'Description', name: 'description', value: settings.description, multiline: true });
    const isPad = settings.kind === 'bucket' && settings.slug === 'pad';
    const config = kind && !isPad ? schemaFields(kind.configSchema, { idPrefix: 'config', values: settings.config }) : null;
    const sync = syncField({ value: settings.sync ?? { trigger: 'manual' } });
    const wasWritable = settings.permissions?.default?.write === true;
    const writable = writableField({ checked: wasWritable });
    // A sandboxed connector that writes: writes come on only after the platform's install-phase trial of this host passes on a scratch prefix.
    const trialsWrites = kind?.sandboxed === true && (kind.capabilities ?? []).includes('write');
    const scratch = trialsWrites ? textField({ label: 'Scratch prefix', name: 'scratchPrefix', mono: true, help: 'A folder on the host where the install-phase trial may create, replace and delete objects of its own before writes are turned on. Empty: the one its last trial used.' }) : null;
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, icon('check'), h('span', { text: 'Save changes' }));
    const element = h(
      'form',
      { class: 'card form', novalidate: true, 'data-edit': slug, 'aria-label': `Edit ${settings.label}` },
      summary.element,
      h('fieldset', { class: 'section' }, h('legend', { text: 'Host' }), h('div', { class: 'grid-2' }, textField({ label: 'Slug', name: 'slug', value: settings.slug, readOnly: true, mono: true, help: 'A host keeps its slug: addresses name it.' }).element, label.element), description.element),
      config ? h('fieldset', { class: 'section' }, h('legend', { text: 'Connection' }), h('p', { class: 'help', text: 'Changing these re-connects the host and syncs it in full.' }), config.element) : null,
      h('fieldset', { class: 'section' }, h('legend', { text: 'Access' }), writable.element, scratch?.element),
      h('fieldset', { class: 'section', 'data-section': 'sync' }, h('legend', { text: 'Sync' }), sync.element),
      h('div', { class: 'form-foot' }, h('a', { class: 'btn btn-ghost', href: `#/hosts/${encodeURIComponent(slug)}`, text: 'Cancel' }), submit),
    );

    element.addEventListener('submit', async (event) => {
      event.preventDefault();
      summary.hide();
      const problems = [];
      if (label.control.value.trim() === '') {
        label.setError('Required.');
        problems.push({ text: 'Label: Required.', control: label.control });
      } else label.setError(null);
      const read = config?.read();
      for (const [path, message] of read?.errors ?? []) problems.push({ text: `${path.split('.').map(humanize).join(' › ')}: ${message}`, control: element.querySelector(`[name="${CSS.escape(path)}"]`) });
      if (problems.length > 0) {
        summary.show(`Fix ${problems.length === 1 ? 'this field' : `these ${problems.length} fields`} to save:`, problems);
        problems[0].control?.focus();
        return;
      }
      const configChanged = read !== undefined && JSON.stringify(read.value) !== JSON.stringify(settings.config);
      const body = {
        label: label.control.value.trim(),
        description: description.control.value.trim(),
        sync: sync.read(),
        ...(configChanged ? { config: read.value } : {}),
        ...(writable.control.checked !== wasWritable ? { writable: writable.control.checked } : {}),
        ...(scratch && scratch.control.value.trim() !== '' ? { scratchPrefix: scratch.control.value.trim() } : {}),
      };
      submit.disabled = true;
      try {
        const changed = await api.patch(hostPath(session.network, slug), body);
        toast(`Host ${changed.label} saved${configChanged ? '; it is syncing in full' : ''}.`);
        // Writes were asked, or the config of a writable host changed: the install-phase trial ran and says what came of it.
        if (changed.writes) toast(changed.writes.message, changed.writes.writable ? 'neutral' : 'error');
        navigate(`#/hosts/${encodeURIComponent(slug)}`);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'invalid_config' && config) {
          const unplaced = config.showErrors(configErrors(error));
          summary.show(unplaced.length > 0 ? error.message : 'The server refused these settings; nothing was changed. See the fields marked below.');
          if (!config.focusFirstError()) summary.element.focus();
        } else if (error instanceof ApiError && error.details?.argument === 'label') {
          label.setError(error.message);
          summary.show('Nothing was changed.', [{ text: error.message, control: label.control }]);
          label.control.focus();
        } else {
          summary.show(`Nothing was changed: ${error.message}`);
          summary.element.focus();
        }
      } finally {
        submit.disabled = false;
      }
    });
    return element;
  }

  void load();
  return { element };
}
