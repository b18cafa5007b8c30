// The hosts of the network: kind and category, liveness, crawl progress and last sync, each with a
// link to its own view (host-view.js: its last syncs, editing, removing). Offline
// and runtime-inactive hosts are dimmed but stay browsable (their synced copy answers).

import { hostPath } from './api.js';
import { oauthConnect } from './credentials.js';
import { button, categoryChip, categoryIcon, emptyState, errorBlock, h, icon, progressBar, replace, spinner } from './dom.js';
import { ago, count, plural, when } from './format.js';

const BUSY_POLL_MS = 1500;
const IDLE_POLL_MS = 10_000;

/** Liveness as the page names it: online, offline, inactive (a stopped runtime) or unknown. */
export function liveness(host) {
  const status = host.status ?? { state: 'unknown' };
  if (status.runtimeActive === false || status.reason === 'runtime_offline') return { key: 'inactive', text: 'Inactive', title: 'The runtime this host needs is not running; its synced copy answers.' };
  if (status.state === 'offline') return { key: 'offline', text: 'Offline', title: `Unreachable${status.reason ? ` (${status.reason.replace(/_/g, ' ')})` : ''}; its synced copy answers.` };
  if (status.state === 'online') return { key: 'online', text: 'Online', title: 'Reachable.' };
  return { key: 'unknown', text: 'Unknown', title: 'Not checked yet.' };
}

export function isDimmed(host) {
  const key = liveness(host).key;
  return key === 'offline' || key === 'inactive';
}

/** The crawl cell: a bar while crawling, else the catalog size and how the last crawl ended. */
export function crawlSummary(crawl) {
  if (!crawl) return h('span', { class: 'muted', text: '—' });
  const progress = crawl.progress;
  if (crawl.running || progress?.state === 'running') {
    const fraction = typeof progress?.fraction === 'number' ? progress.fraction : null;
    return h(
      'div',
      { class: 'crawl', 'data-crawl': 'running' },
      progressBar(fraction, `Crawl of ${crawl.host}`),
      h('span', { class: 'small' }, `Crawling · ${plural(progress?.entries ?? 0, 'entry', 'entries')}`, fraction === null ? '' : ` · ${Math.round(fraction * 100)}%`),
    );
  }
  // On a shared store a requested crawl waits for a worker first (state "queued").
  if (crawl.state === 'queued') {
    return h('div', { class: 'crawl', 'data-crawl': 'queued' }, h('span', { class: 'small' }, spinner('Queued'), ' Queued for a worker'), h('span', { class: 'muted small', text: plural(crawl.entries, 'entry', 'entries') }));
  }
  if (progress?.state === 'failed') {
    return h('div', { class: 'crawl', 'data-crawl': 'failed' }, h('span', { class: 'err-text small', title: progress.error?.message ?? '' }, icon('alert'), ` Failed: ${progress.error?.message ?? 'see the server log'}`), h('span', { class: 'muted small', text: plural(crawl.entries, 'entry', 'entries') }));
  }
  if (progress === null) return h('div', { class: 'crawl', 'data-crawl': 'none' }, h('span', { class: 'muted small', text: 'Not crawled yet' }));
  return h('div', { class: 'crawl', 'data-crawl': progress.state }, h('span', { class: 'small', text: plural(crawl.entries, 'entry', 'entries') }), progress.state === 'paused' ? h('span', { class: 'muted small', text: 'Paused' }) : null);
}

export function hostsView(ctx) {
  const { api, session, toast } = ctx;
  const body = h('tbody');
  const table = h(
    'table',
    { class: 'table hosts-table' },
    h('caption', { class: 'sr-only', text: 'Hosts of the network' }),
    h('thead', {}, h('tr', {}, ['Host', 'Kind', 'Status', 'Crawl', 'Last sync', ''].map((title, index) => h('th', { scope: 'col', class: index === 5 ? 'actions' : null }, title || h('span', { class: 'sr-only', text: 'Actions' }))))),
    body,
  );
  const content = h('div', { class: 'panel' }, h('div', { class: 'loading' }, spinner(), ' Loading hosts…'));
  const subtitle = h('p', { class: 'muted' });
  const element = h(
    'section',
    { class: 'view' },
    h(
      'div',
      { class: 'view-head' },
      h('div', {}, h('h1', { tabindex: '-1', text: 'Hosts' }), subtitle),
      h('div', { class: 'row gap' }, button('Refresh', { iconName: 'refresh', onClick: () => void load() }), h('a', { class: 'btn btn-primary', href: '#/hosts/new' }, icon('plus'), h('span', { text: 'Add host' }))),
    ),
    content,
  );
  const rows = new Map();
  const checked = new Set();
  const panels = [];
  let timer;
  let disposed = false;

  /** For a host that authorizes by OAuth 2 (visible with hosts.manage), a Connect button opening the connect panel under its row. */
  async function offerConnect(entry) {
    const { host } = entry;
    let grant;
    try {
      const detail = await api.get(hostPath(host.network, host.slug));
      if (detail.settings?.credentials?.acquire !== 'oauth2') return;
      const described = await api.post(`/v1/source-kinds/${encodeURIComponent(host.kind)}/describe`, { network: host.network, config: detail.settings.config });
      grant = described.auth.acquire.grant;
    } catch {
      return;
    }
    if (disposed || grant === undefined) return;
    let panelRow = null;
    const connect = button('Connect', { kind: 'ghost', iconName: 'link', 'aria-label': `Connect ${host.label || host.slug}`, 'aria-expanded': 'false' });
    connect.addEventListener('click', () => {
      if (panelRow !== null) {
        panelRow.hidden = !panelRow.hidden;
        connect.setAttribute('aria-expanded', String(!panelRow.hidden));
        return;
      }
      const panel = oauthConnect(api, { network: host.network, host: host.slug, grant, onConnected: () => void api.post(hostPath(host.network, host.slug, '/crawl'), {}).catch(() => undefined) });
      panels.push(panel);
      panelRow = h('tr', { class: 'detail-row', 'data-connect': host.slug }, h('td', { colspan: '6' }, h('p', { class: 'small muted', text: `Authorize inseam to reach ${host.label || host.slug} (${grant === 'device_code' ? 'device code' : 'authorization code with PKCE'}).` }), panel.element));
      entry.tr.after(panelRow);
      connect.setAttribute('aria-expanded', 'true');
    });
    entry.tr.querySelector('.actions .row').prepend(connect);
  }

  function row(host) {
    const dim = isDimmed(host);
    const live = liveness(host);
    const browse = `#/browse/${encodeURIComponent(host.slug)}/`;
    const sync = button('Sync', { kind: 'ghost', iconName: 'refresh', 'aria-label': `Sync ${host.label || host.slug}`, onClick: () => void startCrawl(host, sync) });
    const tr = h('tr', { class: `host-row${dim ? ' dim' : ''}`, 'data-host': host.slug, 'data-status': live.key });
    const cells = {
      status: h('td', {}),
      crawl: h('td', { class: 'cell-crawl' }),
      synced: h('td', { class: 'nowrap' }),
    };
    replace(
      tr,
      h(
        'td',
        { class: 'cell-host' },
        h('div', { class: 'host-name' }, h('span', { class: 'dimmable' }, categoryIcon(host.category)), h('div', {}, h('a', { class: 'host-label dimmable', href: browse, text: host.label || host.slug }), h('div', { class: 'mono muted small', text: host.address }))),
      ),
      h('td', {}, h('div', { class: 'kind-cell' }, h('span', { class: 'mono small', text: host.kind }), categoryChip(host.category))),
      cells.status,
      cells.crawl,
      cells.synced,
      h(
        'td',
        { class: 'actions' },
        h(
          'div',
          { class: 'row gap-sm end' },
          h('a', { class: 'btn btn-ghost', href: browse, 'aria-label': `Browse ${host.label || host.slug}` }, icon('browse'), h('span', { text: 'Browse' })),
          h('a', { class: 'btn btn-ghost', href: `#/hosts/${encodeURIComponent(host.slug)}`, 'aria-label': `Details of ${host.label || host.slug}` }, h('span', { text: 'Details' })),
          sync,
        ),
      ),
    );
    return { tr, cells, host };
  }

  function fill(entry, host, crawl) {
    const live = liveness(host);
    entry.tr.className = `host-row${isDimmed(host) ? ' dim' : ''}`;
    entry.tr.dataset.status = live.key;
    replace(entry.cells.status, h('span', { class: `status status-${live.key}`, title: live.title }, h('span', { class: 'dot', 'aria-hidden': 'true' }), live.text));
    replace(entry.cells.crawl, crawlSummary(crawl));
    replace(entry.cells.synced, crawl?.lastSync ? h('time', { datetime: new Date(crawl.lastSync).toISOString(), title: when(crawl.lastSync), text: ago(crawl.lastSync) }) : h('span', { class: 'muted', text: 'Never' }));
  }

  async function startCrawl(host, control) {
    control.disabled = true;
    try {
      await api.post(hostPath(host.network, host.slug, '/crawl'), {});
      toast(`Crawl of ${host.label || host.slug} started.`);
      await load();
    } catch (error) {
      toast(error.message, 'error');
    } finally {
      control.disabled = false;
    }
  }

  async function load() {
    clearTimeout(timer);
    let hosts;
    let crawls;
    try {
      hosts = await api.get('/v1/hosts');
      crawls = await Promise.all(hosts.map((host) => api.get(hostPath(host.network, host.slug, '/crawl')).catch(() => null)));
    } catch (error) {
      if (!disposed) replace(content, errorBlock(error, 'The hosts could not be loaded'));
      timer = setTimeout(() => void load(), IDLE_POLL_MS);
      return;
    }
    if (disposed) return;
    subtitle.textContent = `${plural(hosts.length, 'host')} in network ${session.network} · ${count(crawls.reduce((sum, crawl) => sum + (crawl?.entries ?? 0), 0))} entries catalogued`;
    if (hosts.length === 0) {
      replace(content, emptyState('No hosts yet', 'Mount a folder, a bucket or an API to start.', h('a', { class: 'btn btn-primary', href: '#/hosts/new' }, icon('plus'), h('span', { text: 'Add host' }))));
      rows.clear();
    } else {
      if (!content.contains(table)) replace(content, table);
      const seen = new Set();
      hosts.forEach((host, index) => {
        seen.add(host.slug);
        let entry = rows.get(host.slug);
        if (entry === undefined || entry.host.kind !== host.kind || entry.host.label !== host.label) {
          const fresh = row(host);
          checked.delete(host.slug);
          if (entry) entry.tr.replaceWith(fresh.tr);
          entry = fresh;
          rows.set(host.slug, entry);
        }
        fill(entry, host, crawls[index]);
        if (!checked.has(host.slug)) {
          checked.add(host.slug);
          void offerConnect(entry);
        }
      });
      // Rows in the hosts' order, each followed by its connect panel when one was opened; nodes
      // move only when the order changed, so focus inside a row survives the refresh.
      const order = hosts.flatMap((host) => [rows.get(host.slug).tr, body.querySelector(`tr[data-connect="${CSS.escape(host.slug)}"]`)]).filter(Boolean);
      if (order.some((tr, index) => body.children[index] !== tr)) body.append(...order);
      for (const [slug, entry] of rows) {
        if (!seen.has(slug)) {
          entry.tr.remove();
          body.querySelector(`tr[data-connect="${CSS.escape(slug)}"]`)?.remove();
          rows.delete(slug);
        }
      }
    }
    const busy = crawls.some((crawl) => crawl?.running || crawl?.state === 'queued' || crawl?.progress?.state === 'running');
    timer = setTimeout(() => void load(), busy ? BUSY_POLL_MS : IDLE_POLL_MS);
  }

  void load();
  return {
    element,
    dispose() {
      disposed = true;
      clearTimeout(timer);
      for (const panel of panels) panel.dispose();
    },
  };
}
