/**
 * The body scan against JSON.parse on random bodies: keys in any order and repeated, escaped keys
 * and roles, any whitespace, nested values of every kind, and bodies broken at random. Wherever
 * JSON.parse reads a non-empty string model the scan gives the same model, stream flag and leading
 * prompt; wherever it does not, the scan defers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { scanModelRequest } from './body-scan.ts';

/** A string token with every character escaped as \uXXXX: what JSON.parse decodes alike. */
const escaped = (text: string): string =>
  `"${Array.from(
    { length: text.length },
    // UTF-16 code units, as JSON's \u escapes spell them (a pair for an emoji).
    (_, at) => `\\u${text.charCodeAt(at).toString(16).padStart(4, '0')}`,
  ).join('')}"`;

/** Plain characters: a string of them holds no escape a break could spoil. */
const PLAIN = fc.constantFrom('a', 'b', ' ', 'model', 'user');

function bodies(text: fc.Arbitrary<string>, escapes: boolean): fc.Arbitrary<string> {
  // Without escapes, the nested values' strings are plain too: a break inside `"\\"` leaves a
  // bad escape, which only JSON.parse judges (the scan leaves a string's insides to the engine).
  const json = fc.jsonValue(escapes ? { maxDepth: 3 } : { maxDepth: 3, stringUnit: PLAIN });
  const space = fc.constantFrom('', ' ', '\n', ' \t\r\n ');
  const key = fc.oneof(
    fc.constantFrom('model', 'stream', 'messages', 'prompt', 'role', 'content'),
    text,
  );
  const role = fc.oneof(fc.constantFrom('user', 'system', 'assistant'), text);
  const message = fc
    .tuple(role, escapes ? fc.string() : text, fc.boolean(), fc.boolean(), json)
    .map(([who, content, escapeRole, extra, other]) => {
      const roleText = escapes && escapeRole ? escaped(who) : JSON.stringify(who);
      const fields = [`"role":${roleText}`, `"content":${JSON.stringify(content)}`];
      return `{${(extra ? [...fields, `"extra":${JSON.stringify(other)}`] : fields).join(',')}}`;
    });
  const value = fc.oneof(
    json.map((v) => JSON.stringify(v)),
    fc.tuple(json, fc.nat(3)).map(([v, indent]) => JSON.stringify(v, null, indent)),
    text.map((t) => JSON.stringify(t)),
    fc.constant('true'),
    fc
      .array(
        fc.oneof(
          message,
          json.map((v) => JSON.stringify(v)),
        ),
        { maxLength: 5 },
      )
      .map((items) => `[${items.join(',')}]`),
  );
  const member = fc
    .tuple(key, fc.boolean(), space, space, value)
    .map(
      ([name, escapeKey, before, after, v]) =>
        `${escapes && escapeKey ? escaped(name) : JSON.stringify(name)}${before}:${after}${v}`,
    );
  return fc
    .tuple(fc.array(member, { maxLength: 8 }), space, space)
    .map(([members, lead, trail]) => `${lead}{${members.join(`,${lead}`)}}${trail}`);
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** What the scan must say of `text`, read by JSON.parse. */
function check(text: string, promptBytes: number): void {
  const body = Buffer.from(text, 'utf8');
  const scanned = scanModelRequest(body, promptBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    expect(scanned).toBeUndefined();
    return;
  }
  if (!isPlainObject(parsed) || typeof parsed['model'] !== 'string' || parsed['model'] === '') {
    expect(scanned).toBeUndefined();
    return;
  }
  expect(scanned).toBeDefined();
  expect(scanned?.model).toBe(parsed['model']);
  expect(scanned?.streaming).toBe(parsed['stream'] === true);
  const range = scanned?.prompt;
  const seen = range === undefined ? undefined : body.toString('utf8', range.start, range.end);
  const messages = parsed['messages'];
  const first = Array.isArray(messages)
    ? messages.findIndex((m) => isPlainObject(m) && m['role'] === 'user')
    : -1;
  const lead = Array.isArray(messages) && first >= 0 ? messages.slice(0, first + 1) : messages;
  if (Array.isArray(lead) && lead.length > 0 && lead.every(isPlainObject)) {
    expect(JSON.parse(first < 0 ? (seen ?? '') : `${seen ?? ''}]`)).toEqual(lead);
  } else if (Object.hasOwn(parsed, 'prompt')) {
    // The whole value, read with no bound, is the prompt; the bound only shortens it.
    const whole = scanModelRequest(body, Number.POSITIVE_INFINITY)?.prompt;
    expect(whole).toBeDefined();
    if (whole !== undefined) {
      expect(JSON.parse(body.toString('utf8', whole.start, whole.end))).toEqual(parsed['prompt']);
      expect(range).toEqual({
        start: whole.start,
        end: Math.min(whole.end, whole.start + promptBytes),
      });
    }
  } else {
    expect(seen).toBeUndefined();
  }
}

describe('scanModelRequest against JSON.parse', () => {
  it('agrees on well-formed bodies of any text', () => {
    fc.assert(
      fc.property(bodies(fc.string({ unit: 'grapheme' }), true), fc.constantFrom(8, 2_048), check),
      { numRuns: 600 },
    );
  });

  it('agrees on bodies broken at random: where JSON.parse refuses one, so does the scan', () => {
    // Plain strings, so that every break is one of structure: what a string holds is the
    // engine's to judge (json-skim.ts), and a mutation inside one is not looked for.
    const plain = fc.string({ unit: PLAIN });
    const breaks = fc.array(
      fc.tuple(
        fc.nat(),
        fc.constantFrom('', '{', '}', '[', ']', ':', ',', '"', '0', '-', '.', 'e', ' ', 'x'),
      ),
      { minLength: 1, maxLength: 3 },
    );
    fc.assert(
      fc.property(
        bodies(plain, false),
        breaks,
        fc.constantFrom(8, 2_048),
        (text, cuts, promptBytes) => {
          let broken = text;
          for (const [at, insert] of cuts) {
            const index = at % (broken.length + 1);
            const after = broken.slice(index + (insert === '' ? 1 : 0));
            broken = `${broken.slice(0, index)}${insert}${after}`;
          }
          check(broken, promptBytes);
        },
      ),
      { numRuns: 1_000 },
    );
  });
});
