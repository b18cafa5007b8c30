// Browsing the URI filesystem: a tree of hosts and folders (keyboard: arrows, Home/End, Enter),
// an entry's details, a text or image preview, downloads that fetch the bytes in ranges (and a
// byte range of their own), and search over the synced content.

import { errorOf, query } from './api.js';
import { button, categoryIcon, chip, emptyState, errorBlock, h, icon, progressBar, replace, spinner, uid } from './dom.js';
import { ago, bytes, count, plural, when } from './format.js';
import { isDimmed, liveness } from './hosts.js';
import { deleteEntry, folderRights, renameEntry, uploadControl } from './file-actions.js';
import { activeFilters, apiFilters, filterForm, readFilters } from './search-filters.js';

const PAGE_SIZE = 200;
const PREVIEW_TEXT_BYTES = 256 * 1024;
const PREVIEW_IMAGE_BYTES = 25 * 1000 * 1000;
/** Downloads are fetched in ranges this large, so a large file streams in pieces with progress. */
const DOWNLOAD_CHUNK_BYTES = 4 * 1024 * 1024;

const TEXT_TYPES = /^(text\/|message\/rfc822$|application\/(json|xml|javascript|x-ndjson|ndjson|yaml|x-yaml|toml|sql|x-sh|x-shellscript|csv|graphql)\b)|\+(json|xml)$/;

function isTextual(mime) {
  return typeof mime === 'string' && TEXT_TYPES.test(mime);
}

const DOCUMENT_TYPES = /^application\/(pdf|vnd\.openxmlformats-officedocument\.(wordprocessingml\.document|spreadsheetml\.sheet|presentationml\.presentation))$/;
const DOCUMENT_NAMES = /\.(pdf|docx|xlsx|pptx)$/i;

/** A document the server shows as its extracted text (docs/search.md "Documents as text"); HTML previews as its source. */
function isDocument(entry) {
  if (typeof entry.mime === 'string' && DOCUMENT_TYPES.test(entry.mime)) return true;
  const generic = entry.mime === undefined || entry.mime === 'application/octet-stream' || entry.mime === 'application/zip';
  return generic && DOCUMENT_NAMES.test(entry.name);
}

function isImage(mime) {
  return typeof mime === 'string' && /^image\/(png|jpe?g|gif|webp|avif|bmp|svg\+xml|x-icon|vnd\.microsoft\.icon)$/.test(mime);
}

function entryIcon(entry) {
  if (entry.type === 'directory') return icon('folder');
  if (isImage(entry.mime)) return icon('image');
  if (isTextual(entry.mime)) return icon('text');
  return icon('file');
}

function addressOf(network, host, path) {
  return `inseam://${network}/${host}/${path}`;
}

function hashOf(host, path) {
  return `#/browse/${encodeURIComponent(host)}/${path}`;
}

function decodeName(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The bytes `[first, last]` of an object (the whole object without a range), fetched in
 * DOWNLOAD_CHUNK_BYTES ranges with `Range` headers. A change of ETag between pieces means the
 * object changed under the download: it is refused rather than stitched together.
 */
async function fetchRange(api, entry, { first = 0, last, onProgress } = {}) {
  const url = `/v1/fs/read${query({ address: entry.address })}`;
  const end = last ?? (entry.size === undefined ? undefined : entry.size - 1);
  if (end === undefined) {
    const response = await api.request('GET', url);
    if (!response.ok) throw await errorOf(response);
    return response.blob();
  }
  const parts = [];
  let offset = first;
  let etag = null;
  const total = end - first + 1;
  while (offset <= end) {
    const upto = Math.min(end, offset + DOWNLOAD_CHUNK_BYTES - 1);
    const response = await api.request('GET', url, { headers: { range: `bytes=${offset}-${upto}` } });
    if (response.status === 200) {
      // The host ignored the range: the whole object came; keep the part asked for.
      const whole = await response.blob();
      onProgress?.(total, total);
      return whole.slice(first, end + 1, entry.mime);
    }
    if (response.status !== 206) throw await errorOf(response);
    const tag = response.headers.get('etag');
    if (etag !== null && tag !== etag) throw new Error('The file changed while it was downloading; download it again.');
    etag = tag;
    const piece = await response.blob();
    if (piece.size === 0) break;
    parts.push(piece);
    offset += piece.size;
    onProgress?.(offset - first, total);
  }
  return new Blob(parts, { type: entry.mime ?? 'application/octet-stream' });
}

/** Hands a blob to the browser as a download named `name`. */
function save(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = h('a', { href: url, download: name, hidden: true });
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** The snippet of a search hit, its matched terms marked. */
function snippet(text, highlights) {
  const out = [];
  let at = 0;
  for (const [start, end] of [...(highlights ?? [])].sort((a, b) => a[0] - b[0])) {
    if (start < at) continue;
    out.push(text.slice(at, start), h('mark', { text: text.slice(start, end) }));
    at = end;
  }
  out.push(text.slice(at));
  return out;
}

export function browseView(ctx, params) {
  const { api, session, toast, navigate } = ctx;
  const tree = h('ul', { class: 'tree', role: 'tree', 'aria-label': 'Hosts and files' });
  const detail = h('div', { class: 'detail-pane', 'aria-live': 'polite' });
  const searchInput = h('input', { id: 'search', type: 'search', name: 'q', placeholder: 'Search synced content — words or a question', autocomplete: 'off', spellcheck: 'false' });
  // By words (every term must match), by meaning (the network's embedder), or both fused: the default.
  const modeSelect = h(
    'select',
    { id: 'search-mode', name: 'mode', 'aria-label': 'Search mode' },
    h('option', { value: 'hybrid', text: 'Words and meaning' }),
    h('option', { value: 'semantic', text: 'Meaning' }),
    h('option', { value: 'keyword', text: 'Exact words' }),
  );
  const searchForm = h(
    'form',
    { class: 'search', role: 'search' },
    h('label', { for: 'search', class: 'sr-only', text: 'Search files' }),
    icon('search'),
    searchInput,
    modeSelect,
    h('button', { type: 'submit', class: 'btn btn-secondary' }, h('span', { text: 'Search' })),
  );
  const element = h(
    'section',
    { class: 'view view-browse' },
    h('div', { class: 'view-head' }, h('h1', { tabindex: '-1', text: 'Browse' }), searchForm),
    h('div', { class: 'browse' }, h('nav', { class: 'tree-pane', 'aria-label': 'Files' }, tree), detail),
  );
  const nodes = new Map(); // li → node
  const byAddress = new Map();
  let hosts = [];
  let selected = null;
  let objectUrls = [];
  let generation = 0;
  let ready;
  /** The filters of the search shown, kept when the words or the mode change; none outside a search. */
  let filters = readFilters(new URLSearchParams());

  const searchHash = (text, mode, given) => `#/browse${query({ q: text, mode, ...given })}`;

  searchForm.addEventListener('submit', (event) => {
    event.preventDefault();
    const text = searchInput.value.trim();
    if (text !== '') navigate(searchHash(text, modeSelect.value, filters));
  });

  /* ---------------------------------------------------------------- tree */

  function makeNode({ address, host, path, name, type, entry, level, parent, dim = false, hostInfo }) {
    const directory = type === 'directory';
    const li = h('li', {
      role: 'treeitem',
      'aria-level': String(level),
      'aria-selected': 'false',
      tabindex: '-1',
      class: dim ? 'dim' : null,
      'data-address': address,
      ...(directory ? { 'aria-expanded': 'false' } : {}),
    });
    const row = h(
      'div',
      { class: 'tree-row' },
      directory ? h('span', { class: 'twisty', 'aria-hidden': 'true' }, icon('chevron')) : h('span', { class: 'twisty' }),
      hostInfo ? categoryIcon(hostInfo.category) : entryIcon(entry ?? { type }),
      h('span', { class: 'tree-name', text: name }),
      hostInfo && isDimmed(hostInfo) ? h('span', { class: 'tree-badge', text: liveness(hostInfo).text }) : null,
    );
    row.style.paddingLeft = `${6 + (level - 1) * 16}px`;
    li.append(row);
    const node = { li, address, host, path, name, type, entry, level, parent, children: null, cursor: null, group: null, hostInfo };
    if (directory) {
      node.group = h('ul', { role: 'group', hidden: true });
      li.append(node.group);
    }
    nodes.set(li, node);
    byAddress.set(address, node);
    return node;
  }

  async function loadChildren(node, more = false) {
    if (node.children !== null && !more) return node.children;
    const page = await api.get(`/v1/fs/list${query({ address: node.address, limit: PAGE_SIZE, cursor: more ? node.cursor : undefined })}`);
    const entries = [...page.entries].sort((a, b) => (a.type === b.type ? a.name.localeCompare(b.name) : a.type === 'directory' ? -1 : 1));
    node.source = page.source;
    node.cursor = page.cursor ?? null;
    node.children ??= [];
    node.group.querySelector('.load-more')?.remove();
    for (const entry of entries) {
      const child = makeNode({ address: entry.address, host: node.host, path: entry.path, name: entry.name, type: entry.type, entry, level: node.level + 1, parent: node });
      node.children.push(child);
      node.group.append(child.li);
    }
    if (node.cursor !== null) {
      const more = h('li', { role: 'treeitem', class: 'load-more', tabindex: '-1', 'aria-level': String(node.level + 1) }, h('div', { class: 'tree-row' }, h('span', { class: 'twisty' }), h('span', { class: 'muted', text: 'Load more…' })));
      more.addEventListener('click', () => void loadChildren(node, true).then(() => node.children.at(-PAGE_SIZE)?.li.focus()));
      nodes.set(more, { li: more, loadMore: node });
      node.group.append(more);
    }
    if (node.children.length === 0 && node.cursor === null) node.group.append(h('li', { role: 'none', class: 'tree-empty muted small', text: 'Empty' }));
    return node.children;
  }

  /** Drops what was listed of a folder (its subtree too), so the next look lists it again. */
  function forgetChildren(node) {
    const drop = (item) => {
      nodes.delete(item.li);
      if (item.address) byAddress.delete(item.address);
      for (const child of item.children ?? []) drop(child);
    };
    for (const child of node.children ?? []) drop(child);
    for (const li of node.group?.querySelectorAll('.load-more') ?? []) nodes.delete(li);
    node.children = null;
    node.cursor = null;
    node.group?.replaceChildren();
  }

  async function expand(node, open = true) {
    if (node.type !== 'directory') return;
    if (open) {
      node.li.classList.add('busy');
      try {
        await loadChildren(node);
      } catch (error) {
        toast(error.message, 'error');
        return;
      } finally {
        node.li.classList.remove('busy');
      }
    }
    node.group.hidden = !open;
    node.li.setAttribute('aria-expanded', String(open));
  }

  function visibleItems() {
    return [...tree.querySelectorAll('li[role="treeitem"]')].filter((li) => li.parentElement.closest('[hidden]') === null);
  }

  function focusItem(li) {
    for (const item of tree.querySelectorAll('li[tabindex="0"]')) item.setAttribute('tabindex', '-1');
    li.setAttribute('tabindex', '0');
    li.focus();
  }

  function activate(node) {
    if (node.loadMore) {
      node.li.click();
      return;
    }
    if (node.type === 'directory' && selected === node) {
      void expand(node, node.li.getAttribute('aria-expanded') !== 'true');
      return;
    }
    navigate(hashOf(node.host, node.path));
  }

  tree.addEventListener('click', (event) => {
    const li = event.target.closest('li[role="treeitem"]');
    const node = li && nodes.get(li);
    if (!node || node.loadMore) return;
    event.stopPropagation();
    focusItem(li);
    if (event.target.closest('.twisty') && node.type === 'directory') {
      void expand(node, li.getAttribute('aria-expanded') !== 'true');
      return;
    }
    activate(node);
  });

  tree.addEventListener('keydown', (event) => {
    const li = event.target.closest('li[role="treeitem"]');
    const node = li && nodes.get(li);
    if (!node) return;
    const items = visibleItems();
    const index = items.indexOf(li);
    const move = (target) => {
      if (target) {
        event.preventDefault();
        focusItem(target);
      }
    };
    switch (event.key) {
      case 'ArrowDown':
        return move(items[index + 1]);
      case 'ArrowUp':
        return move(items[index - 1]);
      case 'Home':
        return move(items[0]);
      case 'End':
        return move(items.at(-1));
      case 'ArrowRight':
        event.preventDefault();
        if (node.type !== 'directory') return;
        if (li.getAttribute('aria-expanded') !== 'true') void expand(node, true);
        else if (node.children?.[0]) focusItem(node.children[0].li);
        return;
      case 'ArrowLeft':
        event.preventDefault();
        if (node.type === 'directory' && li.getAttribute('aria-expanded') === 'true') void expand(node, false);
        else if (node.parent) focusItem(node.parent.li);
        return;
      case 'Enter':
      case ' ':
        event.preventDefault();
        activate(node);
        return;
      default:
    }
  });

  async function loadHosts() {
    hosts = await api.get('/v1/hosts');
    tree.replaceChildren();
    for (const host of hosts) {
      const node = makeNode({ address: host.address, host: host.slug, path: '', name: host.label || host.slug, type: 'directory', level: 1, parent: null, dim: isDimmed(host), hostInfo: host });
      tree.append(node.li);
    }
    tree.querySelector('li')?.setAttribute('tabindex', '0');
  }

  /** Expands the tree down to `path` of `host` and answers the node there (null when not listed). */
  async function reveal(hostSlug, path) {
    let node = byAddress.get(hosts.find((host) => host.slug === hostSlug)?.address);
    if (!node) return null;
    const segments = path === '' ? [] : path.split('/').filter((segment) => segment !== '');
    for (let index = 0; index < segments.length; index += 1) {
      await expand(node, true);
      const wanted = segments.slice(0, index + 1).join('/');
      let next = node.children?.find((child) => child.path === wanted);
      while (!next && node.cursor !== null) {
        await loadChildren(node, true);
        next = node.children.find((child) => child.path === wanted);
      }
      if (!next) return null;
      node = next;
    }
    return node;
  }

  function select(node) {
    if (selected) selected.li.setAttribute('aria-selected', 'false');
    selected = node;
    if (node) {
      node.li.setAttribute('aria-selected', 'true');
      for (const item of tree.querySelectorAll('li[tabindex="0"]')) item.setAttribute('tabindex', '-1');
      node.li.setAttribute('tabindex', '0');
      node.li.scrollIntoView({ block: 'nearest' });
    }
  }

  /* ---------------------------------------------------------------- details */

  function releaseUrls() {
    for (const url of objectUrls) URL.revokeObjectURL(url);
    objectUrls = [];
  }

  function crumbs(host, path) {
    const hostInfo = hosts.find((item) => item.slug === host);
    const parts = [h('a', { href: hashOf(host, ''), text: hostInfo?.label || host })];
    const segments = path === '' ? [] : path.split('/');
    segments.forEach((segment, index) => {
      parts.push(h('span', { class: 'sep', 'aria-hidden': 'true', text: '/' }));
      const target = segments.slice(0, index + 1).join('/');
      parts.push(index === segments.length - 1 ? h('span', { 'aria-current': 'page', text: decodeName(segment) }) : h('a', { href: hashOf(host, target), text: decodeName(segment) }));
    });
    return h('nav', { class: 'crumbs', 'aria-label': 'Path' }, parts);
  }

  function props(entry, source) {
    const row = (label, value, mono = false) => [h('dt', { text: label }), h('dd', { class: mono ? 'mono' : null }, value)];
    const copy = button('Copy', {
      kind: 'ghost',
      iconName: 'copy',
      class: 'btn-xs',
      'aria-label': 'Copy the address',
      onClick: () => navigator.clipboard?.writeText(entry.address).then(() => toast('Address copied.'), () => toast('Copying needs clipboard access.', 'error')),
    });
    return h(
      'dl',
      { class: 'props' },
      row('Address', h('span', { class: 'address' }, h('code', { text: entry.address }), copy)),
      row('Type', entry.type === 'directory' ? 'Folder' : (entry.mime ?? 'unknown'), entry.type !== 'directory'),
      entry.type === 'directory' ? null : row('Size', entry.size === undefined ? '—' : `${bytes(entry.size)} (${count(entry.size)} bytes)`),
      row('Modified', entry.mtime ? h('time', { datetime: entry.mtime, title: entry.mtime, text: `${when(entry.mtime)} · ${ago(entry.mtime)}` }) : '—'),
      entry.etag ? row('ETag', entry.etag, true) : null,
      row('Source', source === 'catalog' ? chip('synced copy — host offline', 'amber') : chip('live', 'green')),
    );
  }

  function downloadTools(entry) {
    const status = h('div', { class: 'download-status', role: 'status', 'aria-live': 'polite' });
    const run = async (control, options, name) => {
      control.disabled = true;
      try {
        const blob = await fetchRange(api, entry, {
          ...options,
          onProgress: (done, total) => replace(status, progressBar(total > 0 ? done / total : null, `Downloading ${entry.name}`), h('span', { class: 'small muted', text: `${bytes(done)} of ${bytes(total)}` })),
        });
        save(blob, name);
        replace(status, h('span', { class: 'small ok-text' }, icon('check'), ` Downloaded ${bytes(blob.size)}.`));
      } catch (error) {
        replace(status, h('span', { class: 'small err-text', text: error.message }));
      } finally {
        control.disabled = false;
      }
    };
    const download = button('Download', { kind: 'primary', iconName: 'download', onClick: () => void run(download, {}, entry.name) });
    const firstId = uid('first');
    const lastId = uid('last');
    const rangeError = h('p', { class: 'field-error', hidden: true, id: `${firstId}-error` });
    const first = h('input', { id: firstId, type: 'text', inputmode: 'numeric', value: '0', class: 'mono narrow-input', 'aria-describedby': `${firstId}-error` });
    const last = h('input', { id: lastId, type: 'text', inputmode: 'numeric', value: entry.size === undefined ? '' : String(Math.max(0, entry.size - 1)), class: 'mono narrow-input', 'aria-describedby': `${firstId}-error` });
    const rangeButton = button('Download range', { kind: 'secondary', iconName: 'download' });
    const range = h(
      'form',
      { class: 'range-form', novalidate: true, 'aria-label': 'Download a byte range' },
      h('div', { class: 'field inline' }, h('label', { for: firstId, class: 'label', text: 'First byte' }), first),
      h('div', { class: 'field inline' }, h('label', { for: lastId, class: 'label', text: 'Last byte' }), last),
      rangeButton,
      rangeError,
    );
    rangeButton.type = 'submit';
    for (const input of [first, last]) {
      input.addEventListener('input', () => {
        rangeError.hidden = true;
        first.removeAttribute('aria-invalid');
        last.removeAttribute('aria-invalid');
      });
    }
    range.addEventListener('submit', (event) => {
      event.preventDefault();
      const a = Number(first.value.trim());
      const b = Number(last.value.trim());
      let problem = null;
      if (!/^\d+$/.test(first.value.trim()) || !/^\d+$/.test(last.value.trim())) problem = 'Enter whole byte offsets.';
      else if (a > b) problem = 'The first byte must not come after the last.';
      else if (entry.size !== undefined && b >= entry.size) problem = `The last byte is at most ${entry.size - 1}.`;
      rangeError.hidden = problem === null;
      rangeError.textContent = problem ?? '';
      for (const input of [first, last]) {
        if (problem) input.setAttribute('aria-invalid', 'true');
        else input.removeAttribute('aria-invalid');
      }
      if (problem) return;
      void run(rangeButton, { first: a, last: b }, `${entry.name}.bytes-${a}-${b}`);
    });
    return h('div', { class: 'downloads' }, h('div', { class: 'row gap wrap' }, download, h('details', { class: 'range' }, h('summary', { text: 'Byte range…' }), range)), status);
  }

  async function preview(entry, token) {
    const area = h('section', { class: 'preview', 'aria-label': 'Preview' }, h('div', { class: 'preview-body' }, spinner('Loading the preview'), ' Loading the preview…'));
    const body = area.firstChild;
    const fill = (...children) => {
      if (token === generation) replace(body, ...children);
    };
    void (async () => {
      try {
        if (isImage(entry.mime)) {
          if (entry.size !== undefined && entry.size > PREVIEW_IMAGE_BYTES) return fill(h('p', { class: 'muted', text: `Too large to preview (${bytes(entry.size)}); download it.` }));
          const blob = await fetchRange(api, entry, {});
          if (token !== generation) return;
          const url = URL.createObjectURL(blob);
          objectUrls.push(url);
          fill(h('div', { class: 'image-frame' }, h('img', { src: url, alt: `Preview of ${entry.name}` })));
          return;
        }
        if (isDocument(entry)) {
          const text = await api.get(`/v1/fs/text${query({ address: entry.address, maxBytes: PREVIEW_TEXT_BYTES })}`);
          const lines = text.text === '' ? [] : text.text.split('\n');
          const cut = text.lines.next !== undefined || text.truncated === true;
          return fill(
            h('p', { class: 'muted small', text: `The text in this document${cut ? `: the first ${count(text.lines.count)} of ${count(text.lines.total)} lines` : ''}; download it for the original.` }),
            h('div', { class: 'code' }, h('pre', { class: 'gutter', 'aria-hidden': 'true', text: lines.map((_, index) => index + 1).join('\n') }), h('pre', { class: 'text', tabindex: '0', 'aria-label': `Text of ${entry.name}` }, h('code', { text: lines.join('\n') }))),
          );
        }
        if (!isTextual(entry.mime)) return fill(h('p', { class: 'muted', text: `No preview for ${entry.mime ?? 'this type'}; download it to open it.` }));
        const page = await api.get(`/v1/fs/page${query({ address: entry.address, offset: 0, length: PREVIEW_TEXT_BYTES })}`);
        if (page.encoding !== 'text') return fill(h('p', { class: 'muted', text: 'This file is not text; download it to open it.' }));
        const lines = page.content.split('\n');
        if (lines.at(-1) === '') lines.pop();
        fill(
          page.nextOffset !== undefined ? h('p', { class: 'muted small', text: `Showing the first ${bytes(page.length)} of ${bytes(page.size)}; download the rest.` }) : null,
          h('div', { class: 'code' }, h('pre', { class: 'gutter', 'aria-hidden': 'true', text: lines.map((_, index) => index + 1).join('\n') }), h('pre', { class: 'text', tabindex: '0', 'aria-label': `Contents of ${entry.name}` }, h('code', { text: lines.join('\n') }))),
        );
      } catch (error) {
        fill(errorBlock(error, 'The preview could not be loaded'));
      }
    })();
    return area;
  }

  /** A message's envelope as the host stated it: who, which way, what its receiving server checked, which list. */
  function envelopeView(envelope) {
    const roles = ['from', 'sender', 'reply-to', 'to', 'cc', 'bcc'];
    const byRole = new Map();
    // Identities are URIs (mailto:…); a person reads the address.
    for (const party of envelope.parties) byRole.set(party.role, [...(byRole.get(party.role) ?? []), party.identity.replace(/^mailto:/, '')]);
    const ordered = [...byRole.keys()].sort((a, b) => (roles.indexOf(a) + 1 || 99) - (roles.indexOf(b) + 1 || 99));
    const checks = Object.entries(envelope.auth ?? {});
    const row = (label, value, key) => [h('dt', { text: label }), h('dd', { 'data-envelope': key }, value)];
    return h(
      'section',
      { class: 'envelope', 'aria-labelledby': 'envelope-title' },
      h('h3', { id: 'envelope-title', text: 'Envelope' }),
      h(
        'dl',
        { class: 'props' },
        row('Direction', chip(envelope.direction === 'sent' ? 'Sent' : envelope.direction === 'received' ? 'Received' : 'Owned', envelope.direction === 'sent' ? 'blue' : 'neutral'), 'direction'),
        ordered.flatMap((role) => row(role === 'reply-to' ? 'Reply-To' : role[0].toUpperCase() + role.slice(1), byRole.get(role).join(', '), role)),
        row(
          'Authentication',
          checks.length === 0 ? h('span', { class: 'muted', text: 'No results from the receiving server' }) : h('span', { class: 'row gap-sm wrap' }, checks.map(([check, passed]) => chip(`${check.toUpperCase()} ${passed ? 'pass' : 'fail'}`, passed ? 'green' : 'red'))),
          'auth',
        ),
        envelope.list ? row('List', envelope.list, 'list') : null,
      ),
    );
  }

  async function showEntry(node, host, path) {
    const token = ++generation;
    releaseUrls();
    // A listing carries no envelope: a message is looked up on its own to show one.
    const mail = hosts.find((item) => item.slug === host)?.category === 'mail';
    let entry = mail && node?.entry?.type === 'file' ? undefined : node?.entry;
    let source = node?.parent?.source ?? 'live';
    if (!entry) {
      try {
        entry = await api.get(`/v1/fs/stat${query({ address: addressOf(session.network, host, path) })}`);
        source = entry.source;
      } catch (error) {
        if (token === generation) replace(detail, errorBlock(error, 'This entry could not be shown'));
        return;
      }
    }
    if (token !== generation) return;
    if (entry.type === 'directory') return showFolder(node, host, path, token);
    replace(
      detail,
      h(
        'article',
        { class: 'entry', 'data-address': entry.address },
        crumbs(host, path),
        h('header', { class: 'entry-head' }, entryIcon(entry), h('h2', { text: entry.name })),
        downloadTools(entry),
        props(entry, source),
        entry.envelope ? envelopeView(entry.envelope) : null,
        await preview(entry, token),
      ),
    );
  }

  async function showFolder(node, host, path, token) {
    const hostInfo = hosts.find((item) => item.slug === host);
    const folderAddress = node?.address ?? addressOf(session.network, host, path);
    let children = [];
    let folderSource = 'live';
    // Without a tree node the view keeps its own cursor, so every page of the folder is reachable here too.
    let cursor = null;
    try {
      if (node) {
        children = await loadChildren(node);
        folderSource = node.source;
      } else {
        const page = await api.get(`/v1/fs/list${query({ address: folderAddress, limit: PAGE_SIZE })}`);
        children = page.entries.map((entry) => ({ entry, path: entry.path, name: entry.name, type: entry.type }));
        folderSource = page.source;
        cursor = page.cursor ?? null;
      }
    } catch (error) {
      if (token === generation) replace(detail, crumbs(host, path), errorBlock(error, 'This folder could not be listed'));
      return;
    }
    if (token !== generation) return;
    const may = folderRights(hostInfo, folderSource);
    // After a change the folder is listed again, in the tree too.
    const changed = () => {
      if (node) forgetChildren(node);
      if (token === generation) void showEntry(node, host, path);
    };
    const rowActions = (child) =>
      h(
        'td',
        { class: 'row-actions' },
        may.rename ? button('Rename', { kind: 'ghost', iconName: 'pencil', class: 'btn-xs', 'aria-label': `Rename ${child.name}`, onClick: () => renameEntry({ api, parent: element, folder: folderAddress, entry: child.entry, onDone: (name) => { toast(`Renamed ${child.name} to ${name}.`); changed(); } }) }) : null,
        may.delete ? button('Delete', { kind: 'ghost', iconName: 'trash', class: 'btn-xs', 'aria-label': `Delete ${child.name}`, onClick: () => deleteEntry({ api, parent: element, entry: child.entry, onDone: () => { toast(`Deleted ${child.name}.`); changed(); } }) }) : null,
      );
    const rowOf = (child) =>
      h(
        'tr',
        { 'data-name': child.name },
        h('td', {}, h('a', { class: 'entry-link', href: hashOf(host, child.path) }, entryIcon(child.entry), h('span', { text: child.name }))),
        h('td', { class: 'num', text: child.type === 'directory' ? '—' : bytes(child.entry.size) }),
        h('td', { class: 'muted nowrap', text: child.entry.mtime ? ago(child.entry.mtime) : '—' }),
        h('td', { class: 'muted mono small', text: child.type === 'directory' ? 'folder' : (child.entry.mime ?? '') }),
        may.rename || may.delete ? rowActions(child) : null,
      );
    const hasMore = () => (node ? node.cursor !== null : cursor !== null);
    const shown = children.length;
    const count = h('p', { class: 'muted small folder-count' });
    const tbody = h('tbody', {}, children.map(rowOf));
    const more = h('button', { type: 'button', class: 'btn load-more-rows' }, 'Show more entries');
    let total = shown;
    const refreshCount = () => {
      count.textContent = `${plural(total, 'entry', 'entries')}${hasMore() ? ' shown; more below' : ''}`;
      more.hidden = !hasMore();
    };
    more.addEventListener('click', async () => {
      more.disabled = true;
      try {
        let next;
        if (node) {
          const before = node.children.length;
          next = (await loadChildren(node, true)).slice(before);
        } else {
          const page = await api.get(`/v1/fs/list${query({ address: folderAddress, limit: PAGE_SIZE, cursor })}`);
          next = page.entries.map((entry) => ({ entry, path: entry.path, name: entry.name, type: entry.type }));
          cursor = page.cursor ?? null;
        }
        if (token !== generation) return;
        tbody.append(...next.map(rowOf));
        total += next.length;
        refreshCount();
        // The first new row takes the focus, so a keyboard user carries on where the page grew.
        tbody.children[total - next.length]?.querySelector('a')?.focus();
      } catch (error) {
        toast(error.message ?? 'The next entries could not be listed', 'error');
      } finally {
        more.disabled = false;
      }
    });
    refreshCount();
    replace(
      detail,
      h(
        'article',
        { class: 'entry folder', 'data-address': folderAddress },
        crumbs(host, path),
        h(
          'header',
          { class: 'entry-head' },
          path === '' && hostInfo ? categoryIcon(hostInfo.category) : icon('folder'),
          h('h2', { text: path === '' ? (hostInfo?.label || host) : decodeName(path.split('/').at(-1)) }),
          folderSource === 'catalog' ? chip('synced copy — host offline', 'amber') : null,
          path === '' && hostInfo ? chip(liveness(hostInfo).text, liveness(hostInfo).key === 'online' ? 'green' : liveness(hostInfo).key === 'unknown' ? 'neutral' : 'amber') : null,
        ),
        may.upload ? uploadControl({ api, address: folderAddress, toast, onDone: changed }) : null,
        count,
        children.length === 0
          ? emptyState('This folder is empty')
          : h(
              'div',
              { class: 'table-scroll' },
              h(
                'table',
                { class: 'table files-table' },
                h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Name' }), h('th', { scope: 'col', class: 'num', text: 'Size' }), h('th', { scope: 'col', text: 'Modified' }), h('th', { scope: 'col', text: 'Type' }), may.rename || may.delete ? h('th', { scope: 'col' }, h('span', { class: 'sr-only', text: 'Actions' })) : null)),
                tbody,
              ),
            ),
        children.length === 0 ? null : more,
      ),
    );
  }

  async function showSearch(text, mode, given) {
    const token = ++generation;
    releaseUrls();
    searchInput.value = text;
    modeSelect.value = mode;
    filters = given;
    const form = () => filterForm({ hosts, filters: given, onApply: (next) => navigate(searchHash(text, mode, next)) });
    replace(detail, h('p', { class: 'muted' }, spinner('Searching'), ` Searching for “${text}”…`));
    let page;
    try {
      const { host, where } = apiFilters(given);
      page = await api.get(`/v1/search${query({ q: text, limit: 50, mode, host, where })}`);
    } catch (error) {
      // The form stays, so a filter the server refused can be changed or cleared.
      if (token === generation) replace(detail, h('section', { class: 'results', 'aria-label': 'Search results' }, form(), errorBlock(error, 'The search failed')));
      return;
    }
    if (token !== generation) return;
    const filtered = activeFilters(given) > 0;
    replace(
      detail,
      h(
        'section',
        { class: 'results', 'aria-label': 'Search results' },
        h('header', { class: 'entry-head' }, icon('search'), h('h2', { text: `Results for “${text}”` }), chip(plural(page.hits.length, 'hit'), 'neutral'), filtered ? chip(plural(activeFilters(given), 'filter'), 'blue', { 'data-filters': String(activeFilters(given)) }) : null),
        form(),
        ...(page.index ?? [])
          .filter((coverage) => coverage.pending > 0 || coverage.failed > 0 || coverage.error)
          .map((coverage) =>
            h('p', { class: 'muted small index-coverage' }, coverage.error ? `Search by meaning is unavailable: ${coverage.error.message}` : `Not searched by meaning yet: ${coverage.pending} pending, ${coverage.failed} failed.`),
          ),
        page.hits.length === 0
          ? emptyState('Nothing matches', filtered ? 'Nothing synced matches these words with these filters; clear a filter to look wider.' : 'Search covers the content inseam has synced; a host crawls before its files are found.')
          : h(
              'ol',
              { class: 'hits' },
              page.hits.map((hit) =>
                h(
                  'li',
                  { class: 'hit' },
                  h('a', { href: hashOf(hit.host, hit.path), class: 'hit-link' }, icon(isImage(hit.mime) ? 'image' : 'text'), h('span', { class: 'mono', text: `${hit.host}://${hit.path.split('/').map(decodeName).join('/')}` })),
                  h('p', { class: 'snippet' }, snippet(hit.snippet ?? '', hit.highlights)),
                  hit.passage && hit.highlights.length > 0 ? h('blockquote', { class: 'passage', text: hit.passage.text }) : null,
                  h('p', { class: 'muted small' }, [hit.size === null || hit.size === undefined ? null : bytes(hit.size), hit.mtime ? ago(hit.mtime) : null, hit.mime, (hit.matched ?? []).includes('semantic') ? 'by meaning' : null].filter(Boolean).join(' · ')),
                  hit.osPath
                    ? h('p', { class: 'muted small os-path' }, hit.osPathOn === 'runtime' ? `OS path on ${hit.host}'s own machine ` : 'OS path ', h('code', { class: 'mono', text: hit.osPath }))
                    : hit.osPathError && hit.osPathError.code !== 'not_requested'
                      ? h('p', { class: 'muted small os-path' }, `No OS path (${hit.osPathError.code})`)
                      : null,
                ),
              ),
            ),
      ),
    );
  }

  /* ---------------------------------------------------------------- routing */

  async function show({ rest, query: search }) {
    await ready;
    const text = search.get('q');
    const mode = ['keyword', 'semantic', 'hybrid'].includes(search.get('mode')) ? search.get('mode') : 'hybrid';
    if (text) return showSearch(text, mode, readFilters(search));
    filters = readFilters(new URLSearchParams());
    const [hostSlug = '', ...segments] = rest.split('/');
    const host = decodeURIComponent(hostSlug);
    const path = segments.filter((segment) => segment !== '').join('/');
    if (host === '') {
      ++generation;
      select(null);
      replace(detail, emptyState('Choose a host', hosts.length === 0 ? 'This network has no hosts yet.' : 'Pick a host or a file on the left, or search above.'));
      return;
    }
    let node = null;
    try {
      node = await reveal(host, path);
    } catch (error) {
      toast(error.message, 'error');
    }
    select(node);
    if (node?.type === 'directory') await expand(node, true);
    await showEntry(node, host, path);
  }

  ready = loadHosts().catch((error) => replace(detail, errorBlock(error, 'The hosts could not be loaded')));
  void show(params);
  return {
    element,
    update(next) {
      void show(next);
      return true;
    },
    dispose() {
      generation += 1;
      releaseUrls();
    },
  };
}
