// Credential entry, shaped by the kind's AuthSpec: one field per declared field (secrets masked,
// never filled back in), the instructions, the origins they go to; and connecting an OAuth 2 host
// by the authorization-code flow (a new window) or the device-code flow (a code and a link).

import { ApiError } from './api.js';
import { button, chip, h, icon, replace, safeHref, spinner, uid } from './dom.js';
import { checkValue } from './schema-form.js';

const ACQUIRE_TEXT = {
  none: 'This host needs no credentials.',
  static: 'Stored encrypted on this server and sent only to the origins below; never shown again.',
  exchange: 'Stored encrypted and exchanged for a short-lived token, sent only to the origins below; never shown again.',
  oauth2: 'This host connects with OAuth 2: add it, then connect it with the button that appears.',
};

/**
 * The credential part of a form for one AuthView (`acquire`, `fields`, `instructions`, `origins`).
 * `read()` → { values, errors: Map(name → message) }; `clear()` empties every secret.
 */
export function credentialFields(auth, { idPrefix = 'cred' } = {}) {
  const oauth = auth.acquire.type === 'oauth2';
  const inputs = [];
  const fields = auth.fields.map((field) => {
    const id = uid(idPrefix);
    const helpId = `${id}-help`;
    const errorId = `${id}-error`;
    const input = h('input', {
      id,
      name: `credential:${field.name}`,
      type: field.secret ? 'password' : 'text',
      autocomplete: field.secret ? 'new-password' : 'off',
      spellcheck: 'false',
      required: !oauth,
      'aria-describedby': `${field.help ? `${helpId} ` : ''}${errorId}`,
      'data-secret': field.secret ? 'true' : null,
    });
    const error = h('p', { class: 'field-error', id: errorId, hidden: true });
    const element = h(
      'div',
      { class: 'field' },
      h('div', { class: 'label-row' }, h('label', { for: id, class: `label${oauth ? '' : ' is-required'}`, text: field.label }), field.secret ? h('span', { class: 'chip tone-neutral tiny', 'aria-hidden': 'true', text: 'secret' }) : null),
      input,
      field.help ? h('p', { class: 'help', id: helpId, text: field.help }) : null,
      error,
    );
    const setError = (message) => {
      error.hidden = !message;
      error.textContent = message ?? '';
      element.classList.toggle('invalid', Boolean(message));
      if (message) input.setAttribute('aria-invalid', 'true');
      else input.removeAttribute('aria-invalid');
    };
    inputs.push({ field, input, setError });
    return element;
  });
  const element = h(
    'div',
    { class: 'credentials' },
    h('div', { class: 'cred-head' }, icon(auth.acquire.type === 'none' ? 'check' : 'key'), h('p', { text: ACQUIRE_TEXT[auth.acquire.type] ?? ACQUIRE_TEXT.static })),
    auth.instructions ? h('p', { class: 'help instructions', text: auth.instructions }) : null,
    fields,
    auth.origins.length > 0 && auth.acquire.type !== 'none'
      ? h('div', { class: 'origins' }, h('span', { class: 'muted small', text: 'Sent only to' }), auth.origins.map((origin) => chip(origin, 'neutral', { class: 'mono' })))
      : null,
  );
  return {
    element,
    read() {
      const values = {};
      const errors = new Map();
      for (const { field, input, setError } of inputs) {
        const value = input.value;
        let message = null;
        if (value === '') message = oauth ? null : 'Required.';
        else if (field.pattern) message = checkValue({ pattern: field.pattern }, value);
        setError(message);
        if (message) errors.set(field.name, message);
        else if (value !== '') values[field.name] = value;
      }
      return { values, errors };
    },
    showErrors(names, message) {
      for (const { field, setError } of inputs) if (names.includes(field.name)) setError(message);
    },
    focusFirstError() {
      const first = inputs.find(({ input }) => input.getAttribute('aria-invalid') === 'true');
      first?.input.focus();
      return first !== undefined;
    },
    clear() {
      for (const { input } of inputs) if (input.type === 'password') input.value = '';
    },
  };
}

const FLOW_POLL_MS = 1000;

/**
 * Connecting an OAuth 2 host: a button that starts the flow the kind declares and follows it to
 * the end. `onConnected` runs once the grant is stored.
 */
export function oauthConnect(api, { network, host, grant, onConnected }) {
  const status = h('div', { class: 'oauth-status', role: 'status', 'aria-live': 'polite' });
  const start = button(grant === 'device_code' ? 'Connect with a device code' : 'Connect with OAuth', { kind: 'primary', iconName: 'link', onClick: () => run() });
  const element = h('div', { class: 'oauth' }, h('div', { class: 'row gap' }, start), status);
  let timer;

  async function follow(flowId, render) {
    clearTimeout(timer);
    let flow;
    try {
      flow = await api.get(`/v1/oauth/flows/${encodeURIComponent(flowId)}`);
    } catch (error) {
      replace(status, h('p', { class: 'field-error', text: error.message }));
      start.disabled = false;
      return;
    }
    if (flow.state === 'pending') {
      render(flow);
      timer = setTimeout(() => void follow(flowId, render), FLOW_POLL_MS);
      return;
    }
    start.disabled = false;
    if (flow.state === 'authorized') {
      replace(status, h('p', { class: 'ok-text' }, icon('check'), ` Connected: ${network}/${host} holds a grant now.`));
      start.querySelector('span').textContent = 'Reconnect';
      onConnected?.();
    } else {
      replace(status, h('p', { class: 'field-error' }, icon('alert'), ` Not connected: ${flow.error?.message ?? 'the authorization failed.'}`));
    }
  }

  async function run() {
    start.disabled = true;
    replace(status, spinner('Starting'), ' Starting…');
    try {
      if (grant === 'device_code') {
        const started = await api.post('/v1/oauth/device', { network, host });
        const link = safeHref(started.verificationUriComplete ?? started.verificationUri);
        const shown = h(
          'div',
          { class: 'device' },
          h('p', { text: 'Enter this code at the provider:' }),
          h('p', { class: 'device-code mono', 'aria-label': `Code ${started.userCode.split('').join(' ')}`, text: started.userCode }),
          link ? h('a', { href: link, target: '_blank', rel: 'noopener noreferrer', class: 'btn btn-secondary' }, icon('external'), h('span', { text: started.verificationUri })) : h('p', { class: 'mono', text: started.verificationUri }),
          h('p', { class: 'muted small waiting' }),
        );
        replace(status, shown);
        void follow(started.flow.id, (flow) => {
          const left = Math.max(0, Math.round((flow.expiresAt - Date.now()) / 1000));
          shown.querySelector('.waiting').textContent = `Waiting for approval… the code expires in ${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}.`;
        });
      } else {
        // Opened now, while the click still counts as the person's (popup blockers), and pointed at
        // the provider once the server answered; it keeps no way back to this page.
        const popup = window.open('', '_blank');
        if (popup) popup.opener = null;
        let started;
        try {
          started = await api.post('/v1/oauth/authorize', { network, host });
        } catch (error) {
          popup?.close();
          throw error;
        }
        const link = safeHref(started.authorizationUrl);
        if (popup && link) popup.location.replace(link);
        else popup?.close();
        replace(
          status,
          h('p', {}, spinner('Waiting'), ' Finish signing in in the window that opened. '),
          link ? h('a', { href: link, target: '_blank', rel: 'noopener noreferrer' }, 'Open the sign-in page again') : null,
        );
        void follow(started.flow.id, () => undefined);
      }
    } catch (error) {
      start.disabled = false;
      replace(status, h('p', { class: 'field-error', text: error instanceof ApiError ? error.message : String(error) }));
    }
  }

  return { element, dispose: () => clearTimeout(timer) };
}
