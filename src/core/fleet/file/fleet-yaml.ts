/**
 * Reading a fleet file's YAML (YAML 1.2, so `wake: on` stays the string "on") into plain data,
 * refusing what a user would otherwise learn about too late: a syntax error is reported by line
 * with what to fix (never the parser's text ending in a dangling colon), and an unknown key
 * anywhere is found (docs/design.md D20, fleet-keys.ts). Pure: text in, data and its problems out.
 */
import { LineCounter, parseDocument, type YAMLError } from 'yaml';

import { failed, ok, type Result } from '../../project/diagnostics.ts';
import { unknownKeys } from './fleet-keys.ts';

const INDENTATION = new Set([
  'BAD_INDENT',
  'BLOCK_AS_IMPLICIT_KEY',
  'MULTILINE_IMPLICIT_KEY',
  'TAB_AS_INDENT',
  'MISSING_CHAR',
  'UNEXPECTED_TOKEN',
]);

/** What to do about a syntax error, by the parser's code. */
function fixFor(error: YAMLError): string {
  if (error.code === 'DUPLICATE_KEY') {
    return 'keep only one of the two entries';
  }
  if (error.code === 'MISSING_CHAR' && /quote/i.test(error.message)) {
    return 'close the quoted value on the line where it starts';
  }
  if (INDENTATION.has(error.code)) {
    return 'indent with spaces so the keys of one mapping start in the same column (a node\'s keys line up under the first key after its "- ")';
  }
  return 'fix the YAML syntax there';
}

/** `Sequence item without - indicator at line 3, column 1:` → `sequence item without - indicator`. */
function reasonOf(error: YAMLError): string {
  const first = (error.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
  return first.charAt(0).toLowerCase() + first.slice(1).replace(/[.:]$/, '');
}

export interface FleetYaml {
  readonly data: unknown;
  /** One problem per unknown key; the caller lists them with its own, all at once. */
  readonly unknownKeys: readonly string[];
}

export function readFleetYaml(text: string, path: string): Result<FleetYaml> {
  const lines = new LineCounter();
  const document = parseDocument(text, { version: '1.2', lineCounter: lines });
  const error = document.errors[0];
  if (error !== undefined) {
    const line = error.linePos?.[0].line;
    const where = line === undefined ? '' : ` line ${line}`;
    const source = line === undefined ? undefined : text.split('\n')[line - 1]?.trimEnd();
    const shown = source === undefined || source === '' ? '' : ` ("${source}")`;
    return failed(
      [`${path}${where}${shown}: not valid YAML: ${reasonOf(error)}: ${fixFor(error)}`],
      'ERR_FLEET',
    );
  }
  return ok({
    data: document.toJS() as unknown,
    unknownKeys: unknownKeys(document.contents, lines).map((problem) => `${path}: ${problem}`),
  });
}
