// Adding a host: pick a kind (from GET /v1/source-kinds) or a source a package offers, fill in the
// form rendered from the kind's configSchema, then the credentials its AuthSpec asks for, and say
// whether callers may change what is there (off by default: a new host is read only) and how it
// keeps in sync (the kind's default: automatically where it can be watched or listed for free). Every
// field is checked as the person goes; what the server refuses is shown on the field it names.

import { ApiError, newestOnly } from './api.js';
import { categoryChip, categoryIcon, chip, emptyState, errorBlock, h, icon, replace, spinner, uid } from './dom.js';
import { credentialFields, oauthConnect } from './credentials.js';
import { configErrors, humanize, schemaFields } from './schema-form.js';
import { syncField } from './sync-field.js';

const SLUG = /^[a-z][a-z0-9+.-]*$/;

/** Why a host slug is refused, or null. */
export function slugProblem(slug) {
  if (slug === '') return 'Required.';
  if (slug.length > 64) return 'At most 64 characters.';
  if (!/^[a-z]/.test(slug)) return 'Start with a lowercase letter (a–z).';
  if (!SLUG.test(slug)) return 'Use only lowercase letters, digits, "+", "." and "-".';
  if (slug.endsWith('-')) return 'Do not end with "-".';
  if (slug === 'inseam') return '"inseam" is reserved; choose another slug.';
  return null;
}

/** A labelled text field with its own inline error. */
export function textField({ label, name, value = '', required = false, help, multiline = false, readOnly = false, mono = false }) {
  const id = uid(name);
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const control = h(multiline ? 'textarea' : 'input', {
    id,
    name,
    ...(multiline ? { rows: '3' } : { type: 'text' }),
    value,
    required,
    readOnly,
    autocomplete: 'off',
    spellcheck: multiline ? 'true' : 'false',
    class: mono ? 'mono' : null,
    'aria-describedby': `${help ? `${id}-help ` : ''}${id}-error`,
  });
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: id, class: `label${required ? ' is-required' : ''}`, text: label }),
    control,
    help ? h('p', { class: 'help', id: `${id}-help`, text: help }) : null,
    error,
  );
  return {
    element,
    control,
    setError(message) {
      error.hidden = !message;
      error.textContent = message ?? '';
      element.classList.toggle('invalid', Boolean(message));
      if (message) control.setAttribute('aria-invalid', 'true');
      else control.removeAttribute('aria-invalid');
    },
    invalid: () => control.getAttribute('aria-invalid') === 'true',
  };
}

/** The switch that turns writes on for a host; off, the host is read only. */
export function writableField({ checked = false } = {}) {
  const id = uid('writable');
  const control = h('input', { type: 'checkbox', id, name: 'writable', checked, 'aria-describedby': `${id}-help` });
  const element = h(
    'div',
    { class: 'field field-check' },
    h('div', { class: 'check-row' }, control, h('label', { for: id, text: 'Allow changes: callers may write and delete here' })),
    h('p', { class: 'help', id: `${id}-help`, text: 'Off: the host is read only. Agents still change only what their token\'s grants name.' }),
  );
  return { element, control };
}

/** The list of problems above a form, each a link to its field. */
export function errorSummary() {
  const element = h('div', { class: 'alert alert-error summary', role: 'alert', tabindex: '-1', hidden: true });
  return {
    element,
    show(title, items = []) {
      replace(
        element,
        icon('alert'),
        h(
          'div',
          {},
          h('p', { class: 'alert-title', text: title }),
          items.length > 0
            ? h(
                'ul',
                {},
                items.map(({ text, control }) =>
                  h('li', {}, control ? h('a', { href: `#${control.id}`, onClick: (event) => { event.preventDefault(); control.focus(); } }, text) : text),
                ),
              )
            : null,
        ),
      );
      element.hidden = false;
    },
    hide() {
      element.hidden = true;
      element.replaceChildren();
    },
  };
}

export function addHostView(ctx, params) {
  const { api, session, toast, navigate } = ctx;
  const kindList = h('div', { class: 'picker', role: 'radiogroup', 'aria-labelledby': 'kind-heading' });
  const offerList = h('div', { class: 'offers' });
  const formArea = h('div', { class: 'form-area' }, h('div', { class: 'panel pad' }, spinner(), ' Loading kinds…'));
  const element = h(
    'section',
    { class: 'view' },
    h('div', { class: 'view-head' }, h('div', {}, h('nav', { class: 'crumbs', 'aria-label': 'Breadcrumb' }, h('a', { href: '#/hosts', text: 'Hosts' }), h('span', { 'aria-hidden': 'true', text: '/' })), h('h1', { tabindex: '-1', text: 'Add a host' }))),
    h(
      'div',
      { class: 'split' },
      h('aside', { class: 'side' }, h('h2', { id: 'kind-heading', class: 'section-title', text: 'Kind' }), kindList, h('h2', { class: 'section-title', text: 'Offered by packages' }), offerList),
      formArea,
    ),
  );
  let kinds = [];
  let offers = [];
  let disposeForm = () => undefined;

  function select(kindName) {
    for (const input of kindList.querySelectorAll('input')) input.checked = input.value === kindName;
    const kind = kinds.find((item) => item.kind === kindName);
    disposeForm();
    if (kind === undefined) {
      replace(formArea, h('div', { class: 'panel pad' }, emptyState('Choose a kind', 'Pick what this host is: a folder, a bucket, an API…')));
      return;
    }
    const form = kindForm(kind);
    disposeForm = form.dispose;
    replace(formArea, form.element);
  }

  function selectOffer(offer) {
    for (const input of kindList.querySelectorAll('input')) input.checked = false;
    disposeForm();
    const form = offerForm(offer);
    disposeForm = form.dispose;
    replace(formArea, form.element);
  }

  async function load() {
    try {
      [kinds, offers] = await Promise.all([api.get('/v1/source-kinds'), api.get('/v1/discoverable-sources').catch(() => [])]);
    } catch (error) {
      replace(formArea, errorBlock(error, 'The kinds could not be loaded'));
      return;
    }
    replace(
      kindList,
      kinds.map((kind) => {
        const id = uid('kind');
        const input = h('input', { type: 'radio', name: 'kind', id, value: kind.kind, class: 'sr-only', onChange: () => navigate(`#/hosts/new/${encodeURIComponent(kind.kind)}`) });
        return h(
          'label',
          { for: id, class: 'pick', 'data-kind': kind.kind },
          input,
          categoryIcon(kind.category),
          h('span', { class: 'pick-text' }, h('span', { class: 'pick-title' }, h('span', { text: kind.label }), categoryChip(kind.category), kind.sandboxed ? chip('sandboxed', 'violet') : null), h('span', { class: 'pick-desc', text: kind.description || kind.kind })),
        );
      }),
    );
    const visible = offers.filter((offer) => offer.kindRegistered);
    replace(
      offerList,
      visible.length === 0
        ? h('p', { class: 'muted small', text: 'No package offers a source to add.' })
        : visible.map((offer) =>
            h(
              'button',
              { type: 'button', class: 'offer', 'data-offer': `${offer.packageId}/${offer.source}`, disabled: offer.added, onClick: () => navigate(`#/hosts/new/offer/${encodeURIComponent(offer.packageId)}/${encodeURIComponent(offer.source)}`) },
              h('span', { class: 'pick-title' }, h('span', { text: offer.label }), offer.added ? chip('added', 'green') : chip(offer.kind, 'neutral', { class: 'mono' })),
              h('span', { class: 'pick-desc', text: offer.description }),
              h('span', { class: 'muted tiny mono', text: offer.packageId }),
            ),
          ),
    );
    route(params.rest);
  }

  function route(rest) {
    const offer = /^offer\/([^/]+)\/([^/]+)$/.exec(rest);
    if (offer !== null) {
      const found = offers.find((item) => item.packageId === decodeURIComponent(offer[1]) && item.source === decodeURIComponent(offer[2]));
      if (found) return selectOffer(found);
    }
    select(rest === '' ? '' : decodeURIComponent(rest));
  }

  /* ---------------------------------------------------------------- a kind's form */

  function kindForm(kind) {
    const summary = errorSummary();
    const slug = textField({ label: 'Slug', name: 'slug', required: true, mono: true, help: 'The host\'s name in addresses: {slug}://path. Lowercase letters, digits, "+", "." and "-".' });
    const label = textField({ label: 'Label', name: 'label', help: 'Shown in lists; the slug when left empty.' });
    const description = textField({ label: 'Description', name: 'description', multiline: true });
    const writable = writableField();
    const sync = syncField();
    const config = schemaFields(kind.configSchema, { idPrefix: 'config', onChange: () => void describe() });
    const credentialArea = h('div', { class: 'cred-area' }, h('p', { class: 'muted', text: 'Fill in the connection settings to see which credentials this kind needs.' }));
    const submit = h('button', { type: 'submit', class: 'btn btn-primary' }, icon('plus'), h('span', { text: 'Add host' }));
    const form = h(
      'form',
      { class: 'card form', novalidate: true, 'aria-labelledby': 'form-title', 'data-kind': kind.kind },
      h('div', { class: 'form-head' }, categoryIcon(kind.category), h('div', {}, h('h2', { id: 'form-title', text: `New ${kind.label} host` }), h('p', { class: 'muted small', text: kind.description })), categoryChip(kind.category)),
      summary.element,
      h('fieldset', { class: 'section' }, h('legend', { text: 'Host' }), h('div', { class: 'grid-2' }, slug.element, label.element), description.element),
      h('fieldset', { class: 'section' }, h('legend', { text: 'Connection' }), config.empty ? h('p', { class: 'muted', text: 'This kind has no settings.' }) : config.element),
      h('fieldset', { class: 'section' }, h('legend', { text: 'Credentials' }), credentialArea),
      h('fieldset', { class: 'section' }, h('legend', { text: 'Access' }), writable.element),
      h('fieldset', { class: 'section', 'data-section': 'sync' }, h('legend', { text: 'Sync' }), sync.element),
      h('div', { class: 'form-foot' }, h('a', { class: 'btn btn-ghost', href: '#/hosts', text: 'Cancel' }), submit),
    );
    let auth = null;
    let credentials = null;
    let describedFor = null;
    let connect = null;

    slug.control.addEventListener('input', () => {
      if (slug.invalid()) slug.setError(slugProblem(slug.control.value));
    });

    /** Asks the server how hosts of this kind with this config authenticate; the newest question's answer is the one shown. */
    const describe = newestOnly(async (current, { show = false } = {}) => {
      const read = config.read({ show });
      if (read.errors.size > 0) {
        // As the last answer left it: one still on its way is for settings that are no longer there.
        replace(credentialArea, credentials ? credentials.element : h('p', { class: 'muted', text: 'Fill in the connection settings to see which credentials this kind needs.' }));
        return false;
      }
      const key = JSON.stringify(read.value);
      if (key === describedFor && auth !== null) {
        replace(credentialArea, credentials.element);
        return true;
      }
      replace(credentialArea, h('p', { class: 'muted' }, spinner('Checking'), ' Checking the settings…'));
      try {
        const answer = await api.post(`/v1/source-kinds/${encodeURIComponent(kind.kind)}/describe`, { network: session.network, config: read.value });
        if (!current()) return false;
        describedFor = key;
        auth = answer.auth;
        if (answer.defaultSync) sync.setDefault(answer.defaultSync);
        credentials = credentialFields(auth);
        replace(credentialArea, credentials.element);
        return true;
      } catch (error) {
        if (!current()) return false;
        auth = null;
        credentials = null;
        describedFor = null;
        if (error instanceof ApiError && error.code === 'invalid_config') {
          const unplaced = config.showErrors(configErrors(error));
          replace(credentialArea, h('p', { class: 'muted', text: 'Fix the connection settings to see which credentials this kind needs.' }));
          if (unplaced.length > 0 || show) summary.show(error.message);
        } else {
          replace(credentialArea, errorBlock(error, 'These settings could not be checked'));
        }
        return false;
      }
    });

    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      summary.hide();
      const problems = [];
      const slugError = slugProblem(slug.control.value);
      slug.setError(slugError);
      if (slugError) problems.push({ text: `Slug: ${slugError}`, control: slug.control });
      const read = config.read();
      for (const [path, message] of read.errors) problems.push({ text: `${path.split('.').map(humanize).join(' › ')}: ${message}`, control: form.querySelector(`[name="${CSS.escape(path)}"]`) });
      let secrets = { values: {}, errors: new Map() };
      if (credentials) {
        secrets = credentials.read();
        for (const [name, message] of secrets.errors) problems.push({ text: `${auth.fields.find((field) => field.name === name)?.label ?? name}: ${message}`, control: form.querySelector(`[name="${CSS.escape(`credential:${name}`)}"]`) });
      }
      if (problems.length > 0) {
        summary.show(`Fix ${problems.length === 1 ? 'this field' : `these ${problems.length} fields`} to add the host:`, problems);
        problems[0].control?.focus();
        return;
      }
      submit.disabled = true;
      try {
        if (auth === null || describedFor !== JSON.stringify(read.value)) {
          if (!(await describe({ show: true }))) return;
          if (auth.fields.length > 0 && auth.acquire.type !== 'oauth2') {
            summary.show('This kind needs credentials: fill them in, then add the host.');
            credentialArea.querySelector('input')?.focus();
            return;
          }
          secrets = credentials.read();
        }
        const body = {
          network: session.network,
          slug: slug.control.value,
          kind: kind.kind,
          config: read.value,
          ...(label.control.value.trim() === '' ? {} : { label: label.control.value.trim() }),
          ...(description.control.value.trim() === '' ? {} : { description: description.control.value.trim() }),
          ...(Object.keys(secrets.values).length === 0 ? {} : { credentials: secrets.values }),
          writable: writable.control.checked,
          ...(sync.read() === undefined ? {} : { sync: sync.read() }),
        };
        const added = await api.post('/v1/hosts', body);
        credentials?.clear();
        if (auth?.acquire.type === 'oauth2') {
          connect = oauthConnect(api, {
            network: added.network,
            host: added.slug,
            grant: auth.acquire.grant,
            onConnected: () => void api.post(`/v1/hosts/${encodeURIComponent(added.network)}/${encodeURIComponent(added.slug)}/crawl`, {}).catch(() => undefined),
          });
          replace(
            formArea,
            h(
              'div',
              { class: 'card form' },
              h('div', { class: 'form-head' }, categoryIcon(kind.category), h('div', {}, h('h2', { tabindex: '-1', text: `Connect ${added.label}` }), h('p', { class: 'muted small', text: `Host ${added.address} was added. Connect it so inseam can reach it.` }))),
              connect.element,
              h('div', { class: 'form-foot' }, h('a', { class: 'btn btn-ghost', href: '#/hosts', text: 'Done' })),
            ),
          );
          formArea.querySelector('h2')?.focus();
          return;
        }
        // The first crawl starts now, whatever the host's sync trigger, so the list shows it filling.
        const crawl = await api.post(`/v1/hosts/${encodeURIComponent(added.network)}/${encodeURIComponent(added.slug)}/crawl`, {}).then(
          () => 'its first crawl started',
          () => 'sync it from the list',
        );
        toast(`Host ${added.label} added; ${crawl}.`);
        navigate('#/hosts');
      } catch (error) {
        credentials?.clear();
        showServerError(error);
      } finally {
        submit.disabled = false;
      }
    });

    function showServerError(error) {
      if (!(error instanceof ApiError)) {
        summary.show(String(error));
        return;
      }
      const details = error.details ?? {};
      if (error.code === 'invalid_config') {
        const unplaced = config.showErrors(configErrors(error));
        summary.show(unplaced.length > 0 ? error.message : 'The server refused these settings; see the fields marked below.');
        if (!config.focusFirstError()) summary.element.focus();
        return;
      }
      if ((error.code === 'invalid_uri' && details.part === 'host') || (error.code === 'already_exists' && details.host !== undefined)) {
        slug.setError(error.code === 'already_exists' ? 'A host with this slug exists already; choose another.' : error.message);
        summary.show('The slug was refused.', [{ text: error.message, control: slug.control }]);
        slug.control.focus();
        return;
      }
      if (error.code === 'invalid_argument' && Array.isArray(details.fields) && credentials) {
        credentials.showErrors(details.fields.map(String), 'Refused by the server: check this value.');
        summary.show(error.message);
        credentials.focusFirstError();
        return;
      }
      summary.show(error.message);
      summary.element.focus();
    }

    void describe();
    return {
      element: form,
      dispose: () => connect?.dispose(),
    };
  }

  /* ---------------------------------------------------------------- a package's offer */

  function offerForm(offer) {
    const summary = errorSummary();
    const slug = textField({ label: 'Slug', name: 'slug', value: offer.source, required: true, readOnly: true, mono: true, help: 'A declared source keeps the slug its package gave it.' });
    const label = textField({ label: 'Label', name: 'label', value: offer.label });
    const description = textField({ label: 'Description', name: 'description', value: offer.description, multiline: true });
    const submit = h('button', { type: 'submit', class: 'btn btn-primary', disabled: offer.added }, icon('plus'), h('span', { text: offer.added ? 'Added already' : 'Add host' }));
    const kind = kinds.find((item) => item.kind === offer.kind);
    const form = h(
      'form',
      { class: 'card form', novalidate: true, 'aria-labelledby': 'form-title', 'data-offer': `${offer.packageId}/${offer.source}` },
      h('div', { class: 'form-head' }, categoryIcon(kind?.category), h('div', {}, h('h2', { id: 'form-title', text: offer.label }), h('p', { class: 'muted small' }, 'Offered by ', h('code', { text: offer.packageId }))), categoryChip(kind?.category)),
      summary.element,
      h(
        'dl',
        { class: 'props compact' },
        h('dt', { text: 'Kind' }),
        h('dd', { class: 'mono', text: offer.kind }),
        offer.root ? [h('dt', { text: 'Root' }), h('dd', { class: 'mono', text: offer.root })] : null,
        h('dt', { text: 'Owned by' }),
        h('dd', { text: offer.ownership }),
      ),
      h('fieldset', { class: 'section' }, h('legend', { text: 'Host' }), h('div', { class: 'grid-2' }, slug.element, label.element), description.element),
      h('div', { class: 'form-foot' }, h('a', { class: 'btn btn-ghost', href: '#/hosts', text: 'Cancel' }), submit),
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      summary.hide();
      if (label.control.value.trim() === '') {
        label.setError('Required: a declared source keeps a label.');
        label.control.focus();
        return;
      }
      label.setError(null);
      submit.disabled = true;
      try {
        const added = await api.post('/v1/hosts', { network: session.network, slug: offer.source, from: offer.packageId, label: label.control.value.trim(), description: description.control.value.trim() });
        const crawl = await api.post(`/v1/hosts/${encodeURIComponent(added.network)}/${encodeURIComponent(added.slug)}/crawl`, {}).then(
          () => 'its first crawl started',
          () => 'sync it from the list',
        );
        toast(`Host ${added.label} added; ${crawl}.`);
        navigate('#/hosts');
      } catch (error) {
        summary.show(error.message);
        summary.element.focus();
      } finally {
        submit.disabled = false;
      }
    });
    return { element: form, dispose: () => undefined };
  }

  void load();
  return {
    element,
    update({ rest }) {
      if (kinds.length === 0) return false;
      route(rest);
      return true;
    },
    dispose: () => disposeForm(),
  };
}
