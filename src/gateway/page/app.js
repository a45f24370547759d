// The fleet page's script: no framework, no build step, nothing fetched but the gateway's own
// JSON. Every data call carries the gateway token, asked once and kept in sessionStorage (this tab
// only), and only when the gateway wants one: a gateway started without a token marks its page
// so (<html data-token="none">), and the page never asks. Data reaches the page through
// textContent and DOM attributes only, never as HTML. Start and Stop buttons show only when the
// gateway says this token may use them (/v1/fleet/rights).
// node-card.js draws the cards and the queue's line (el, nodeCard, queueText); force-confirm.js
// asks before a forced start or stop (forceConfirm). Both load first.
/* global el, forceConfirm, nodeCard, queueText */
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
  chatForm: $('chat-form'),
  model: $('model'),
  prompt: $('prompt'),
  maxTokens: $('max-tokens'),
  send: $('send'),
  cancel: $('cancel'),
  reply: $('reply'),
  chatError: $('chat-error'),
};

let timer;
let chatAbort;
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
    const [fleet, stats, rights] = await Promise.all([
      call('/v1/fleet').then((r) => r.json()),
      call('/v1/fleet/stats').then((r) => r.json()),
      call('/v1/fleet/rights').then((r) => r.json()),
    ]);
    const byName = new Map(stats.nodes.map((entry) => [entry.name, entry]));
    const focused = document.activeElement && document.activeElement.getAttribute('aria-label');
    ui.nodes.replaceChildren(
      ...fleet.nodes.map((node) => {
        const entry = byName.get(node.name) || {};
        return nodeCard(
          node,
          entry.stats,
          entry.error,
          rights.operator === true ? control : undefined,
        );
      }),
    );
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

function showConnected(connected) {
  ui.login.hidden = connected;
  ui.fleet.hidden = !connected;
  ui.chat.hidden = !connected;
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
    ui.loginError.textContent = 'Enter the gateway token.';
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

/** Reads an OpenAI-style SSE stream, appending each delta's content to the reply as it arrives. */
async function streamReply(reply) {
  const reader = reply.body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) {
      return;
    }
    buffered += decoder.decode(value, { stream: true });
    let end;
    while ((end = buffered.indexOf('\n\n')) >= 0) {
      const event = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      for (const line of event.split('\n')) {
        if (!line.startsWith('data:')) {
          continue;
        }
        const data = line.slice(5).trim();
        if (data === '[DONE]') {
          return;
        }
        const parsed = JSON.parse(data);
        if (parsed.error) {
          throw new Error(parsed.error.message || 'the gateway reported an error');
        }
        const choice = parsed.choices && parsed.choices[0];
        const text = choice && ((choice.delta && choice.delta.content) || choice.text);
        if (text) {
          ui.reply.textContent += text;
        }
      }
    }
  }
}

ui.chatForm.addEventListener('submit', async (event) => {
  event.preventDefault();
  ui.reply.textContent = '';
  ui.reply.removeAttribute('data-done');
  ui.chatError.textContent = '';
  ui.send.disabled = true;
  ui.cancel.disabled = false;
  chatAbort = new AbortController();
  try {
    const reply = await call('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        model: ui.model.value,
        stream: true,
        max_tokens: Number(ui.maxTokens.value) || 128,
        messages: [{ role: 'user', content: ui.prompt.value }],
      }),
      signal: chatAbort.signal,
    });
    await streamReply(reply);
    ui.reply.setAttribute('data-done', 'true');
  } catch (error) {
    if (error.name !== 'AbortError') {
      if (error instanceof Unauthorized) {
        handleError(error);
      } else {
        ui.chatError.textContent = error.message;
      }
    }
  } finally {
    ui.send.disabled = false;
    ui.cancel.disabled = true;
  }
});

ui.cancel.addEventListener('click', () => chatAbort && chatAbort.abort());

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
