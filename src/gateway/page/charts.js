// The fleet page's charts: plain SVG this file draws, no library and no build step. Each chart is
// a <figure> over the last 10 minutes whose `data-points` attribute holds the very series it draws
// (`[[t, value], …]`, t in Unix seconds), so what the page shows can be checked against the API
// it came from. The page's history (GET /v1/fleet/history) and each node's own readings
// (GET /v1/fleet/stats) feed them; history-panels.js lays them out.
/* global el */
/* exported lineChart, WINDOW_SECONDS */
'use strict';

const WINDOW_SECONDS = 600;
const CHART_SVG_NS = 'http://www.w3.org/2000/svg';
/** The drawing's own units; the SVG scales to the figure's width. */
const CHART_WIDTH = 300;
const CHART_HEIGHT = 60;

function svgEl(tag, attrs) {
  const node = document.createElementNS(CHART_SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    node.setAttribute(name, String(value));
  }
  return node;
}

/** A round top for the axis: 1, 2, 5 × 10^n, at least `floor`. */
function niceTop(value, floor) {
  const top = Math.max(value, floor);
  const power = 10 ** Math.floor(Math.log10(top));
  for (const step of [1, 2, 5, 10]) {
    if (top <= step * power) {
      return step * power;
    }
  }
  return 10 * power;
}

function shown(value, unit) {
  const text = Number.isInteger(value) ? String(value) : value.toFixed(1);
  return unit === '%' ? `${text}%` : unit ? `${text} ${unit}` : text;
}

/**
 * One line chart. `points`: `[[t, value], …]` oldest first; `end`: the newest time any chart on
 * the page shows (so all share one time axis); `top`: a fixed top (100 for percentages), else a
 * round one above the highest value, never under `floor`.
 */
function lineChart({ key, title, unit, points, end, top, floor = 1 }) {
  const figure = el('figure', { class: 'chart', 'data-chart': key });
  figure.dataset.points = JSON.stringify(points);
  const latest = points.at(-1);
  const caption = el('figcaption');
  caption.append(el('span', {}, title));
  caption.append(
    el('span', { class: 'value' }, latest === undefined ? '–' : shown(latest[1], unit)),
  );
  figure.append(caption);
  const high = top ?? niceTop(Math.max(0, ...points.map((point) => point[1])), floor);
  const svg = svgEl('svg', {
    viewBox: `0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`,
    preserveAspectRatio: 'none',
    role: 'img',
    'aria-label': `${title} over the last 10 minutes: ${points.length} samples, latest ${
      latest === undefined ? 'none' : shown(latest[1], unit)
    }, axis top ${shown(high, unit)}`,
  });
  const x = (t) => CHART_WIDTH - ((end - t) / WINDOW_SECONDS) * CHART_WIDTH;
  const y = (value) => CHART_HEIGHT - (Math.min(value, high) / high) * CHART_HEIGHT;
  svg.append(svgEl('line', { class: 'mid', x1: 0, x2: CHART_WIDTH, y1: 30, y2: 30 }));
  const inside = points.filter((point) => end - point[0] <= WINDOW_SECONDS);
  if (inside.length > 1) {
    const line = inside.map((point) => `${x(point[0]).toFixed(1)},${y(point[1]).toFixed(1)}`);
    svg.append(
      svgEl('polygon', {
        class: 'area',
        points: `${x(inside[0][0]).toFixed(1)},${CHART_HEIGHT} ${line.join(' ')} ${x(
          inside.at(-1)[0],
        ).toFixed(1)},${CHART_HEIGHT}`,
      }),
    );
    svg.append(svgEl('polyline', { points: line.join(' ') }));
  } else if (inside.length === 1) {
    svg.append(svgEl('circle', { cx: x(inside[0][0]), cy: y(inside[0][1]), r: 3 }));
  }
  figure.append(svg);
  const axis = el('div', { class: 'axis' });
  axis.append(el('span', {}, '10 min ago'));
  axis.append(el('span', {}, `top ${shown(high, unit)}`));
  axis.append(el('span', {}, 'now'));
  figure.append(axis);
  return figure;
}
