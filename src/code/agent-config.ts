/**
 * `svc code --config`, pure: what svc would hand the agent, as text a user can keep for a
 * permanent setup. The key is shown only as the variable that holds it (spec §5 rule 4: a secret
 * is never printed): the documents never hold it, and an environment value that is the key is
 * printed as a reference to its variable.
 */
import type { AgentPlan, AgentSpec } from './agent-plan.ts';
import type { AgentTarget } from './agent-target.ts';

/** A POSIX shell word: single-quoted unless plainly safe. */
export function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
}

export function describeTarget(agent: string, target: AgentTarget): string {
  const model =
    target.defaultModel === undefined
      ? `${target.models.length} model${target.models.length === 1 ? '' : 's'} listed, none chosen`
      : `model ${target.defaultModel}`;
  return `${agent} → ${target.baseUrl} (${target.label}, ${model})`;
}

export function renderAgentConfig(agent: AgentSpec, plan: AgentPlan, target: AgentTarget): string {
  const { key } = target;
  const { document } = plan;
  const lines = [
    `# svc code --agent ${describeTarget(agent.name, target)}`,
    `# ${agent.name} sends model requests to ${target.baseUrl}${agent.endpoint}`,
  ];
  if (document.isEnvironment !== true) {
    lines.push('', '# Its environment:', ...environmentLines(plan, target));
  }
  if (key !== undefined) {
    lines.push(`# The key: ${key.variable} must hold the token where ${agent.command} runs.`);
  }
  lines.push('', '# Its command line:', [agent.command, ...plan.args.map(shellWord)].join(' '));
  const file = plan.files.find((entry) => entry.content === document.content);
  const where = file === undefined ? '' : ` (svc code writes it to ${file.path})`;
  lines.push('', `# ${document.name}${where}:`, document.content.trimEnd());
  return `${lines.join('\n')}\n`;
}

/** The variables svc sets and removes, as shell lines; the key as a reference to its variable. */
function environmentLines(plan: AgentPlan, target: AgentTarget): string[] {
  const { key } = target;
  const { document } = plan;
  const lines: string[] = [];
  for (const name of plan.unsetEnv ?? []) {
    lines.push(`unset ${name}`);
  }
  for (const [name, value] of Object.entries(plan.env)) {
    if (name === document.env) {
      lines.push(`export ${name}="$(cat ${document.name})"`);
    } else if (key !== undefined && value === key.value) {
      if (name !== key.variable) {
        lines.push(`export ${name}="$${key.variable}"`);
      }
    } else {
      lines.push(`export ${name}=${shellWord(value)}`);
    }
  }
  return lines;
}
