/**
 * The Svcfile parser (spec §1.2): one `KEYWORD value` instruction per line, Dockerfile-like.
 * Keywords are case-insensitive, values verbatim; `#` starts a comment at the start of a line or
 * after whitespace; every keyword takes exactly one value and appears once (ENV aside). Pure: text
 * in, a RawProject or every problem found (each naming the file and line) out.
 */
import { splitCommand } from '../engines/split-command.ts';
import { parseContextSize } from './context-size.ts';
import { failed, ok, type Result } from './diagnostics.ts';

export const KEYWORDS = [
  'PROVIDER',
  'MODEL',
  'ALIAS',
  'CONTEXT',
  'OUTPUT',
  'PARALLEL',
  'BASEURL',
  'PRESET',
  'ENV',
  'COMMAND',
  'HEALTH',
  'STOP',
  'ENGINE',
] as const;
/** docs/design.md D31: keywords whose value is a command line, split with shell quoting rules. */
const ARGV_KEYWORDS: ReadonlySet<Keyword> = new Set(['COMMAND', 'STOP']);
export type Keyword = (typeof KEYWORDS)[number];

export interface Located<T> {
  readonly value: T;
  readonly line: number;
}

export interface BaseUrl {
  readonly host?: string;
  readonly port?: number;
  /** Path prefix as written, '' for none or `/`. */
  readonly path: string;
}

/** A Svcfile exactly as written, with CONTEXT, PARALLEL and BASEURL already checked. */
export interface RawProject {
  /** Where the text came from (a path or URL), for messages. */
  readonly source: string;
  readonly provider: Located<string>;
  readonly model?: Located<string>;
  readonly alias?: Located<string>;
  readonly context?: Located<number>;
  readonly output?: Located<string>;
  readonly parallel?: Located<number>;
  readonly baseUrl?: Located<BaseUrl>;
  readonly preset?: Located<string>;
  readonly env: readonly Located<{ key: string; value: string }>[];
  /** docs/design.md D31, `PROVIDER command` only: the program, its readiness path, its stop. */
  readonly command?: Located<readonly string[]>;
  readonly health?: Located<string>;
  readonly stop?: Located<readonly string[]>;
  /** The engine's executable by path (a custom llama-server build). */
  readonly engine?: Located<string>;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const ENV_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Drops a comment: a line starting with `#`, or `#` after whitespace (so `a#b` stays a value). */
function stripComment(line: string): string {
  if (line.trimStart().startsWith('#')) {
    return '';
  }
  const at = line.search(/[ \t]#/);
  return at < 0 ? line : line.slice(0, at);
}

export function parseSvcfile(text: string, source: string): Result<RawProject> {
  const problems: string[] = [];
  const seen = new Map<Keyword, number>();
  const project: Partial<Mutable<RawProject>> & { env: Located<{ key: string; value: string }>[] } =
    {
      source,
      env: [],
    };
  const problem = (line: number, message: string): void => {
    problems.push(`${source}:${line}: ${message}`);
  };

  /** COMMAND and STOP: the rest of the line as argv (docs/design.md D31). */
  const argvInstruction = (keyword: Keyword, rest: string, line: number): void => {
    const first = seen.get(keyword);
    if (first !== undefined) {
      problem(line, `duplicate ${keyword} (already set on line ${first})`);
      return;
    }
    seen.set(keyword, line);
    const words = splitCommand(rest);
    if (typeof words === 'string') {
      problem(line, `${keyword}: ${words}`);
    } else if (words.length === 0) {
      problem(line, `${keyword} needs a value`);
    } else if (keyword === 'COMMAND') {
      project.command = { value: words, line };
    } else {
      project.stop = { value: words, line };
    }
  };

  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const stripped = stripComment(raw).trim();
    const fields = stripped.split(/[ \t]+/).filter(Boolean);
    const [written, ...values] = fields;
    if (written === undefined) {
      return;
    }
    const keyword = KEYWORDS.find((candidate) => candidate === written.toUpperCase());
    if (keyword === undefined) {
      problem(line, `unknown keyword "${written}" (expected ${KEYWORDS.join(', ')})`);
      return;
    }
    if (ARGV_KEYWORDS.has(keyword)) {
      argvInstruction(keyword, stripped.slice(written.length), line);
      return;
    }
    if (values.length !== 1) {
      problem(
        line,
        values.length === 0
          ? `${keyword} needs a value`
          : `${keyword} takes a single value, got ${values.length} (values cannot contain spaces)`,
      );
      return;
    }
    const value = values[0] ?? '';
    const first = seen.get(keyword);
    if (keyword !== 'ENV' && first !== undefined) {
      problem(line, `duplicate ${keyword} (already set on line ${first})`);
      return;
    }
    seen.set(keyword, line);

    switch (keyword) {
      case 'PROVIDER':
        project.provider = { value, line };
        return;
      case 'MODEL':
        project.model = { value, line };
        return;
      case 'ALIAS':
        project.alias = { value, line };
        return;
      case 'OUTPUT':
        project.output = { value, line };
        return;
      case 'PRESET':
        project.preset = { value, line };
        return;
      case 'ENGINE':
        project.engine = { value, line };
        return;
      case 'HEALTH':
        if (!value.startsWith('/')) {
          problem(line, `HEALTH "${value}" must be a path starting with /, such as /health`);
        } else {
          project.health = { value, line };
        }
        return;
      case 'COMMAND':
      case 'STOP':
        return;
      case 'CONTEXT': {
        const tokens = parseContextSize(value);
        if (tokens === undefined) {
          problem(line, `CONTEXT "${value}" is not a positive size (write 32768, 32k or 1m)`);
        } else {
          project.context = { value: tokens, line };
        }
        return;
      }
      case 'PARALLEL': {
        const slots = /^\d+$/.test(value) ? Number(value) : Number.NaN;
        if (!Number.isSafeInteger(slots) || slots < 1) {
          problem(line, `PARALLEL "${value}" must be a positive integer`);
        } else {
          project.parallel = { value: slots, line };
        }
        return;
      }
      case 'BASEURL': {
        const parsed = parseBaseUrl(value);
        if (typeof parsed === 'string') {
          problem(line, `BASEURL "${value}": ${parsed}`);
        } else {
          project.baseUrl = { value: parsed, line };
        }
        return;
      }
      case 'ENV': {
        const equals = value.indexOf('=');
        const key = equals < 0 ? '' : value.slice(0, equals);
        if (!ENV_KEY.test(key)) {
          problem(line, `ENV takes KEY=VALUE with a variable name before "=", got "${value}"`);
        } else {
          project.env.push({ value: { key, value: value.slice(equals + 1) }, line });
        }
        return;
      }
    }
  });

  if (!seen.has('PROVIDER')) {
    problems.push(
      `${source}: missing PROVIDER instruction (one of llamacpp, omlx, vllm, mtplx, command)`,
    );
  }
  if (problems.length > 0 || project.provider === undefined) {
    return failed(problems);
  }
  return ok({ ...project, provider: project.provider, source });
}

/**
 * BASEURL is where the engine listens: `host:port`, a URL, or either with a path. A value with no
 * scheme is read as http. Returns the parts or the reason it cannot be read.
 */
export function parseBaseUrl(value: string): BaseUrl | string {
  let url: URL;
  try {
    url = new URL(value.includes('://') ? value : `http://${value}`);
  } catch {
    return 'not a URL or host:port';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return `scheme "${url.protocol.slice(0, -1)}" is not http or https`;
  }
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/+$/, '');
  // URL drops a port equal to the scheme's default (:80, :443); the user wrote it, so keep it.
  const written = /^(?:[a-z][a-z0-9+.-]*:\/\/)?(?:\[[^\]]*\]|[^/?#:]*):(\d+)/i.exec(value)?.[1];
  const port = url.port !== '' ? url.port : written;
  return {
    ...(host === '' ? {} : { host }),
    ...(port === undefined ? {} : { port: Number(port) }),
    path,
  };
}
