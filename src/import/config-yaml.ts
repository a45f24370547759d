/**
 * Reading a llama-swap configuration's YAML into plain data, with a way to name the line of any
 * field in a problem (`config.yaml line 12 (models.qwen.ttl): …`). A syntax error names its line
 * and the text there. Pure: text in, data or the problem out.
 */
import { isScalar, LineCounter, parseDocument } from 'yaml';

import { failed, ok, type Result } from '../core/project/diagnostics.ts';

export interface ConfigYaml {
  readonly data: unknown;
  /** `source line N (a.b.c)` for the field at `path`, or `source (a.b.c)` when it has no line. */
  readonly where: (path: readonly (string | number)[]) => string;
}

export function readConfigYaml(text: string, source: string): Result<ConfigYaml> {
  const lines = new LineCounter();
  // YAML 1.2, as llama-swap's own reader: `on` in a macro or a cmd stays the string "on".
  const document = parseDocument(text, { version: '1.2', lineCounter: lines });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0].line;
    const shown = line === undefined ? '' : text.split('\n')[line - 1]?.trimEnd();
    const reason = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
    return failed(
      [
        `${source}${line === undefined ? '' : ` line ${line}`}${shown === undefined || shown === '' ? '' : ` ("${shown}")`}: not valid YAML: ${reason}`,
      ],
      'ERR_IMPORT',
    );
  }
  const where = (path: readonly (string | number)[]): string => {
    const node: unknown = document.getIn(path, true);
    const offset = isScalar(node)
      ? node.range?.[0]
      : (node as { range?: [number, number, number] } | undefined)?.range?.[0];
    const field = path.join('.');
    return offset === undefined
      ? `${source} (${field})`
      : `${source} line ${lines.linePos(offset).line} (${field})`;
  };
  return ok({ data: document.toJS() as unknown, where });
}
