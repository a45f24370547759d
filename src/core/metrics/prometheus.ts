/**
 * A parser for the Prometheus text exposition format (version 0.0.4), enough for engine
 * counters: comments and HELP/TYPE lines skipped, labels with escaped quotes, NaN and ±Inf values,
 * optional timestamps. Pure; a malformed line is skipped rather than failing the whole scrape.
 */

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;

function parseValue(text: string): number | undefined {
  switch (text) {
    case 'NaN':
      return Number.NaN;
    case '+Inf':
    case 'Inf':
      return Number.POSITIVE_INFINITY;
    case '-Inf':
      return Number.NEGATIVE_INFINITY;
    default: {
      if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) {
        return undefined;
      }
      return Number(text);
    }
  }
}

/** Reads `{a="x",b="y\"z"}` starting at `at`; returns the labels and the index after `}`. */
function parseLabels(
  line: string,
  at: number,
): { labels: Record<string, string>; end: number } | undefined {
  const labels: Record<string, string> = {};
  let index = at + 1;
  for (;;) {
    while (line[index] === ' ' || line[index] === ',') {
      index += 1;
    }
    if (line[index] === '}') {
      return { labels, end: index + 1 };
    }
    const name = /^[a-zA-Z_][a-zA-Z0-9_]*/.exec(line.slice(index))?.[0];
    if (
      name === undefined ||
      line[index + name.length] !== '=' ||
      line[index + name.length + 1] !== '"'
    ) {
      return undefined;
    }
    index += name.length + 2;
    let value = '';
    while (index < line.length && line[index] !== '"') {
      if (line[index] === '\\') {
        const next = line[index + 1];
        value += next === 'n' ? '\n' : (next ?? '');
        index += 2;
      } else {
        value += line.charAt(index);
        index += 1;
      }
    }
    if (line[index] !== '"') {
      return undefined;
    }
    labels[name] = value;
    index += 1;
  }
}

export function parsePrometheus(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) {
      continue;
    }
    const name = NAME.exec(line)?.[0];
    if (name === undefined) {
      continue;
    }
    let rest = name.length;
    let labels: Record<string, string> = {};
    if (line[rest] === '{') {
      const parsed = parseLabels(line, rest);
      if (parsed === undefined) {
        continue;
      }
      labels = parsed.labels;
      rest = parsed.end;
    }
    // value, then an optional timestamp
    const [valueText, timestamp, extra] = line.slice(rest).trim().split(/\s+/);
    const value = valueText === undefined ? undefined : parseValue(valueText);
    if (
      value === undefined ||
      extra !== undefined ||
      (timestamp !== undefined && !/^-?\d+$/.test(timestamp))
    ) {
      continue;
    }
    samples.push({ name, labels, value });
  }
  return samples;
}

/** The value of the first sample named `name` whose labels include every one of `labels`. */
export function sampleValue(
  samples: readonly PromSample[],
  name: string,
  labels: Readonly<Record<string, string>> = {},
): number | undefined {
  return samples.find(
    (sample) =>
      sample.name === name &&
      Object.entries(labels).every(([key, wanted]) => sample.labels[key] === wanted),
  )?.value;
}
