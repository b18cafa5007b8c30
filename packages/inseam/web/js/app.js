// The inseam web page: sign-in, the shell (network, navigation) and a hash router over four
// views — hosts, add a host, browse, connectors.
//
// Sign-in: the page needs an API token. `inseam up` prints a one-time sign-in link
// (http://…/#token=…); the fragment never reaches the server, and the page moves the token to
// sessionStorage and removes it from the address bar at once. A token can also be pasted into
// the sign-in form. The token is sent as `Authorization: Bearer …` on every call and forgotten
// when the tab closes or the person signs out.

import { createApi } from './api.js';
import { button, h, icon, replace } from './dom.js';
import { addHostView } from './add-host.js';
import { browseView } from './browse.js';
import { connectorsView } from './connectors.js';
import { hostsView } from './hosts.js';

const TOKEN_KEY = 'inseam:token';
const NETWORK_KEY = 'inseam:network';

const root = document.getElementById('app');

const session = {
  token: sessionStorage.getItem(TOKEN_KEY),
  network: sessionStorage.getItem(NETWORK_KEY),
  networks: [],
  /** A call answered 401: the token was revoked or expired while the page was open. */
  expired() {
    if (root.dataset.state === 'signed-in') signOut('Your token is no longer accepted (revoked or expired); sign in again.');
  },
};

const api = createApi(session);

/** A `#token=…` sign-in link: keep the token for this tab, and take it out of the address bar and history. */
function takeTokenFromFragment() {
  const match = /^#token=([^&]+)/.exec(location.hash);
  if (match === null) return;
  session.token = decodeURIComponent(match[1]);
  sessionStorage.setItem(TOKEN_KEY, session.token);
  history.replaceState(null, '', `${location.pathname}${location.search}#/hosts`);
}

function signOut(message) {
  session.token = null;
  sessionStorage.removeItem(TOKEN_KEY);
  current?.dispose?.();
  current = null;
  showSignIn(message);
}

/* ------------------------------------------------------------------ toasts */

const toasts = h('div', { class: 'toasts', role: 'status', 'aria-live': 'polite' });

/** A short message at the corner; errors stay until dismissed. */
function toast(message, tone = 'neutral') {
  const close = h('button', { type: 'button', class: 'icon-btn', 'aria-label': 'Dismiss' }, icon('cross'));
  const item = h('div', { class: `toast tone-${tone}` }, icon(tone === 'error' ? 'alert' : 'check'), h('span', { text: message }), close);
  close.addEventListener('click', () => item.remove());
  toasts.append(item);
  if (tone !== 'error') setTimeout(() => item.remove(), 5000);
}

/* ------------------------------------------------------------------ sign-in */

function showSignIn(message) {
  document.title = 'Sign in — inseam';
  root.dataset.state = 'signed-out';
  const input = h('input', { id: 'token', name: 'token', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': 'token-help token-error', placeholder: 'inseam_…' });
  const error = h('p', { id: 'token-error', class: 'field-error', hidden: !message, text: message ?? '' });
  const submit = button('Sign in', { kind: 'primary', type: 'submit', class: 'wide' });
  const form = h(
    'form',
    { class: 'signin card', novalidate: true, 'aria-labelledby': 'signin-title' },
    h('div', { class: 'brand brand-lg' }, h('img', { src: '/web/favicon.svg', alt: '', width: '28', height: '28' }), h('span', { text: 'inseam' })),
    h('h1', { id: 'signin-title', text: 'Sign in' }),
    h('p', { class: 'muted', text: 'Paste an API token to manage this server\'s hosts, files and connectors.' }),
    h('div', { class: 'field' }, h('label', { for: 'token', class: 'label', text: 'API token' }), input, error),
    submit,
    h(
      'p',
      { id: 'token-help', class: 'help' },
      '`inseam up` prints a sign-in link the first time it starts, and keeps the admin token in ',
      h('code', { text: '<data>/admin.token' }),
      '. Make another with ',
      h('code', { text: 'inseam token create' }),
      '. The token stays in this tab only.',
    ),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (token === '') {
      error.hidden = false;
      error.textContent = 'Paste a token first.';
      input.setAttribute('aria-invalid', 'true');
      input.focus();
      return;
    }
    submit.disabled = true;
    session.token = token;
    try {
      await start();
      sessionStorage.setItem(TOKEN_KEY, token);
    } catch (failure) {
      session.token = null;
      submit.disabled = false;
      error.hidden = false;
      error.textContent = failure.status === 401 ? 'This token is not valid: it is malformed, unknown, revoked or expired.' : failure.message;
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    }
  });
  replace(root, h('main', { class: 'signin-page' }, form), toasts);
  input.focus();
}

/* ------------------------------------------------------------------ shell and routes */

const ROUTES = [
  { name: 'hosts', pattern: /^\/hosts\/?$/, view: hostsView, title: 'Hosts', nav: 'hosts' },
  { name: 'add-host', pattern: /^\/hosts\/new(?:\/(.*))?$/, view: addHostView, title: 'Add a host', nav: 'hosts' },
  { name: 'browse', pattern: /^\/browse(?:\/(.*))?$/, view: browseView, title: 'Browse', nav: 'browse' },
  { name: 'connectors', pattern: /^\/connectors(?:\/([0-9a-f]+))?\/?$/, view: connectorsView, title: 'Connectors', nav: 'connectors' },
];

let current = null;
let currentRoute = null;
let main;
let nav;
let firstRender = true;

function parseHash() {
  const raw = location.hash.replace(/^#/, '') || '/hosts';
  const [path, search = ''] = raw.split('?');
  for (const route of ROUTES) {
    const match = route.pattern.exec(path);
    if (match !== null) return { route, rest: match[1] ?? '', query: new URLSearchParams(search) };
  }
  return { route: ROUTES[0], rest: '', query: new URLSearchParams() };
}

const context = {
  api,
  session,
  toast,
  navigate(hash) {
    location.hash = hash;
  },
};

function render() {
  const { route, rest, query } = parseHash();
  for (const link of nav.querySelectorAll('a')) {
    if (link.dataset.nav === route.nav) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  // A view that can follow its own sub-routes (a folder in browse, a module in connectors) keeps its state.
  if (current !== null && currentRoute === route && current.update?.({ rest, query }) === true) return;
  current?.dispose?.();
  currentRoute = route;
  document.title = `${route.title} — inseam`;
  current = route.view(context, { rest, query });
  replace(main, current.element);
  if (!firstRender) main.querySelector('h1')?.focus();
  firstRender = false;
}

function shell() {
  root.dataset.state = 'signed-in';
  const networkSelect = h(
    'select',
    { id: 'network', class: 'select-sm' },
    session.networks.map((network) => h('option', { value: network.slug, selected: network.slug === session.network, text: network.label && network.label !== network.slug ? `${network.label} (${network.slug})` : network.slug })),
  );
  networkSelect.addEventListener('change', () => {
    session.network = networkSelect.value;
    sessionStorage.setItem(NETWORK_KEY, session.network);
    current?.dispose?.();
    current = null;
    render();
  });
  const link = (name, label, iconName) => h('a', { href: `#/${name}`, 'data-nav': name, class: 'nav-link' }, icon(iconName), h('span', { text: label }));
  nav = h('nav', { class: 'nav', 'aria-label': 'Main' }, link('hosts', 'Hosts', 'hosts'), link('browse', 'Browse', 'browse'), link('connectors', 'Connectors', 'connectors'));
  main = h('main', { id: 'main', class: 'main', tabindex: '-1' });
  const header = h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'skip', href: '#main', onClick: (event) => { event.preventDefault(); main.focus(); } }, 'Skip to content'),
    h('a', { class: 'brand', href: '#/hosts' }, h('img', { src: '/web/favicon.svg', alt: '', width: '20', height: '20' }), h('span', { text: 'inseam' })),
    nav,
    h('div', { class: 'spacer' }),
    h('div', { class: 'network-picker' }, h('label', { for: 'network', class: 'muted small', text: 'Network' }), networkSelect),
    button('Sign out', { kind: 'ghost', iconName: 'logout', onClick: () => signOut('Signed out. The token was forgotten in this tab.') }),
  );
  replace(root, header, main, toasts);
  render();
}

async function start() {
  const networks = await api.get('/v1/networks');
  session.networks = networks;
  if (!networks.some((network) => network.slug === session.network)) {
    session.network = (networks.find((network) => network.slug === 'home') ?? networks[0])?.slug ?? null;
  }
  if (session.network) sessionStorage.setItem(NETWORK_KEY, session.network);
  shell();
}

window.addEventListener('hashchange', () => {
  if (/^#token=/.test(location.hash)) {
    takeTokenFromFragment();
    void boot();
    return;
  }
  if (root.dataset.state === 'signed-in') render();
});

async function boot() {
  takeTokenFromFragment();
  if (!session.token) {
    showSignIn();
    return;
  }
  try {
    await start();
  } catch (error) {
    if (error.status === 401) signOut('The saved token is no longer accepted; sign in again.');
    else {
      replace(root, h('main', { class: 'signin-page' }, h('div', { class: 'card narrow' }, h('h1', { text: 'The server did not answer' }), h('p', { text: error.message }), button('Try again', { kind: 'primary', onClick: () => void boot() }))));
    }
  }
}

void boot();
