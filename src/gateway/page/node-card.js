// The fleet page's node cards: one card per node from its /v1/fleet row and /v1/fleet stats, a
// sparkline per reading, and tokens/s from successive readings; and the queue's line. A classic
// script loaded before app.js, which calls nodeCard, queueText and el; data reaches the page as
// text and attributes, never HTML.
/* exported el, nodeCard, queueText */
'use strict';

const HISTORY_POINTS = 40;
const SVG_NS = 'http://www.w3.org/2000/svg';

/** Generation-token readings per node, for tokens/s: [{at, tokens}]. */
const lastTokens = new Map();

function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    node.setAttribute(name, value);
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function ago(iso) {
  if (!iso) {
    return 'never';
  }
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) {
    return `${seconds}s ago`;
  }
  if (seconds < 3600) {
    return `${Math.round(seconds / 60)}m ago`;
  }
  return `${Math.round(seconds / 3600)}h ago`;
}

/** A sparkline of 0–100 values, with its current reading beside it. */
function meter(label, values) {
  const row = el('div', { class: 'meter' });
  row.append(el('span', {}, label));
  const svg = document.createElementNS(SVG_NS, 'svg');
  svg.setAttribute('viewBox', `0 0 ${HISTORY_POINTS - 1} 100`);
  svg.setAttribute('preserveAspectRatio', 'none');
  svg.setAttribute('role', 'img');
  const recent = values.slice(-HISTORY_POINTS);
  svg.setAttribute('aria-label', `${label} history, ${recent.length} readings`);
  const line = document.createElementNS(SVG_NS, 'polyline');
  const offset = HISTORY_POINTS - recent.length;
  line.setAttribute(
    'points',
    recent.map((value, index) => `${index + offset},${100 - Math.min(100, value)}`).join(' '),
  );
  svg.append(line);
  row.append(svg);
  const current = recent.at(-1);
  row.append(
    el('span', { class: 'value' }, current === undefined ? '–' : `${Math.round(current)}%`),
  );
  return row;
}

function tokensPerSecond(name, stats) {
  const tokens = stats && stats.tokens && stats.tokens.generationTokens;
  if (tokens === undefined) {
    lastTokens.delete(name);
    return undefined;
  }
  const now = Date.now();
  const previous = lastTokens.get(name);
  lastTokens.set(name, { at: now, tokens });
  if (!previous || now <= previous.at || tokens < previous.tokens) {
    return undefined;
  }
  return (tokens - previous.tokens) / ((now - previous.at) / 1000);
}

/** `busy/slots` of a running node (`1/2`), `?` for a side it does not report; else undefined. */
function capacity(node) {
  if (node.state !== 'running' || (node.slots === undefined && node.busy === undefined)) {
    return undefined;
  }
  const side = (value) => (value === undefined ? '?' : String(value));
  return `${side(node.busy)}/${side(node.slots)}`;
}

/** The /v1/fleet reply's queue as a line (`Queued: gemma 2, qwen 1`), or '' when none waits. */
function queueText(fleet) {
  const waiting = Object.entries(fleet.queued || {}).filter(([, count]) => count > 0);
  return waiting.length === 0
    ? ''
    : `Queued: ${waiting.map(([model, count]) => `${model} ${count}`).join(', ')}`;
}

/**
 * One node's card; its Start/Stop button calls `onControl(name, action, button)`. Without
 * `onControl` (a token without operator rights) the card has no button. An upstream node
 * (docs/design.md D30) is a plain card: a badge, its state and the names it lists; svc never
 * starts or stops it, so it has no button and no engine figures.
 */
function nodeCard(node, stats, statsError, onControl) {
  const card = el('li', { class: 'node', 'data-node': node.name });
  const head = el('header');
  head.append(el('h3', {}, node.name));
  head.append(
    el('span', { class: `state state-${node.state}`, 'data-field': 'state' }, node.state),
  );
  const upstream = node.kind === 'upstream';
  if (upstream) {
    head.append(el('span', { class: 'kind', 'data-field': 'kind' }, 'upstream'));
  }
  card.append(head);

  const facts = el('dl', { class: 'facts' });
  const fact = (term, value, field) => {
    facts.append(el('dt', {}, term));
    facts.append(el('dd', { 'data-field': field }, value));
  };
  if (upstream) {
    fact('Models', (node.models || []).join(', ') || '–', 'model');
  } else {
    fact('Ready', node.ready || (node.state === 'running' ? 'unknown' : '–'), 'ready');
    fact('Model', node.servedName || node.model || node.wakeableModel || '–', 'model');
  }
  fact('Last active', ago(node.lastActiveAt), 'last-active');
  const busy = capacity(node);
  if (busy !== undefined) {
    fact('Busy', busy, 'busy');
  }
  if (node.inFlight !== undefined) {
    fact('In flight here', String(node.inFlight), 'in-flight');
  }
  if (node.group) {
    fact('Group', node.group, 'group');
  }
  if (node.idleStopAt) {
    fact('Idle stop', new Date(node.idleStopAt).toLocaleTimeString(), 'idle-stop');
  }
  const rate = tokensPerSecond(node.name, stats);
  fact('Engine tokens/s', rate === undefined ? '–' : rate.toFixed(1), 'tokens-per-second');
  if (node.detail) {
    fact('Problem', node.detail, 'detail');
  }
  // A local node whose next start would fail: its Svcfile or model file, found at start-up.
  if (Array.isArray(node.problems) && node.problems.length > 0) {
    fact('Cannot start', node.problems.join('\n'), 'problems');
  }
  card.append(facts);

  // A node that is not running shows no engine figures, not the last ones it had.
  const live = node.state === 'running' ? stats : undefined;
  const history = (live && live.history) || [];
  const cpu = history.filter((s) => s.c !== undefined).map((s) => s.c);
  const ram = history.filter((s) => s.m !== undefined).map((s) => s.m);
  if (cpu.length === 0 && live && live.cpu) {
    cpu.push(live.cpu.utilization);
  }
  if (ram.length === 0 && live && live.memory && live.memory.total > 0) {
    ram.push((live.memory.used / live.memory.total) * 100);
  }
  if (cpu.length > 0) {
    card.append(meter('CPU', cpu));
  }
  if (ram.length > 0) {
    card.append(meter('RAM', ram));
  }
  const gpuIndexes = new Set();
  for (const sample of history) {
    for (const gpu of sample.g || []) {
      gpuIndexes.add(gpu.i);
    }
  }
  for (const index of gpuIndexes) {
    const series = history.flatMap((s) => (s.g || []).filter((g) => g.i === index).map((g) => g.u));
    card.append(meter(`GPU ${index}`, series));
  }
  if (statsError) {
    card.append(el('p', { class: 'hint' }, `readings: ${statsError}`));
  }

  if (!onControl || upstream) {
    return card;
  }
  const actions = el('div', { class: 'row' });
  const running = node.state === 'running';
  const button = el(
    'button',
    { type: 'button', 'aria-label': `${running ? 'Stop' : 'Start'} ${node.name}` },
    running ? 'Stop' : 'Start',
  );
  button.addEventListener('click', () => onControl(node.name, running ? 'stop' : 'start', button));
  actions.append(button);
  card.append(actions);
  return card;
}
