// Connector packages (#/packages): the built-in and installed ones with their trust, kinds and
// state, and — for a person's token with packages.manage — installing one from a folder on the
// server with the trust the person gives it, swapping it for what its folder holds now, and
// removing it after a confirmation. A token without packages.manage does not see the view in the
// navigation at all (app.js); an agent's token sees the list but none of the controls, since the
// server refuses every change not made by a person.

import { ApiError } from './api.js';
import { textField } from './add-host.js';
import { confirmDialog } from './confirm-dialog.js';
import { button, chip, emptyState, errorBlock, h, icon, replace, spinner, uid } from './dom.js';
import { ago, when } from './format.js';

/** The feature every /v1/packages call needs. */
export const PACKAGES_FEATURE = 'packages.manage';

/** The trusts a person may give, with what each lets the package do (docs/manifest.md "Trust summary"). */
const TRUSTS = [
  ['trusted', 'Trusted', "Runs in inseam's own process: it may add source kinds and in-process or stdio MCP servers. Only for code you would run as inseam itself."],
  ['untrusted', 'Untrusted', 'None of its code runs in inseam: it may offer remote (streamable HTTP) MCP servers and discoverable sources only.'],
  ['sandboxed', 'Sandboxed', 'The same limits as untrusted, for a package built to run sandboxed: remote MCP servers and discoverable sources only.'],
];

/** Whether the caller (GET /v1/session) may list packages; only then is the view in the navigation. */
export function canListPackages(caller) {
  return caller?.features?.includes(PACKAGES_FEATURE) === true;
}

/** Whether the caller may install, swap and remove: the feature, and a person (no agent acts through it). */
function canChangePackages(caller) {
  return canListPackages(caller) && caller.agentId === null;
}

/** The state cell: loaded, or failed with the error's message (with a swap that failed the old version still serves). */
function stateCell(pkg) {
  const failed = pkg.state === 'failed';
  return h(
    'td',
    { 'data-cell': 'state' },
    chip(failed ? 'Failed' : 'Loaded', failed ? 'red' : 'green'),
    pkg.error ? h('p', { class: 'err-text small', 'data-error': pkg.error.code }, failed ? '' : 'The last swap failed; the previous version still serves: ', pkg.error.message) : null,
  );
}

function originCell(pkg) {
  if (pkg.builtin) return h('td', { 'data-cell': 'origin', class: 'muted', text: 'Built in' });
  // A network's _packages/ drop: it follows its folder (rescan), not an install.
  if (pkg.network) return h('td', { 'data-cell': 'origin' }, h('span', { text: `Drop in network ${pkg.network}` }), pkg.folder ? h('p', { class: 'mono muted small package-folder', text: pkg.folder }) : null);
  return h(
    'td',
    { 'data-cell': 'origin' },
    h('span', { text: `Installed by ${pkg.installedBy ?? 'someone'}` }),
    pkg.installedAt ? h('span', { class: 'muted' }, ' · ', h('time', { datetime: new Date(pkg.installedAt).toISOString(), title: when(pkg.installedAt), text: ago(pkg.installedAt) })) : null,
    pkg.folder ? h('p', { class: 'mono muted small package-folder', text: pkg.folder }) : null,
  );
}

export function packagesView(ctx) {
  const { api, session, toast } = ctx;
  const mayChange = canChangePackages(session.caller);
  const content = h('div', { class: 'panel' }, h('div', { class: 'loading' }, spinner(), ' Loading packages…'));
  const element = h(
    'section',
    { class: 'view', 'data-view': 'packages' },
    h(
      'div',
      { class: 'view-head' },
      h('div', {}, h('h1', { tabindex: '-1', text: 'Packages' }), h('p', { class: 'muted', text: 'Connector packages of this deployment: the built-in ones and those a person installed. Their kinds serve every network.' })),
      h('div', { class: 'row gap' }, button('Refresh', { iconName: 'refresh', onClick: () => void load() })),
    ),
    content,
    mayChange ? installForm() : h('p', { class: 'muted small', 'data-packages': 'read-only', text: 'Installing, swapping and removing packages is a person\'s act: it needs a person\'s token with packages.manage.' }),
  );
  let dialog = null;

  async function load() {
    let packages;
    try {
      packages = await api.get('/v1/packages');
    } catch (error) {
      replace(content, errorBlock(error, 'The packages could not be listed'));
      return;
    }
    replace(content, packages.length === 0 ? emptyState('No packages', 'No connector package is loaded.') : table(packages));
  }

  function table(packages) {
    return h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'table packages-table' },
        h('caption', { class: 'sr-only', text: 'Connector packages' }),
        h('thead', {}, h('tr', {}, ['Package', 'Trust', 'Kinds', 'State', 'Origin', ''].map((title) => h('th', { scope: 'col', class: title === '' ? 'actions' : null }, title || h('span', { class: 'sr-only', text: 'Actions' }))))),
        h('tbody', {}, packages.map(row)),
      ),
    );
  }

  function row(pkg) {
    const actions = h('td', { class: 'actions' });
    if (mayChange && !pkg.builtin && !pkg.network) {
      const swap = button('Swap', { iconName: 'refresh', 'aria-label': `Swap ${pkg.packageId}`, title: 'Load it again from its folder (a new version)', onClick: () => void swapPackage(pkg, swap) });
      replace(actions, h('div', { class: 'row gap end' }, swap, button('Remove', { kind: 'danger', iconName: 'trash', 'aria-label': `Remove ${pkg.packageId}`, onClick: () => confirmRemove(pkg) })));
    }
    return h(
      'tr',
      { 'data-package': pkg.packageId, 'data-state': pkg.state },
      h('td', { 'data-cell': 'package' }, h('span', { class: 'mono', text: pkg.packageId }), pkg.version ? h('span', { class: 'muted small', 'data-cell': 'version', text: ` ${pkg.version}` }) : null),
      h('td', { 'data-cell': 'trust', text: pkg.trust }),
      h('td', { 'data-cell': 'kinds' }, pkg.kinds.length === 0 ? h('span', { class: 'muted', text: '—' }) : pkg.kinds.map((kind) => chip(kind, 'neutral', { class: 'mono' }))),
      stateCell(pkg),
      originCell(pkg),
      actions,
    );
  }

  async function swapPackage(pkg, control) {
    control.disabled = true;
    try {
      const swapped = await api.post(`/v1/packages/${encodeURIComponent(pkg.packageId)}/swap`, {});
      toast(`Package ${swapped.packageId} swapped${swapped.version ? ` to ${swapped.version}` : ''}.`);
    } catch (error) {
      // The list says why beside the package (its `error`); a refusal before loading (a folder gone) only here.
      toast(`${pkg.packageId} was not swapped; the previous version still serves${error.code === 'manifest_invalid' || error.code === 'trust_violation' ? ' (why is in its row)' : `: ${error.message}`}.`, 'error');
    }
    await load();
  }

  function confirmRemove(pkg) {
    dialog?.remove();
    const kinds = pkg.kinds.length === 0 ? 'It provides no source kinds.' : `Hosts of its ${pkg.kinds.length === 1 ? 'kind' : 'kinds'} (${pkg.kinds.join(', ')}) stay stored as orphans: they answer “kind not registered” until a package provides the kind again.`;
    const opened = confirmDialog(element, {
      title: `Remove ${pkg.packageId}?`,
      body: h('p', { text: `It is unloaded now and not loaded at the next start. ${kinds} Its folder on the server is not touched.` }),
      confirm: 'Remove',
      kind: 'danger',
      onConfirm: async () => {
        await api.delete(`/v1/packages/${encodeURIComponent(pkg.packageId)}`);
        toast(`Package ${pkg.packageId} removed.`);
        await load();
      },
    });
    dialog = opened.element;
    opened.cancel.focus();
  }

  function installForm() {
    const folder = textField({ label: 'Folder', name: 'folder', required: true, mono: true, help: 'The absolute path of the package\'s folder (the one with its package.json) on the server.' });
    const name = uid('trust');
    const trustError = h('p', { class: 'field-error', id: `${name}-error`, hidden: true });
    const radios = TRUSTS.map(([value, label, text]) => {
      const id = `${name}-${value}`;
      return {
        value,
        control: h('input', { type: 'radio', name, id, value, 'aria-describedby': `${id}-help ${name}-error` }),
        label,
        text,
        id,
      };
    });
    const trustField = h(
      'div',
      { class: 'field field-check', role: 'radiogroup', 'aria-label': 'Trust', 'data-field': 'trust' },
      h('span', { class: 'label is-required', text: 'Trust' }),
      radios.map((radio) => [h('div', { class: 'check-row' }, radio.control, h('label', { for: radio.id, text: radio.label })), h('p', { class: 'help', id: `${radio.id}-help`, text: radio.text })]),
      trustError,
    );
    const setTrustError = (message) => {
      trustError.hidden = !message;
      trustError.textContent = message ?? '';
      trustField.classList.toggle('invalid', Boolean(message));
      for (const radio of radios) {
        if (message) radio.control.setAttribute('aria-invalid', 'true');
        else radio.control.removeAttribute('aria-invalid');
      }
    };
    const problem = h('p', { class: 'field-error', role: 'alert', hidden: true });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, icon('plus'), h('span', { text: 'Install package' }));
    const form = h(
      'form',
      { class: 'card form', novalidate: true, 'aria-labelledby': 'install-package-title', 'data-form': 'install-package' },
      h('h2', { id: 'install-package-title', text: 'Install a package' }),
      h('p', { class: 'help', text: 'It is loaded now; if its manifest or code is refused, nothing is installed. The trust is yours to give: whatever the manifest says of itself is ignored.' }),
      folder.element,
      trustField,
      problem,
      h('div', { class: 'form-foot' }, submit),
    );

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      problem.hidden = true;
      const path = folder.control.value.trim();
      const trust = radios.find((radio) => radio.control.checked)?.value;
      folder.setError(path === '' ? 'Required.' : path.startsWith('/') ? null : 'An absolute path on the server, starting with “/”.');
      setTrustError(trust === undefined ? 'Choose the trust you give it.' : null);
      if (folder.invalid()) {
        folder.control.focus();
        return;
      }
      if (trust === undefined) {
        radios[0].control.focus();
        return;
      }
      submit.disabled = true;
      try {
        const added = await api.post('/v1/packages', { folder: path, trust });
        toast(`Package ${added.packageId}${added.version ? ` ${added.version}` : ''} installed.`);
        folder.control.value = '';
        for (const radio of radios) radio.control.checked = false;
        await load();
      } catch (error) {
        const at = fieldOf(error);
        if (at === 'folder') {
          folder.setError(error.message);
          folder.control.focus();
        } else if (at === 'trust') {
          setTrustError(error.message);
          (radios.find((radio) => radio.control.checked) ?? radios[0]).control.focus();
        } else {
          problem.hidden = false;
          problem.textContent = `Nothing was installed: ${error.message}`;
        }
      } finally {
        submit.disabled = false;
      }
    });
    return form;
  }

  void load();
  return {
    element,
    dispose() {
      dialog?.close();
    },
  };
}

/**
 * Which field a refused install belongs to: the one the error names, else — for a manifest the
 * trust does not allow (`manifest_invalid`, `trust_violation` naming the trust) — the trust.
 */
function fieldOf(error) {
  if (!(error instanceof ApiError)) return null;
  const argument = String(error.details?.argument ?? '').replace(/^body\./, '');
  if (argument === 'folder' || argument === 'trust') return argument;
  if (error.code === 'already_exists') return 'folder';
  if ((error.code === 'manifest_invalid' || error.code === 'trust_violation') && /trust/i.test(error.message)) return 'trust';
  if (error.code === 'manifest_invalid') return 'folder';
  return null;
}
