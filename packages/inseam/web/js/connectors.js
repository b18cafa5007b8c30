// Sandboxed connectors: the modules submitted to the network, their trial reports (each check and
// the origins the module used), the trial itself, the person's approval with its typed phrase and
// which phases passed, and install — which adds the host and starts its first crawl, followed here
// to the end. A module that declares writes can be installed writable on a scratch prefix: the
// platform runs the install-phase trial on the new host first and says whether writes came on.
// Trials that are not approved can be deleted (an approved one stays: it records the approval).

import { ApiError, hostPath, newestOnly } from './api.js';
import { button, chip, emptyState, errorBlock, h, icon, progressBar, replace, spinner, uid } from './dom.js';
import { credentialFields } from './credentials.js';
import { ago, duration, plural, shortSha, when } from './format.js';
import { crawlSummary } from './hosts.js';
import { configErrors, schemaFields } from './schema-form.js';
import { slugProblem } from './add-host.js';

const STATE_TONES = { submitted: 'neutral', trialled: 'blue', approved: 'violet', installed: 'green' };
const PHASE_TONES = { passed: 'green', failed: 'red', not_run: 'neutral' };

/** Which phases of the module's trials passed in this network: read only (submit), and install (writes). */
function phasesList(phases) {
  const item = (label, result) => h('li', { 'data-phase-result': result }, h('span', { text: `${label}: ` }), chip(result === 'not_run' ? 'not run' : result, PHASE_TONES[result] ?? 'neutral'));
  return h(
    'div',
    { class: 'phases', 'data-phases': '' },
    h('ul', { class: 'plain' }, item('Read-only trial (submit phase)', phases.submit), item('Install trial (writes on a scratch prefix)', phases.install)),
    phases.declaresWrites
      ? h('p', { class: 'small muted', text: phases.writesCheckedOn.length > 0 ? `It declares writes; check 10 passed on ${phases.writesCheckedOn.join(', ')}. A host becomes writable only after the install-phase trial passes on that host.` : 'It declares writes; a host of it becomes writable only after the install-phase trial passes on that host, on a scratch prefix you name.' })
      : null,
  );
}
const CRAWL_POLL_MS = 1000;

function stateChip(view) {
  const newest = view.trials[0];
  if (view.state === 'trialled' && newest && !newest.passed) return chip('trial failed', 'red', { 'data-state': 'failed' });
  return chip(view.state, STATE_TONES[view.state] ?? 'neutral', { 'data-state': view.state });
}

function statusChip(status) {
  const tone = status === 'pass' ? 'green' : status === 'fail' ? 'red' : 'neutral';
  return h('span', { class: `check-status tone-${tone}` }, icon(status === 'pass' ? 'check' : status === 'fail' ? 'cross' : 'skip'), h('span', { text: status }));
}

/** A trial report: the verdict, each of the eleven checks, the origins used. */
function reportCard(record) {
  const report = record.report ?? {};
  const checks = Array.isArray(report.checks) ? report.checks : [];
  const failed = checks.filter((check) => check.status === 'fail').length;
  // Trials recorded before the report named it `leftovers` call it `leftOnHost`.
  const leftovers = Array.isArray(report.leftovers) ? report.leftovers : Array.isArray(report.leftOnHost) ? report.leftOnHost : [];
  return h(
    'section',
    { class: 'card report', 'aria-labelledby': 'report-title', 'data-passed': String(record.passed) },
    h(
      'div',
      { class: `verdict ${record.passed ? 'pass' : 'fail'}` },
      icon(record.passed ? 'shield' : 'alert'),
      h('div', {}, h('h2', { id: 'report-title', text: record.passed ? 'Trial passed' : `Trial failed — ${plural(failed, 'check')} failed` }), h('p', { class: 'small' }, `${report.phase ?? record.phase} phase · ${duration(report.durationMs)} · ${when(record.createdAt)}${report.trialledBy ? ` · by ${report.trialledBy}` : ''}`)),
    ),
    h(
      'table',
      { class: 'table checks' },
      h('caption', { class: 'sr-only', text: 'Checks of the trial' }),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col', class: 'num', text: '#' }), h('th', { scope: 'col', text: 'Check' }), h('th', { scope: 'col', text: 'Result' }), h('th', { scope: 'col', text: 'Detail' }))),
      h(
        'tbody',
        {},
        checks.map((check) => h('tr', { 'data-check': String(check.id), 'data-status': check.status }, h('td', { class: 'num mono', text: String(check.id) }), h('td', { text: check.name }), h('td', {}, statusChip(check.status)), h('td', { class: 'detail-cell' }, h('pre', { class: 'check-detail', text: check.detail ?? '' })))),
      ),
    ),
    h(
      'div',
      { class: 'origins-used' },
      h('h3', { text: 'Origins used' }),
      (report.origins ?? record.origins ?? []).length === 0 ? h('p', { class: 'muted small', text: 'None: the module reached no origin.' }) : h('ul', { class: 'chips' }, (report.origins ?? record.origins).map((origin) => h('li', {}, chip(origin, 'neutral', { class: 'mono' })))),
      Array.isArray(report.refusals) && report.refusals.length > 0
        ? [h('h3', { text: 'Refused by the gate' }), h('ul', { class: 'plain' }, report.refusals.map((refusal) => h('li', { class: 'mono small', text: `${refusal.method ?? ''} ${refusal.origin ?? ''} — ${refusal.reason ?? ''}` })))]
        : null,
      leftovers.length > 0 ? [h('h3', { text: 'Left on the host' }), h('ul', { class: 'plain' }, leftovers.map((path) => h('li', { class: 'mono small', text: path })))] : null,
    ),
  );
}

export function connectorsView(ctx, params) {
  const { api, toast } = ctx;
  const list = h('div', { class: 'module-list', role: 'list' });
  const detail = h('div', { class: 'module-detail' });
  const split = h('div', { class: 'split split-list' }, h('aside', { class: 'side' }, list), detail);
  const element = h(
    'section',
    { class: 'view' },
    h('div', { class: 'view-head' }, h('div', {}, h('h1', { tabindex: '-1', text: 'Connectors' }), h('p', { class: 'muted', text: 'Sandboxed connector modules submitted to this network: trial, approve, install.' }))),
    split,
  );
  let views = [];
  let current = null; // { sha, settings, crawlTimer }
  let disposed = false;

  async function loadList() {
    try {
      views = await api.get('/v1/connectors');
    } catch (error) {
      replace(list, errorBlock(error, 'The connectors could not be loaded'));
      return;
    }
    split.classList.toggle('solo', views.length === 0);
    replace(
      list,
      views.map((view) =>
        h(
          'a',
          { role: 'listitem', class: 'module-item', href: `#/connectors/${view.sha}`, 'aria-current': current?.sha === view.sha ? 'true' : null, 'data-sha': view.sha },
          h('span', { class: 'pick-title' }, h('span', { text: view.name ?? 'Unnamed module' }), stateChip(view)),
          h('span', { class: 'mono tiny muted', text: `${view.kind ?? 'not trialled'} · ${shortSha(view.sha)}` }),
          h('span', { class: 'tiny muted', text: `by ${view.submittedBy} · ${ago(view.submittedAt)}` }),
        ),
      ),
    );
  }

  /* ---------------------------------------------------------------- host settings */

  /** The config, credentials and private origins a trial and an install use. */
  function settingsCard(view) {
    const summary = h('div', { class: 'alert alert-error', role: 'alert', hidden: true });
    const schema = view.configSchema;
    const configId = uid('config');
    const config = schema ? schemaFields(schema, { idPrefix: 'mconfig', onChange: () => void describe() }) : null;
    const configText = schema
      ? null
      : h('textarea', { id: configId, class: 'mono', rows: '5', spellcheck: 'false', value: '{\n  \n}', 'aria-describedby': `${configId}-help` });
    const askForConfig = () => h('p', { class: 'muted', text: 'Fill in the config to see which credentials the module asks for.' });
    const authArea = h('div', { class: 'cred-area' }, askForConfig());
    const phase = h('select', { id: uid('phase') }, h('option', { value: 'submit', text: 'Submit — reads only' }), h('option', { value: 'install', text: 'Install — also writes under a scratch prefix' }));
    let auth = null;
    let credentials = null;
    let originBoxes = [];
    let describedFor = null;
    /** What the last answer put in authArea, shown again when a newer question needs no answer. */
    let authShown = null;

    function readConfig(show = true) {
      if (config) return config.read({ show });
      try {
        const value = JSON.parse(configText.value);
        if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error('not an object');
        return { value, errors: new Map() };
      } catch {
        return { value: {}, errors: new Map([['config', 'Enter a JSON object.']]) };
      }
    }

    // The newest question's answer is the one shown (see newestOnly).
    const describe = newestOnly(async (current, show = false) => {
      const read = readConfig(show);
      if (read.errors.size > 0) {
        // As the last answer left it: one still on its way is for a config that is no longer there.
        replace(authArea, ...(authShown ?? [askForConfig()]));
        return false;
      }
      const key = JSON.stringify(read.value);
      if (key === describedFor && auth !== null) {
        replace(authArea, ...authShown);
        return true;
      }
      replace(authArea, h('p', { class: 'muted' }, spinner('Loading'), ' Loading the module…'));
      try {
        const answer = await api.post(`/v1/connectors/${view.sha}/describe`, { config: read.value });
        if (!current()) return false;
        auth = answer.auth;
        describedFor = key;
        credentials = credentialFields(auth, { idPrefix: 'mcred' });
        originBoxes = auth.origins.map((origin) => {
          const id = uid('origin');
          const box = h('input', { type: 'checkbox', id, value: origin });
          return { origin, box, element: h('div', { class: 'check-row' }, box, h('label', { for: id }, 'Allow ', h('code', { text: origin }), ' on a private address (this machine, the LAN)')) };
        });
        authShown = [
          credentials.element,
          originBoxes.length > 0 ? h('fieldset', { class: 'fieldset' }, h('legend', { text: 'Private origins' }), h('p', { class: 'help', text: 'Only for origins you know are on this machine or your network; the gate refuses private addresses otherwise.' }), originBoxes.map((item) => item.element)) : null,
        ];
        replace(authArea, ...authShown);
        return true;
      } catch (error) {
        if (!current()) return false;
        auth = null;
        describedFor = null;
        authShown = null;
        if (error instanceof ApiError && error.code === 'invalid_config' && config) config.showErrors(configErrors(error));
        replace(authArea, errorBlock(error, 'The module could not be loaded with this config'));
        return false;
      }
    });

    const card = h(
      'section',
      { class: 'card', 'aria-labelledby': 'settings-title' },
      h('h2', { id: 'settings-title', text: 'Host settings' }),
      h('p', { class: 'muted small', text: 'What the trial runs against and the installed host uses. Credentials go to the gate only: the module never sees them, and they are never shown again.' }),
      summary,
      config ? config.element : h('div', { class: 'field' }, h('label', { for: configId, class: 'label', text: 'Config (JSON)' }), configText, h('p', { class: 'help', id: `${configId}-help`, text: 'The module\'s createConnector(config) receives this object. It was submitted without a config schema.' })),
      h('h3', { text: 'Credentials' }),
      authArea,
      h('div', { class: 'field inline-field' }, h('label', { for: phase.id, class: 'label', text: 'Trial phase' }), phase),
    );
    if (configText) configText.addEventListener('change', () => void describe());

    return {
      element: card,
      describe,
      phase: () => phase.value,
      /** { config, credentials, privateOrigins } or null after showing what to fix. */
      async read() {
        summary.hidden = true;
        const read = readConfig(true);
        if (read.errors.size > 0) {
          summary.hidden = false;
          summary.textContent = `Fix the config: ${[...read.errors].map(([path, message]) => `${path}: ${message}`).join(' ')}`;
          if (config) config.focusFirstError();
          else configText.focus();
          return null;
        }
        if (!(await describe(true))) return null;
        const secrets = credentials.read();
        if (secrets.errors.size > 0) {
          credentials.focusFirstError();
          return null;
        }
        return { config: read.value, credentials: secrets.values, privateOrigins: originBoxes.filter((item) => item.box.checked).map((item) => item.origin) };
      },
      showError(error) {
        if (error instanceof ApiError && error.code === 'invalid_config' && Array.isArray(error.details.fields) && credentials) credentials.showErrors(error.details.fields.map(String), 'Needed by the module.');
        summary.hidden = false;
        summary.textContent = error.message;
      },
      clearSecrets: () => credentials?.clear(),
    };
  }

  /* ---------------------------------------------------------------- one module */

  async function show(sha) {
    clearTimeout(current?.crawlTimer);
    if (!sha) {
      current = null;
      replace(
        detail,
        h(
          'div',
          { class: 'panel' },
          views.length === 0
            ? emptyState('No connector submitted yet', 'Agents submit modules with POST /v1/connectors or the MCP tool trial_connector, people with inseam connector submit. Each appears here with its trial report, for a person to approve.')
            : emptyState('Choose a module', 'Its trial report, approval and install are shown here.'),
        ),
      );
      markCurrent();
      return;
    }
    if (current?.sha !== sha) {
      replace(detail, h('p', { class: 'muted pad' }, spinner(), ' Loading…'));
      current = { sha, settings: null, crawlTimer: null };
    }
    markCurrent();
    let view;
    let newest = null;
    try {
      view = await api.get(`/v1/connectors/${sha}`);
      if (view.trials[0]) newest = await api.get(`/v1/trials/${encodeURIComponent(view.trials[0].id)}`);
    } catch (error) {
      replace(detail, errorBlock(error, 'This module could not be loaded'));
      return;
    }
    if (disposed || current?.sha !== sha) return;
    current.settings ??= settingsCard(view);
    const deleteTrial = (trial) => {
      // An approved trial and the platform's check of a host's writes stay: each is the record of what a host relies on.
      if (trial.approvedAt !== null || trial.host) return null;
      const remove = button('Delete', { kind: 'ghost', iconName: 'cross', 'data-delete-trial': trial.id, 'aria-label': `Delete the ${trial.passed ? 'passed' : 'failed'} trial of ${when(trial.createdAt)}` });
      remove.addEventListener('click', async () => {
        remove.disabled = true;
        try {
          await api.delete(`/v1/trials/${encodeURIComponent(trial.id)}`);
          toast('The trial was deleted.');
          await refresh(sha);
        } catch (error) {
          toast(error.message, 'error');
          remove.disabled = false;
        }
      });
      return remove;
    };
    const settings = current.settings;

    const runTrial = button('Run trial', { kind: 'primary', iconName: 'shield' });
    runTrial.addEventListener('click', async () => {
      const values = await settings.read();
      if (values === null) return;
      runTrial.disabled = true;
      replace(runTrial, spinner('Running'), h('span', { text: ' Running the eleven checks…' }));
      try {
        const outcome = await api.post(`/v1/connectors/${sha}/trial`, {
          config: values.config,
          credentials: values.credentials,
          phase: settings.phase(),
          ...(values.privateOrigins.length === 0 ? {} : { allowPrivateOrigins: values.privateOrigins }),
        });
        toast(outcome.report.passed ? 'The trial passed.' : 'The trial failed; see the report.', outcome.report.passed ? 'neutral' : 'error');
        await refresh(sha);
      } catch (error) {
        settings.showError(error);
        replace(runTrial, icon('shield'), h('span', { text: 'Run trial' }));
        runTrial.disabled = false;
      }
    });

    const head = h(
      'header',
      { class: 'module-head' },
      h('div', {}, h('h2', { class: 'title', text: view.name ?? 'Unnamed module' }), h('p', { class: 'mono small muted', text: `sha256 ${view.sha}` })),
      h('div', { class: 'row gap-sm' }, view.kind ? chip(view.kind, 'neutral', { class: 'mono' }) : null, stateChip(view)),
    );
    const facts = h(
      'dl',
      { class: 'props compact' },
      h('dt', { text: 'Submitted' }),
      h('dd', { text: `${when(view.submittedAt)} by ${view.submittedBy}` }),
      h('dt', { text: 'Size' }),
      h('dd', { text: plural(view.bytes, 'byte') }),
      view.installation ? [h('dt', { text: 'Installed' }), h('dd', { text: `as kind ${view.installation.kind} in ${view.installation.network}, ${when(view.installation.installedAt)} by ${view.installation.installedBy}` })] : null,
    );

    replace(
      detail,
      head,
      facts,
      newest ? [reportCard(newest), newest.approvedAt === null ? h('div', { class: 'row gap-sm' }, deleteTrial(newest)) : null] : h('section', { class: 'card' }, h('h2', { text: 'No trial yet' }), h('p', { class: 'muted', text: 'Run the trial with the host it will connect to: the eleven checks of the conformance trial run against it behind the egress gate.' })),
      view.trials.length > 1
        ? h('details', { class: 'card earlier' }, h('summary', { text: `Earlier trials (${view.trials.length - 1})` }), h('ul', { class: 'plain' }, view.trials.slice(1).map((trial) => h('li', { class: 'small', 'data-trial': trial.id }, chip(trial.passed ? 'passed' : 'failed', trial.passed ? 'green' : 'red'), ` ${trial.phase} · ${when(trial.createdAt)}${trial.host ? ` · writes of host ${trial.host}` : ''}${trial.approvedBy ? ` · approved by ${trial.approvedBy}` : ''} `, deleteTrial(trial)))))
        : null,
      settings.element,
      h('div', { class: 'row gap actions-row' }, runTrial),
      approvalCard(view, newest),
      installCard(view, settings),
    );
  }

  function approvalCard(view, newest) {
    const card = h('section', { class: 'card approval', 'aria-labelledby': 'approval-title' }, h('h2', { id: 'approval-title', text: 'Approval' }));
    const approvedTrial = view.trials.find((trial) => trial.approvedAt !== null);
    if (view.trials.length > 0) card.append(phasesList(view.phases));
    if (view.confirmation) {
      const id = uid('confirm');
      const input = h('input', { id, type: 'text', autocomplete: 'off', spellcheck: 'false', class: 'mono', 'aria-describedby': `${id}-help ${id}-error` });
      const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
      const approve = button('Approve', { kind: 'primary', iconName: 'check', type: 'submit' });
      const form = h(
        'form',
        { class: 'confirm-form', novalidate: true },
        h('p', {}, 'Approving lets this exact module (sha ', h('code', { text: shortSha(view.sha) }), `) run as kind ${newest?.kind ?? view.kind} and reach `, (newest?.origins ?? []).length === 0 ? 'no origin' : h('span', {}, (newest?.origins ?? []).map((origin, index) => [index > 0 ? ', ' : '', h('code', { text: origin })]))),
        (newest?.readEndpoints ?? []).length > 0
          ? h('p', { 'data-read-endpoints': '' }, 'It declares these POST requests as reads: while it may only read, the gate lets through exactly ', h('span', {}, newest.readEndpoints.map((endpoint, index) => [index > 0 ? ', ' : '', h('code', { text: endpoint })])), '.')
          : null,
        h('p', { id: `${id}-help` }, 'To confirm, type ', h('code', { class: 'phrase', text: view.confirmation }), ' below.'),
        h('div', { class: 'field' }, h('label', { for: id, class: 'label', text: 'Confirmation phrase' }), input, error),
        approve,
      );
      form.addEventListener('submit', async (event) => {
        event.preventDefault();
        approve.disabled = true;
        try {
          await api.post(`/v1/connectors/${view.sha}/approve`, { confirm: input.value });
          toast(`Module ${shortSha(view.sha)} approved.`);
          await refresh(view.sha);
        } catch (failure) {
          error.hidden = false;
          error.textContent = failure.message;
          input.setAttribute('aria-invalid', 'true');
          input.focus();
          approve.disabled = false;
        }
      });
      card.append(form);
    } else if (approvedTrial) {
      card.append(h('p', { class: 'ok-text' }, icon('check'), ` Approved by ${approvedTrial.approvedBy} ${ago(approvedTrial.approvedAt)}.`));
    } else {
      card.append(h('p', { class: 'muted', text: newest && !newest.passed ? 'The newest trial failed: fix the module (a fixed module is a new submission) or run the trial again.' : 'A passed trial comes first; then a person approves it here by typing its phrase.' }));
    }
    return card;
  }

  function installCard(view, settings) {
    const approved = view.trials.some((trial) => trial.approvedAt !== null);
    const card = h('section', { class: 'card install', 'aria-labelledby': 'install-title' }, h('h2', { id: 'install-title', text: 'Install' }));
    if (!approved) {
      card.append(h('p', { class: 'muted', text: 'Installing needs an approval of this exact module in this network.' }));
      return card;
    }
    const slugId = uid('host');
    const labelId = uid('label');
    const slug = h('input', { id: slugId, type: 'text', class: 'mono', autocomplete: 'off', spellcheck: 'false', required: true, 'aria-describedby': `${slugId}-error` });
    const label = h('input', { id: labelId, type: 'text', autocomplete: 'off' });
    const error = h('p', { class: 'field-error', id: `${slugId}-error`, hidden: true });
    const install = button('Install and crawl', { kind: 'primary', iconName: 'download', type: 'submit' });
    const progress = h('div', { class: 'crawl-follow', role: 'status', 'aria-live': 'polite' });
    const writesOutcome = h('div', { class: 'writes-outcome', role: 'status', 'aria-live': 'polite' });
    // A module that declares writes: writable only on a scratch prefix, where the platform runs the install-phase trial first.
    const writableId = uid('writable');
    const prefixId = uid('scratch');
    const writable = h('input', { type: 'checkbox', id: writableId });
    const prefix = h('input', { id: prefixId, type: 'text', class: 'mono', autocomplete: 'off', spellcheck: 'false', disabled: true, 'aria-describedby': `${prefixId}-help ${prefixId}-error` });
    const prefixError = h('p', { class: 'field-error', id: `${prefixId}-error`, hidden: true });
    writable.addEventListener('change', () => {
      prefix.disabled = !writable.checked;
    });
    const writesFields = view.phases.declaresWrites
      ? h(
          'fieldset',
          { class: 'fieldset' },
          h('legend', { text: 'Writes' }),
          h('p', { class: 'help', text: 'The module declares writes. A writable host is added read only; the install-phase trial then runs on it, and writes are turned on only if it passes.' }),
          h('div', { class: 'check-row' }, writable, h('label', { for: writableId, text: 'Make the host writable' })),
          h('div', { class: 'field' }, h('label', { for: prefixId, class: 'label', text: 'Scratch prefix' }), prefix, prefixError, h('p', { class: 'help', id: `${prefixId}-help`, text: 'A folder on the host where the trial may create, replace and delete objects of its own.' })),
        )
      : null;
    const form = h(
      'form',
      { class: 'install-form', novalidate: true },
      h('p', { class: 'muted small', text: 'Adds a host of this kind with the settings above, then starts its first crawl.' }),
      h('div', { class: 'grid-2' }, h('div', { class: 'field' }, h('label', { for: slugId, class: 'label is-required', text: 'Host slug' }), slug, error), h('div', { class: 'field' }, h('label', { for: labelId, class: 'label', text: 'Label' }), label)),
      writesFields,
      install,
      writesOutcome,
      progress,
    );
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const problem = slugProblem(slug.value);
      error.hidden = problem === null;
      error.textContent = problem ?? '';
      if (problem) {
        slug.setAttribute('aria-invalid', 'true');
        slug.focus();
        return;
      }
      slug.removeAttribute('aria-invalid');
      const wantsWrites = writesFields !== null && writable.checked;
      prefixError.hidden = !wantsWrites || prefix.value.trim() !== '';
      prefixError.textContent = prefixError.hidden ? '' : 'Name the folder the trial may write in.';
      if (!prefixError.hidden) {
        prefix.setAttribute('aria-invalid', 'true');
        prefix.focus();
        return;
      }
      prefix.removeAttribute('aria-invalid');
      const values = await settings.read();
      if (values === null) return;
      install.disabled = true;
      if (wantsWrites) replace(install, spinner('Installing'), h('span', { text: ' Installing; the install-phase trial runs on the host…' }));
      try {
        const outcome = await api.post(`/v1/connectors/${view.sha}/install`, {
          host: slug.value,
          config: values.config,
          ...(Object.keys(values.credentials).length === 0 ? {} : { credentials: values.credentials }),
          ...(values.privateOrigins.length === 0 ? {} : { privateOrigins: values.privateOrigins }),
          ...(label.value.trim() === '' ? {} : { label: label.value.trim() }),
          ...(wantsWrites ? { writable: true, scratchPrefix: prefix.value.trim() } : {}),
        });
        settings.clearSecrets();
        replace(install, icon('download'), h('span', { text: 'Installed' }));
        if (outcome.writes) {
          replace(
            writesOutcome,
            h('div', { class: outcome.writes.writable ? 'alert' : 'alert alert-error', 'data-writable': String(outcome.writes.writable) }, h('strong', { text: outcome.writes.writable ? 'Writable' : 'Read only' }), h('pre', { class: 'check-detail', text: outcome.writes.message })),
          );
        }
        toast(`Installed: host ${outcome.host.slug} added${outcome.writes ? (outcome.writes.writable ? ', writable' : ', read only (the install-phase trial failed)') : ''}; its first crawl is running.`, outcome.writes && !outcome.writes.writable ? 'error' : 'neutral');
        follow(outcome.host, outcome.crawl, progress);
        void loadList();
      } catch (failure) {
        error.hidden = false;
        error.textContent = failure.message;
        replace(install, icon('download'), h('span', { text: 'Install and crawl' }));
        install.disabled = false;
      }
    });
    card.append(form);
    return card;
  }

  /** Follows the installed host's first crawl until it ends. */
  function follow(host, crawl, area) {
    const render = (status) => {
      const queued = status.state === 'queued';
      const done = !(status.running || queued || status.progress?.state === 'running');
      replace(
        area,
        h(
          'div',
          { class: 'crawl-card', 'data-crawl-state': queued ? 'queued' : (status.progress?.state ?? 'none') },
          h('div', { class: 'row gap space' }, h('strong', { text: done ? `First crawl of ${host.slug}: ${status.progress?.state ?? 'not started'}` : queued ? `First crawl of ${host.slug}: waiting for a worker…` : `Crawling ${host.slug}…` }), h('a', { href: `#/browse/${encodeURIComponent(host.slug)}/`, class: 'btn btn-ghost' }, icon('browse'), h('span', { text: 'Browse' }))),
          done && status.progress?.state === 'completed' ? progressBar(1, `Crawl of ${host.slug}`) : null,
          crawlSummary(status),
        ),
      );
      if (!done && !disposed) current.crawlTimer = setTimeout(() => void poll(), CRAWL_POLL_MS);
    };
    const poll = async () => {
      try {
        render(await api.get(hostPath(host.network, host.slug, '/crawl')));
      } catch (error) {
        replace(area, errorBlock(error, 'The crawl could not be followed'));
      }
    };
    render(crawl);
  }

  async function refresh(sha) {
    await loadList();
    await show(sha);
  }

  function markCurrent() {
    for (const item of list.querySelectorAll('.module-item')) {
      if (item.dataset.sha === current?.sha) item.setAttribute('aria-current', 'true');
      else item.removeAttribute('aria-current');
    }
  }

  const started = loadList().then(() => show(params.rest));
  return {
    element,
    update({ rest }) {
      void started.then(() => show(rest));
      return true;
    },
    dispose() {
      disposed = true;
      clearTimeout(current?.crawlTimer);
    },
  };
}
