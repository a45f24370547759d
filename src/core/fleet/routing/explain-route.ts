/**
 * `svc fleet route <model>` explained, pure: the same decision the gateway takes for a request
 * (route.ts: a running node by `prefer`, a loading one, or a wake), and for a wake the node the
 * waker would pick (spec §4.2 rule 5: a node whose stored config already matches first, then
 * file order), each with the reason. Starts nothing: the snapshots and sources come in.
 */
import type { DeployConfig } from '../../contract/schemas.ts';
import type { Fleet } from '../file/fleet-file.ts';
import type { NodeSnapshot } from '../state/node-snapshot.ts';
import { route, serves } from './route.ts';
import { wakeOrder, wakeVerdict } from './wake-choice.ts';

export type NodeSourceOrProblem =
  { readonly source: string; readonly config: DeployConfig } | { readonly problem: string };

export interface RouteExplanation {
  readonly model: string;
  /** `none`: a request would be refused; `reason` says why. */
  readonly decision: 'serve' | 'wait' | 'wake' | 'none';
  readonly node?: string;
  readonly engine?: string;
  readonly reason: string;
  /** Every node and why it is or is not the one. */
  readonly nodes: readonly { readonly node: string; readonly note: string }[];
}

function idleText(snapshot: NodeSnapshot & { ok: true }): string {
  return snapshot.status.lastActiveAt === undefined
    ? 'never active'
    : `idle ${snapshot.status.idleSeconds ?? 0}s`;
}

export function explainRoute(
  model: string,
  snapshots: readonly NodeSnapshot[],
  fleet: Fleet,
  sources: ReadonlyMap<string, NodeSourceOrProblem>,
): RouteExplanation {
  const notes = new Map<string, string>();
  for (const snapshot of snapshots) {
    if (!snapshot.ok) {
      notes.set(snapshot.node.name, `${snapshot.outcome}: ${snapshot.detail}`);
    } else if (serves(snapshot, model)) {
      notes.set(
        snapshot.node.name,
        `running ${model} (${snapshot.status.ready === 'not-ready' ? 'loading' : 'ready'}, ${idleText(snapshot)})`,
      );
    } else if (snapshot.status.state === 'running') {
      notes.set(
        snapshot.node.name,
        `running ${snapshot.status.servedName ?? snapshot.status.model ?? 'another model'}, not ${model}; never displaced`,
      );
    } else {
      notes.set(snapshot.node.name, snapshot.status.state);
    }
  }
  const nodes = (): RouteExplanation['nodes'] =>
    snapshots.map((snapshot) => ({
      node: snapshot.node.name,
      note: notes.get(snapshot.node.name) ?? '',
    }));
  const prefer = fleet.prefer ?? 'idle';
  const decision = route(model, snapshots, fleet);
  if (decision.kind === 'serve') {
    const running = snapshots.filter((snapshot) => serves(snapshot, model)).length;
    return {
      model,
      decision: 'serve',
      node: decision.target.node.name,
      engine: decision.target.baseUrl,
      reason:
        running > 1
          ? `it serves ${model} now; ${running} nodes do, and prefer: ${prefer} ranks it first (file order breaks ties)`
          : `it serves ${model} now`,
      nodes: nodes(),
    };
  }
  if (decision.kind === 'wait') {
    return {
      model,
      decision: 'wait',
      node: decision.node.name,
      reason: `it is loading ${model}: a request would wait for it (bounded by the gateway's --wake-timeout) rather than wake another node`,
      nodes: nodes(),
    };
  }
  if (decision.kind === 'refuse') {
    return { model, decision: 'none', reason: decision.message, nodes: nodes() };
  }

  const candidates: { node: string; source: string; warm: boolean }[] = [];
  for (const snapshot of snapshots) {
    if (!snapshot.ok || snapshot.status.state === 'running') {
      continue;
    }
    const name = snapshot.node.name;
    const found = sources.get(name);
    if (found === undefined || 'problem' in found) {
      notes.set(
        name,
        `${snapshot.status.state}; cannot be woken: ${found?.problem ?? 'no source'}`,
      );
      continue;
    }
    const verdict = wakeVerdict(snapshot.node, snapshot.status.model, found.config, model);
    if (verdict.kind === 'other-model') {
      notes.set(name, `${snapshot.status.state}; its source describes ${verdict.describes}`);
      continue;
    }
    if (verdict.kind === 'wake-off') {
      notes.set(
        name,
        `${snapshot.status.state}; describes ${model} but waking is off: svc fleet start ${name}`,
      );
      continue;
    }
    notes.set(name, `${snapshot.status.state}; would start ${model} from ${found.source}`);
    candidates.push({ node: name, source: found.source, warm: verdict.warm });
  }
  const chosen = wakeOrder(candidates)[0];
  if (chosen === undefined) {
    const silent = snapshots.filter((snapshot) => !snapshot.ok).length;
    return {
      model,
      decision: 'none',
      reason: `no node serves ${model} now and none may be woken for it${silent > 0 ? ` (${silent} did not answer)` : ''}`,
      nodes: nodes(),
    };
  }
  return {
    model,
    decision: 'wake',
    node: chosen.node,
    reason: `no node serves ${model} now; a request would wake it: its Svcfile ${chosen.source} describes ${model}${chosen.warm ? ', and its stored config already matches (tried first)' : ''}`,
    nodes: nodes(),
  };
}

export function routeText(explanation: RouteExplanation): string {
  const head =
    explanation.decision === 'none'
      ? `${explanation.model}: no node — ${explanation.reason}`
      : `${explanation.model} → ${explanation.node ?? ''} (${explanation.decision}): ${explanation.reason}`;
  const width = Math.max(0, ...explanation.nodes.map((entry) => entry.node.length));
  return `${[
    head,
    ...(explanation.engine === undefined ? [] : [`engine: ${explanation.engine}`]),
    ...explanation.nodes.map((entry) => `  ${entry.node.padEnd(width)}  ${entry.note}`.trimEnd()),
  ].join('\n')}\n`;
}
