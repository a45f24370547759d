// The fleet page's pictures of the last 10 minutes, from GET /v1/fleet/history (kept by the
// gateway: tokens/s and requests in flight per node, queue depth and wait per model, each group's
// holder and swaps) and each node's own readings in GET /v1/fleet/stats (GPU memory per GPU).
// Every chart is drawn by charts.js, which loads first.
/* global el, lineChart */
/* exported groupPanels, historyEnd, modelPanels, nodeCharts */
'use strict';

/** The newest sample time in the history: the right end of every chart's time axis. */
function historyEnd(history) {
  let end = 0;
  for (const series of [...history.nodes, ...history.models]) {
    end = Math.max(end, ...series.samples.map((sample) => sample.t));
  }
  return end || Math.floor(Date.now() / 1000);
}

const series = (samples, field) => samples.map((sample) => [sample.t, sample[field]]);

/** GPU memory per GPU from the node's own history (`g[].m`, percent), when it has a GPU. */
function gpuMemory(stats) {
  const byGpu = new Map();
  for (const sample of (stats && stats.history) || []) {
    for (const gpu of sample.g || []) {
      if (gpu.m !== undefined) {
        byGpu.set(gpu.i, [...(byGpu.get(gpu.i) || []), [sample.t, gpu.m]]);
      }
    }
  }
  return byGpu;
}

/** The charts of one node's card. */
function nodeCharts(name, history, stats, end) {
  const entry = history.nodes.find((node) => node.name === name);
  const box = el('div', { class: 'charts' });
  if (entry) {
    box.append(
      lineChart({
        key: 'tokens',
        title: 'Tokens/s',
        unit: '',
        points: series(entry.samples, 'tokensPerSecond'),
        end,
        floor: 10,
      }),
      lineChart({
        key: 'in-flight',
        title: 'In flight',
        unit: '',
        points: series(entry.samples, 'inFlight'),
        end,
        floor: 2,
      }),
    );
  }
  for (const [index, points] of gpuMemory(stats)) {
    box.append(
      lineChart({
        key: `gpu-memory-${index}`,
        title: `GPU ${index} memory`,
        unit: '%',
        points,
        end,
        top: 100,
      }),
    );
  }
  return box;
}

/** One card per model with a queue: its depth and its longest wait per interval. */
function modelPanels(history, end) {
  return history.models.map((entry) => {
    const card = el('li', { class: 'node', 'data-model': entry.model });
    card.append(el('h3', {}, entry.model));
    const box = el('div', { class: 'charts' });
    box.append(
      lineChart({
        key: 'queued',
        title: 'Queued',
        unit: '',
        points: series(entry.samples, 'queued'),
        end,
        floor: 2,
      }),
      lineChart({
        key: 'wait',
        title: 'Longest wait',
        unit: 'ms',
        points: series(entry.samples, 'waitMs'),
        end,
        floor: 1000,
      }),
    );
    card.append(box);
    return card;
  });
}

function clock(iso) {
  return new Date(iso).toLocaleTimeString();
}

/** One card per group: each member, the one holding it marked, and its last swaps. */
function groupPanels(history) {
  return history.groups.map((group) => {
    const card = el('li', { class: 'node', 'data-group': group.name });
    card.append(el('h3', {}, `Group ${group.name}`));
    const members = el('ul', { class: 'members', 'data-field': 'members' });
    for (const member of group.members) {
      const holds = member === group.holder;
      const item = el('li', { class: holds ? 'holder' : 'member', 'data-member': member });
      item.append(el('span', { class: 'dot', 'aria-hidden': 'true' }, holds ? '●' : '○'));
      item.append(el('span', {}, holds ? `${member} (holds the group)` : member));
      members.append(item);
    }
    card.append(members);
    card.append(el('h4', {}, 'Last swaps'));
    if (group.swaps.length === 0) {
      card.append(el('p', { class: 'hint', 'data-field': 'swaps' }, 'none yet'));
    } else {
      const swaps = el('ol', { class: 'swaps', 'data-field': 'swaps' });
      for (const swap of group.swaps) {
        swaps.append(el('li', {}, `${clock(swap.at)}: ${swap.stopped} stopped`));
      }
      card.append(swaps);
    }
    return card;
  });
}
