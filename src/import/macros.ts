/**
 * llama-swap macros, expanded the way llama-swap expands them before it runs a model: `${env.X}`
 * from the environment, then the config's `macros` (a model's own `macros` override the global
 * ones; a macro may use those defined before it), and `${MODEL_ID}`. `${PORT}` is left in place:
 * it is the port llama-swap would pick, which the translation reads as "svc chooses". Pure: the
 * environment comes in as a value.
 */

export const PORT_MACRO = '${PORT}';

const NAME = /^[A-Za-z0-9_-]{1,63}$/;
const RESERVED = new Set(['PORT', 'MODEL_ID', 'PID']);

export type Environment = Readonly<Record<string, string | undefined>>;

export interface MacroScope {
  readonly modelId: string;
  readonly env: Environment;
  /** Macros by name, values already expanded, in definition order. */
  readonly table: ReadonlyMap<string, string>;
}

/**
 * `text` with every macro replaced; each unknown macro or unset variable is reported through
 * `problem` (llama-swap refuses such a config too), naming the macro.
 */
export function expandMacros(
  text: string,
  scope: MacroScope,
  problem: (message: string) => void,
): string {
  return text.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
    if (name.startsWith('env.')) {
      const value = scope.env[name.slice(4)];
      if (value === undefined) {
        problem(`\${${name}}: the environment variable ${name.slice(4)} is not set`);
        return whole;
      }
      return value;
    }
    if (name === 'MODEL_ID') {
      return scope.modelId;
    }
    // ${PORT} is the port svc numbers (startPort); ${PID} is cmdStop's, which STOP keeps.
    if (name === 'PORT' || name === 'PID') {
      return whole;
    }
    const value = scope.table.get(name);
    if (value === undefined) {
      problem(`\${${name}} is not a macro defined before it`);
      return whole;
    }
    return value;
  });
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The macro table for one model: the global `macros`, then the model's own. `where` names each
 * section in problems (`macros`, `models.qwen.macros`).
 */
export function macroScope(
  sections: readonly { readonly where: string; readonly macros: unknown }[],
  modelId: string,
  env: Environment,
  problem: (message: string) => void,
): MacroScope {
  const table = new Map<string, string>();
  const scope: MacroScope = { modelId, env, table };
  for (const { where, macros } of sections) {
    if (macros === undefined || macros === null) {
      continue;
    }
    if (!isRecord(macros)) {
      problem(`${where} must be a mapping of names to values`);
      continue;
    }
    for (const [name, raw] of Object.entries(macros)) {
      if (!NAME.test(name) || RESERVED.has(name)) {
        problem(
          `${where}.${name}: a macro name is 1 to 63 letters, digits, _ or -, and not PORT, MODEL_ID or PID`,
        );
        continue;
      }
      if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
        problem(`${where}.${name} must be a string, a number or a boolean`);
        continue;
      }
      const value = expandMacros(String(raw), scope, (message) => {
        problem(`${where}.${name}: ${message}`);
      });
      // A re-definition takes the earlier one's place, so a later macro sees the model's value.
      table.delete(name);
      table.set(name, value.trimEnd());
    }
  }
  return scope;
}
