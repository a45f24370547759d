// The fleet page's tables of who used what (docs/design.md D29): usage per caller and model from
// GET /v1/fleet/usage (an operator's token sees every caller, any other token only itself), and
// the last requests from GET /v1/fleet/activity (the operator's alone; another token sees a plain
// word in its place). Never a token: the replies hold caller names, not credentials.
/* global el */
/* exported activityRows, usageRows */
'use strict';

const cell = (value) => el('td', {}, value === null || value === undefined ? '–' : String(value));

/** The usage table's rows: one per caller and model. */
function usageRows(usage) {
  const rows = [];
  for (const caller of usage.callers) {
    for (const model of caller.models) {
      const row = el('tr', { 'data-caller': caller.name, 'data-model': model.model });
      row.append(el('th', { scope: 'row' }, caller.name));
      row.append(
        cell(model.model || '(none)'),
        cell(model.requests),
        cell(model.promptTokens),
        cell(model.completionTokens),
        cell(model.cachedTokens),
      );
      rows.push(row);
    }
  }
  if (rows.length === 0) {
    const row = el('tr');
    row.append(el('td', { colspan: '6', class: 'hint' }, 'No requests yet.'));
    rows.push(row);
  }
  return rows;
}

function timeOf(iso) {
  return new Date(iso).toLocaleTimeString();
}

/** The activity table's rows, newest first, as the gateway answers them. */
function activityRows(activity) {
  return activity.requests.map((request) => {
    const row = el('tr', { 'data-at': request.at, 'data-caller': request.caller });
    row.append(
      cell(timeOf(request.at)),
      cell(request.caller),
      cell(request.model),
      cell(request.node),
      cell(request.status),
      cell(request.queueMs),
      cell(request.ttfbMs),
      cell(request.totalMs),
      cell(request.completionTokens),
    );
    return row;
  });
}
