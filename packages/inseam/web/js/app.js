// The inseam web page: sign-in, the shell (network, navigation) and a hash router over the
// views — hosts, add a host, browse, connectors, packages (only for a token with packages.manage),
// package credentials (every token: each has a scope of its own).
//
// Sign-in: `inseam up` (at every start) and `inseam signin` print a sign-in link, the page's
// address with `#code=…`, whose code works once, for ten minutes. The fragment never reaches the
// server; the page takes the code out of the address bar and history before anything else, and
// exchanges it (POST /v1/sessions) for a session token that expires when unused. An API token can
// also be pasted into the sign-in form. Either is kept in sessionStorage, sent as
// `Authorization: Bearer …` on every call, and forgotten when the tab closes or the person signs
// out (which ends a session on the server too).

import { createApi } from './api.js';
import { button, h, icon, replace } from './dom.js';
import { addHostView } from './add-host.js';
import { browseView } from './browse.js';
import { connectorsView } from './connectors.js';
import { hostsView } from './hosts.js';
import { hostView } from './host-view.js';
import { canListPackages, packagesView } from './packages.js';
import { packageCredentialsView } from './package-credentials.js';

const TOKEN_KEY = 'inseam:token';
/** `session` when the token is a sign-in session's (it expires, and signing out ends it), else `token`. */
const KIND_KEY = 'inseam:credential';
const NETWORK_KEY = 'inseam:network';

const NEW_LINK = 'Run “inseam signin” in a terminal for a new sign-in link, or paste an API token.';

const root = document.getElementById('app');

const session = {
  token: sessionStorage.getItem(TOKEN_KEY),
  kind: sessionStorage.getItem(KIND_KEY) ?? 'token',
  network: sessionStorage.getItem(NETWORK_KEY),
  networks: [],
  /** Who the token is (GET /v1/session): user, agent, features; the page offers only what it can do. */
  caller: null,
  /** A call answered 401: the session ended or the token was revoked while the page was open. */
  expired() {
    if (root.dataset.state !== 'signed-in') return;
    forget(session.kind === 'session' ? `Your sign-in session has ended (12 hours unused, or signed out elsewhere). ${NEW_LINK}` : 'Your token is no longer accepted (revoked or expired); sign in again.');
  },
};

const api = createApi(session);

/**
 * The sign-in code of a `#code=…` link, taken out of the address bar and history at once (the
 * code works once, but a history entry should not hold it even so); null without one. An old
 * `#token=…` link is taken out the same way and not used: a token never belongs in a URL.
 */
function takeCodeFromFragment() {
  const match = /^#(code|token)=([^&]*)/.exec(location.hash);
  if (match === null) return null;
  history.replaceState(null, '', `${location.pathname}${location.search}#/hosts`);
  return match[1] === 'code' ? decodeURIComponent(match[2]) : '';
}

function remember(token, kind) {
  session.token = token;
  session.kind = kind;
  sessionStorage.setItem(TOKEN_KEY, token);
  sessionStorage.setItem(KIND_KEY, kind);
}

/** Forgets the token in this tab and shows the sign-in form with `message`. */
function forget(message) {
  session.token = null;
  session.kind = 'token';
  sessionStorage.removeItem(TOKEN_KEY);
  sessionStorage.removeItem(KIND_KEY);
  current?.dispose?.();
  current = null;
  showSignIn(message);
}

/** Sign out: a session is ended on the server as well, so its token stops working everywhere. */
async function signOut() {
  if (session.kind === 'session') {
    try {
      await api.request('DELETE', '/v1/session');
    } catch {
      // Unreachable server: the token is forgotten here all the same, and ends by itself.
    }
  }
  forget(session.kind === 'session' ? 'Signed out; the session has ended.' : 'Signed out. The token was forgotten in this tab.');
}

/** Exchanges a sign-in code for a session and starts the page; the sign-in form with the reason when it cannot. */
async function signInWithCode(code) {
  if (code === '') {
    forget('Sign-in links carry a one-time code, never a token: paste the token into the form instead.');
    return;
  }
  let started;
  try {
    started = await api.post('/v1/sessions', { code });
  } catch (failure) {
    forget(failure.status === 401 ? `This sign-in link does not work: it was used already or has expired (links work once, for 10 minutes). ${NEW_LINK}` : failure.message);
    return;
  }
  remember(started.token, 'session');
  await boot();
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
      h('code', { text: 'inseam up' }),
      ' prints a one-time sign-in link each time it starts, and ',
      h('code', { text: 'inseam signin' }),
      ' prints another. Or paste the admin token from ',
      h('code', { text: '<data>/admin.token' }),
      ', or one from ',
      h('code', { text: 'inseam token create' }),
      '. It stays in this tab only.',
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
    session.kind = 'token';
    try {
      await start();
      remember(token, 'token');
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
  { name: 'host', pattern: /^\/hosts\/((?!new(?:\/|$))[^/]+(?:\/edit)?)\/?$/, view: hostView, title: 'Host', nav: 'hosts' },
  { name: 'browse', pattern: /^\/browse(?:\/(.*))?$/, view: browseView, title: 'Browse', nav: 'browse' },
  { name: 'connectors', pattern: /^\/connectors(?:\/([0-9a-f]+))?\/?$/, view: connectorsView, title: 'Connectors', nav: 'connectors' },
  { name: 'packages', pattern: /^\/packages\/?$/, view: packagesView, title: 'Packages', nav: 'packages' },
  { name: 'credentials', pattern: /^\/credentials\/?$/, view: packageCredentialsView, title: 'Credentials', nav: 'credentials' },
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
  nav = h('nav', { class: 'nav', 'aria-label': 'Main' }, link('hosts', 'Hosts', 'hosts'), link('browse', 'Browse', 'browse'), link('connectors', 'Connectors', 'connectors'), canListPackages(session.caller) ? link('packages', 'Packages', 'generic') : null, link('credentials', 'Credentials', 'key'));
  main = h('main', { id: 'main', class: 'main', tabindex: '-1' });
  const header = h(
    'header',
    { class: 'topbar' },
    h('a', { class: 'skip', href: '#main', onClick: (event) => { event.preventDefault(); main.focus(); } }, 'Skip to content'),
    h('a', { class: 'brand', href: '#/hosts' }, h('img', { src: '/web/favicon.svg', alt: '', width: '20', height: '20' }), h('span', { text: 'inseam' })),
    nav,
    h('div', { class: 'spacer' }),
    h('div', { class: 'network-picker' }, h('label', { for: 'network', class: 'muted small', text: 'Network' }), networkSelect),
    button('Sign out', { kind: 'ghost', iconName: 'logout', onClick: () => void signOut() }),
  );
  replace(root, header, main, toasts);
  render();
}

async function start() {
  const [networks, caller] = await Promise.all([api.get('/v1/networks'), api.get('/v1/session')]);
  session.networks = networks;
  session.caller = caller;
  if (!networks.some((network) => network.slug === session.network)) {
    session.network = (networks.find((network) => network.slug === 'home') ?? networks[0])?.slug ?? null;
  }
  if (session.network) sessionStorage.setItem(NETWORK_KEY, session.network);
  shell();
}

window.addEventListener('hashchange', () => {
  const code = takeCodeFromFragment();
  if (code !== null) {
    void signInWithCode(code);
    return;
  }
  if (root.dataset.state === 'signed-in') render();
});

async function boot() {
  if (!session.token) {
    showSignIn();
    return;
  }
  try {
    await start();
  } catch (error) {
    if (error.status === 401) forget(session.kind === 'session' ? `Your sign-in session has ended. ${NEW_LINK}` : 'The saved token is no longer accepted; sign in again.');
    else {
      replace(root, h('main', { class: 'signin-page' }, h('div', { class: 'card narrow' }, h('h1', { text: 'The server did not answer' }), h('p', { text: error.message }), button('Try again', { kind: 'primary', onClick: () => void boot() }))));
    }
  }
}

const linked = takeCodeFromFragment();
if (linked === null) void boot();
else void signInWithCode(linked);
