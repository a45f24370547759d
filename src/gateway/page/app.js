// The fleet page's script: no framework, no build step, nothing fetched but the gateway's own
// JSON. Every data call carries the gateway token, asked once and kept in sessionStorage (this tab
// only), and only when the gateway wants one: a gateway started without a token marks its page
// so (<html data-token="none">), and the page never asks. Data reaches the page through
// textContent and DOM attributes only, never as HTML. Start and Stop buttons show only when the
// gateway says this token may use them (/v1/fleet/rights).
// node-card.js draws the cards and the queue's line (el, nodeCard, queueText); force-confirm.js
// asks before a forced start or stop (forceConfirm); charts.js and history-panels.js draw the
// last 10 minutes (GET /v1/fleet/history), usage-tables.js the usage and activity. All load first;
// chat.js loads after and uses call.
/* global activityRows, el, forceConfirm, groupPanels, historyEnd, modelPanels, nodeCard, nodeCharts,
   queueText, usageRows */
/* exported call, handleError, Unauthorized */
'use strict';

const TOKEN_KEY = 'svc-gateway-token';
const REFRESH_MS = 2000;

const $ = (id) => document.getElementById(id);
const ui = {
  status: $('status'),
  forget: $('forget'),
  login: $('login'),
  token: $('token'),
  loginError: $('login-error'),
  fleet: $('fleet'),
  nodes: $('nodes'),
  updated: $('updated'),
  queue: $('queue'),
  chat: $('chat'),
  models: $('models'),
  modelsNone: $('models-none'),
  groupsSection: $('groups-section'),
  groups: $('groups'),
  usageRows: $('usage-rows'),
  usageSince: $('usage-since'),
  activityNote: $('activity-note'),
  activityWrap: $('activity-wrap'),
  activityRows: $('activity-rows'),
  model: $('model'),
  extra: document.querySelectorAll('[data-connected]'),
};

let timer;
/** True while the gateway answers without a token (it was started without one). */
let tokenless = false;

function token() {
  return sessionStorage.getItem(TOKEN_KEY);
}

function connected() {
  return tokenless || Boolean(token());
}

class Unauthorized extends Error {}

/** A refusal from the gateway, with its HTTP status. */
class Refused extends Error {
  constructor(message, status) {
    super(message);
    this.status = status;
  }
}

/** A gateway call with the token; throws Unauthorized on 401 and the gateway's message otherwise. */
async function call(path, init = {}) {
  const reply = await fetch(path, {
    ...init,
    headers: {
      ...(init.headers || {}),
      ...(token() ? { authorization: `Bearer ${token()}` } : {}),
    },
  });
  if (reply.status === 401) {
    throw new Unauthorized('the gateway refused the token');
  }
  if (!reply.ok) {
    let message = `HTTP ${reply.status}`;
    try {
      const body = await reply.json();
      message = (body.error && (body.error.message || body.error)) || message;
    } catch {
      // not JSON
    }
    throw new Refused(message, reply.status);
  }
  return reply;
}

async function control(name, action, button, force = false) {
  button?.toggleAttribute('disabled', true);
  forceConfirm.close();
  ui.status.textContent = `${action === 'start' ? 'Starting' : 'Stopping'} ${name}…`;
  const path = `/v1/fleet/nodes/${encodeURIComponent(name)}/${action}${force ? '?force=true' : ''}`;
  try {
    await call(path, { method: 'POST' });
    ui.status.textContent = `${name}: ${action === 'start' ? 'started' : 'stopped'}`;
  } catch (error) {
    handleError(error, `${name}: could not ${action}: `);
    if (!force && error instanceof Refused && error.status === 409) {
      // docs/design.md D28, D33: busy (node_busy, group_busy); forced only once the operator
      // confirms.
      forceConfirm.ask(name, action, error.message, () => control(name, action, undefined, true));
    }
  }
  await refresh();
}

function handleError(error, prefix = '') {
  if (error instanceof Unauthorized) {
    signOut('The gateway refused the token; enter it again.');
    return;
  }
  ui.status.textContent = `${prefix}${error.message}`;
}

async function refreshModels() {
  const reply = await (await call('/v1/models')).json();
  const chosen = ui.model.value;
  const ids = reply.data.map((entry) => entry.id);
  if (ids.join('\n') === Array.from(ui.model.options, (o) => o.value).join('\n')) {
    return;
  }
  ui.model.replaceChildren(...ids.map((id) => el('option', { value: id }, id)));
  if (ids.includes(chosen)) {
    ui.model.value = chosen;
  }
}

async function refresh() {
  clearTimeout(timer);
  if (!connected()) {
    return;
  }
  try {
    const json = (path) => call(path).then((r) => r.json());
    const [fleet, stats, rights, history, usage] = await Promise.all([
      json('/v1/fleet'),
      json('/v1/fleet/stats'),
      json('/v1/fleet/rights'),
      json('/v1/fleet/history'),
      json('/v1/fleet/usage'),
    ]);
    // docs/design.md D29: the activity is the operator's; another token is told so, not asked.
    const activity = rights.operator === true ? await json('/v1/fleet/activity?limit=20') : null;
    const end = historyEnd(history);
    const byName = new Map(stats.nodes.map((entry) => [entry.name, entry]));
    const focused = document.activeElement && document.activeElement.getAttribute('aria-label');
    ui.nodes.replaceChildren(
      ...fleet.nodes.map((node) => {
        const entry = byName.get(node.name) || {};
        const card = nodeCard(
          node,
          entry.stats,
          entry.error,
          rights.operator === true ? control : undefined,
        );
        // A node that is not running shows no engine figures (its GPU memory), only ours.
        const live = node.state === 'running' ? entry.stats : undefined;
        card.querySelector('dl').after(nodeCharts(node.name, history, live, end));
        return card;
      }),
    );
    showTables(history, end, usage, activity);
    // Keep keyboard focus on the same control across a refresh.
    if (focused) {
      const again = Array.from(ui.nodes.querySelectorAll('button')).find(
        (b) => b.getAttribute('aria-label') === focused,
      );
      if (again) {
        again.focus();
      }
    }
    ui.updated.textContent = `Updated ${new Date().toLocaleTimeString()}`;
    ui.queue.textContent = queueText(fleet);
    if (ui.status.textContent === 'Not connected' || ui.status.textContent === 'Connecting…') {
      ui.status.textContent = `Connected: ${fleet.nodes.length} nodes`;
    }
    await refreshModels();
  } catch (error) {
    handleError(error);
  }
  if (connected()) {
    timer = setTimeout(refresh, REFRESH_MS);
  }
}

/** The model and group panels, the usage table, and the activity or the word that hides it. */
function showTables(history, end, usage, activity) {
  ui.models.replaceChildren(...modelPanels(history, end));
  ui.modelsNone.hidden = history.models.length > 0;
  ui.groups.replaceChildren(...groupPanels(history));
  ui.groupsSection.hidden = history.groups.length === 0;
  ui.usageRows.replaceChildren(...usageRows(usage));
  ui.usageSince.textContent = `Counted since ${new Date(usage.since).toLocaleString()}`;
  ui.activityNote.hidden = activity !== null;
  ui.activityWrap.hidden = activity === null;
  ui.activityRows.replaceChildren(...(activity === null ? [] : activityRows(activity)));
}

function showConnected(connected) {
  ui.login.hidden = connected;
  ui.fleet.hidden = !connected;
  ui.chat.hidden = !connected;
  for (const section of ui.extra) {
    section.hidden = !connected;
  }
  if (!connected) {
    ui.groupsSection.hidden = true;
  }
  ui.forget.hidden = !connected || tokenless;
}

function signOut(message) {
  tokenless = false;
  sessionStorage.removeItem(TOKEN_KEY);
  clearTimeout(timer);
  showConnected(false);
  ui.status.textContent = 'Not connected';
  ui.loginError.textContent = message || '';
  ui.token.focus();
}

ui.login.addEventListener('submit', (event) => {
  event.preventDefault();
  const value = ui.token.value.trim();
  if (!value) {
    ui.loginError.textContent = 'Enter a token.';
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, value);
  ui.token.value = '';
  ui.loginError.textContent = '';
  ui.status.textContent = 'Connecting…';
  showConnected(true);
  refresh();
});

ui.forget.addEventListener('click', () => signOut());

/** Without a kept token: asks the gateway whether it wants one before showing the form. */
function start() {
  if (token()) {
    showConnected(true);
    ui.status.textContent = 'Connecting…';
    refresh();
    return;
  }
  // The gateway marks its page when it was started without a token (fleet-page.ts).
  tokenless = document.documentElement.dataset.token === 'none';
  showConnected(tokenless);
  if (tokenless) {
    ui.status.textContent = 'Connecting…';
    refresh();
  }
}

start();
