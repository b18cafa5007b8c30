// Package credentials (#/credentials): the credentials loaded packages declare
// (`neuralis.credentials[]`), which of the scopes the caller may manage hold a value, a form to
// store one at such a scope and Remove per stored scope after a confirmation. The server decides
// who owns which scope (platform/package-secrets.ts) and lists only the caller's own, so the page
// offers exactly those. A value is only ever written: the form's inputs are cleared once it is
// sent, and no answer carries one back — the table shows "Stored", never what.

import { confirmDialog } from './confirm-dialog.js';
import { button, chip, emptyState, errorBlock, h, icon, replace, spinner, uid } from './dom.js';

/** The scopes in the order the table shows them, narrowest last (the narrowest one resolves first). */
const SCOPES = ['deployment', 'network', 'user', 'agent'];

/** What each scope is, for the caller: a user or agent scope is always the caller's own. */
function scopeLabel(scope, session) {
  switch (scope) {
    case 'deployment':
      return 'Deployment';
    case 'network':
      return `Network ${session.network ?? ''}`.trim();
    case 'user':
      return `Yours (${session.caller?.userId ?? 'you'})`;
    default:
      return `Agent ${session.caller?.agentId ?? ''}`.trim();
  }
}

const SCOPE_HELP = {
  deployment: 'Every network falls back to it.',
  network: 'Hosts of this network use it unless a user or agent holds their own.',
  user: 'Used when you act; no one else resolves it.',
  agent: "Used when this agent acts; it comes before its person's.",
};

const keyOf = (view) => `${view.packageId}\u0000${view.credential}`;

export function packageCredentialsView(ctx) {
  const { api, session, toast } = ctx;
  const content = h('div', { class: 'panel' }, h('div', { class: 'loading' }, spinner(), ' Loading credentials…'));
  const formSlot = h('div', {});
  const element = h(
    'section',
    { class: 'view', 'data-view': 'credentials' },
    h(
      'div',
      { class: 'view-head' },
      h(
        'div',
        {},
        h('h1', { tabindex: '-1', text: 'Credentials' }),
        h('p', { class: 'muted', text: 'Secrets the loaded packages declare, and which of the scopes you manage hold one. A stored value is never shown again: you can replace or remove it.' }),
      ),
      h('div', { class: 'row gap' }, button('Refresh', { iconName: 'refresh', onClick: () => void load() })),
    ),
    content,
    formSlot,
  );
  let dialog = null;
  /** The views of the last listing; the form keeps the credential and scope chosen across reloads. */
  let views = [];
  let form = null;

  async function load() {
    try {
      views = await api.get('/v1/credentials');
    } catch (error) {
      replace(content, errorBlock(error, 'The credentials could not be listed'));
      return;
    }
    const scopes = SCOPES.filter((scope) => views.some((view) => Object.hasOwn(view.stored, scope)));
    replace(content, views.length === 0 ? emptyState('No credentials', 'No loaded package declares a credential.') : table(scopes));
    if (form === null && views.length > 0 && scopes.length > 0) {
      form = setForm();
      replace(formSlot, form.element);
    } else form?.refresh();
  }

  function table(scopes) {
    return h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        { class: 'table credentials-table' },
        h('caption', { class: 'sr-only', text: 'Declared package credentials and where a value is stored' }),
        h('thead', {}, h('tr', {}, h('th', { scope: 'col', text: 'Package' }), h('th', { scope: 'col', text: 'Credential' }), h('th', { scope: 'col', text: 'Fields' }), scopes.map((scope) => h('th', { scope: 'col', 'data-scope': scope, text: scopeLabel(scope, session) })))),
        h('tbody', {}, views.map((view) => row(view, scopes))),
      ),
    );
  }

  function row(view, scopes) {
    return h(
      'tr',
      { 'data-package': view.packageId, 'data-credential': view.credential },
      h('td', { 'data-cell': 'package', class: 'mono', text: view.packageId }),
      h('td', { 'data-cell': 'credential' }, h('span', { text: view.label }), h('span', { class: 'muted small mono credential-id', text: view.credential }), view.description === undefined ? null : h('p', { class: 'muted small credential-description', text: view.description })),
      h('td', { 'data-cell': 'fields' }, view.fields.map((field) => chip(field.label, 'neutral', { 'data-field': field.name }))),
      scopes.map((scope) => storedCell(view, scope)),
    );
  }

  function storedCell(view, scope) {
    if (!Object.hasOwn(view.stored, scope)) return h('td', { 'data-scope': scope, class: 'muted', text: '—' });
    if (!view.stored[scope]) return h('td', { 'data-scope': scope, 'data-stored': 'false' }, h('span', { class: 'muted', text: 'Not stored' }));
    const label = scopeLabel(scope, session);
    return h(
      'td',
      { 'data-scope': scope, 'data-stored': 'true' },
      h('div', { class: 'row gap stored-cell' }, chip('Stored', 'green'), button('Remove', { kind: 'ghost', iconName: 'trash', 'aria-label': `Remove ${view.label} of ${view.packageId} at ${label}`, onClick: () => confirmRemove(view, scope) })),
    );
  }

  function confirmRemove(view, scope) {
    dialog?.remove();
    const label = scopeLabel(scope, session);
    const opened = confirmDialog(element, {
      title: `Remove ${view.label}?`,
      body: h('p', { text: `The value ${view.packageId} holds at ${label} is deleted. Where a wider scope holds one, that is used instead; otherwise its hosts go without until one is stored again.` }),
      confirm: 'Remove',
      kind: 'danger',
      onConfirm: async () => {
        await api.delete(`/v1/credentials?${new URLSearchParams({ packageId: view.packageId, credential: view.credential, scope })}`);
        toast(`${view.label} of ${view.packageId} removed at ${label}.`);
        await load();
      },
    });
    dialog = opened.element;
    opened.cancel.focus();
  }

  /** The form: which credential, which of the caller's scopes, then one input per field. */
  function setForm() {
    const credentialId = uid('credential');
    const scopeId = uid('scope');
    const credentialSelect = h('select', { id: credentialId, name: 'credential' });
    const scopeSelect = h('select', { id: scopeId, name: 'scope', 'aria-describedby': `${scopeId}-help` });
    const scopeHelp = h('p', { class: 'help', id: `${scopeId}-help` });
    const fieldsSlot = h('div', { class: 'credential-fields' });
    const problem = h('div', { hidden: true, 'data-problem': '' });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, icon('key'), h('span', { text: 'Store credential' }));
    let inputs = [];
    const element = h(
      'form',
      { class: 'card form', novalidate: true, autocomplete: 'off', 'aria-labelledby': 'set-credential-title', 'data-form': 'set-credential' },
      h('h2', { id: 'set-credential-title', text: 'Store a credential' }),
      h('p', { class: 'help', text: 'Stored encrypted on this server. It replaces what the scope held, and is never shown again.' }),
      h('div', { class: 'field' }, h('label', { for: credentialId, class: 'label', text: 'Credential' }), credentialSelect),
      h('div', { class: 'field' }, h('label', { for: scopeId, class: 'label', text: 'Scope' }), scopeSelect, scopeHelp),
      fieldsSlot,
      problem,
      h('div', { class: 'form-foot' }, submit),
    );

    const chosen = () => views.find((view) => keyOf(view) === credentialSelect.value);

    function showScopes() {
      const view = chosen();
      const keep = scopeSelect.value;
      replace(scopeSelect, SCOPES.filter((scope) => Object.hasOwn(view?.stored ?? {}, scope)).map((scope) => h('option', { value: scope, selected: scope === keep, text: scopeLabel(scope, session) })));
      scopeHelp.textContent = SCOPE_HELP[scopeSelect.value] ?? '';
    }

    function showFields() {
      const view = chosen();
      inputs = (view?.fields ?? []).map((field) => secretInput(field));
      replace(fieldsSlot, inputs.map((input) => input.element));
    }

    /** The credentials of the newest listing, the choice kept while it is still declared. */
    function showCredentials() {
      const keep = credentialSelect.value;
      replace(credentialSelect, views.map((view) => h('option', { value: keyOf(view), selected: keyOf(view) === keep, text: `${view.label} — ${view.packageId}` })));
      return credentialSelect.value !== keep;
    }

    credentialSelect.addEventListener('change', () => {
      showScopes();
      showFields();
      problem.hidden = true;
    });
    scopeSelect.addEventListener('change', () => {
      scopeHelp.textContent = SCOPE_HELP[scopeSelect.value] ?? '';
    });

    element.addEventListener('submit', async (event) => {
      event.preventDefault();
      problem.hidden = true;
      const view = chosen();
      if (view === undefined) return;
      const values = {};
      let first = null;
      for (const input of inputs) {
        const value = input.value();
        input.setError(value === '' ? 'Required.' : null);
        if (value === '') first ??= input;
        else values[input.field.name] = value;
      }
      if (first !== null) {
        first.focus();
        return;
      }
      const scope = scopeSelect.value;
      submit.disabled = true;
      try {
        await api.put('/v1/credentials', { packageId: view.packageId, credential: view.credential, scope, values });
        for (const input of inputs) input.clear();
        toast(`${view.label} of ${view.packageId} stored at ${scopeLabel(scope, session)}.`);
        await load();
      } catch (error) {
        const named = error.details?.fields ?? [];
        for (const input of inputs) if (named.includes(input.field.name)) input.setError(error.message);
        problem.hidden = false;
        replace(problem, errorBlock(error, 'Nothing was stored'));
      } finally {
        submit.disabled = false;
      }
    });

    showCredentials();
    showScopes();
    showFields();
    return {
      element,
      refresh() {
        const moved = showCredentials();
        showScopes();
        if (moved) showFields();
      },
    };
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
 * One field's input. A secret is a password input, never filled in and cleared after sending; as
 * a password input drops line breaks, which a private key needs, its value can also come from a
 * file, read when the form is sent and kept nowhere in the page.
 */
function secretInput(field) {
  const id = uid('secret');
  const errorId = `${id}-error`;
  const control = h('input', { id, name: `value:${field.name}`, type: field.secret ? 'password' : 'text', autocomplete: field.secret ? 'new-password' : 'off', spellcheck: 'false', required: true, 'aria-describedby': errorId, 'data-field': field.name });
  const fileId = `${id}-file`;
  const file = field.secret ? h('input', { id: fileId, type: 'file', class: 'secret-file', 'aria-describedby': `${fileId}-help` }) : null;
  const error = h('p', { class: 'field-error', id: errorId, hidden: true });
  const element = h(
    'div',
    { class: 'field' },
    h('div', { class: 'label-row' }, h('label', { for: id, class: 'label is-required', text: field.label }), field.secret ? h('span', { class: 'chip tone-neutral tiny', 'aria-hidden': 'true', text: 'secret' }) : null),
    control,
    file ? h('div', { class: 'secret-file-row' }, h('label', { for: fileId, class: 'small', text: `Or read ${field.label} from a file` }), file, h('p', { class: 'help', id: `${fileId}-help`, text: 'As it is, line breaks kept (a private key needs them).' })) : null,
    error,
  );
  let fromFile = '';
  file?.addEventListener('change', async () => {
    fromFile = file.files?.[0] ? await file.files[0].text() : '';
    if (fromFile !== '') control.value = '';
  });
  control.addEventListener('input', () => {
    // Typing replaces a chosen file: one source for the value.
    if (control.value !== '' && file) {
      file.value = '';
      fromFile = '';
    }
  });
  return {
    field,
    element,
    value: () => (fromFile !== '' ? fromFile : control.value),
    setError(message) {
      error.hidden = !message;
      error.textContent = message ?? '';
      element.classList.toggle('invalid', Boolean(message));
      if (message) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    },
    focus: () => control.focus(),
    clear() {
      control.value = '';
      if (file) file.value = '';
      fromFile = '';
    },
  };
}
