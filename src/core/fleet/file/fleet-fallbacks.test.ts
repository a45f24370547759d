/** `fallbacks` (docs/design.md D30): per model, an upstream node listing it, and when it answers. */
import { describe, expect, it } from 'vitest';

import { lines, parsed, problems } from '../../../../test/support/project-files/fleet-text.ts';

const fleet = (...fallbackLines: string[]): string =>
  lines(
    'nodes:',
    '  - name: gpu',
    '    host: h',
    '  - name: hosted',
    '    kind: upstream',
    '    url: https://api.example.com/v1',
    '    models: {qwen: vendor/qwen-72b}',
    'fallbacks:',
    ...fallbackLines.map((line) => `  ${line}`),
  );

describe('fallbacks', () => {
  it('reads a fallback with every reason when it names none', () => {
    expect(parsed(fleet('qwen: {to: hosted}')).fallbacks).toEqual(
      new Map([['qwen', { to: 'hosted', when: ['waking', 'queueFull', 'failed'] }]]),
    );
  });

  it('keeps the reasons it names', () => {
    expect(parsed(fleet('qwen: {to: hosted, when: [waking]}')).fallbacks?.get('qwen')).toEqual({
      to: 'hosted',
      when: ['waking'],
    });
  });

  it('has none when the file names none', () => {
    expect(parsed(lines('nodes:', '  - name: gpu', '    host: h')).fallbacks).toBeUndefined();
  });

  it('refuses a to that is not an upstream node, naming the model and the node', () => {
    expect(problems(fleet('qwen: {to: gpu}'))).toContainEqual(
      expect.stringContaining(
        'fallbacks "qwen": to names node "gpu", a daemon node: a fallback must be an upstream node',
      ),
    );
  });

  it('refuses an upstream node that does not list the model', () => {
    expect(problems(fleet('llama: {to: hosted}'))).toContainEqual(
      expect.stringContaining('whose models do not list "llama"'),
    );
  });

  it('refuses a node the file does not list, naming the closest', () => {
    expect(problems(fleet('qwen: {to: hostd}'))).toContainEqual(
      expect.stringContaining(
        'to names node "hostd", which the file does not list (did you mean "hosted"?)',
      ),
    );
  });

  it('refuses an unknown reason, naming the closest, and an empty list', () => {
    expect(problems(fleet('qwen: {to: hosted, when: [queuefull]}'))).toContainEqual(
      expect.stringContaining(
        'when has "queuefull": use waking, queueFull, failed (did you mean "queueFull"?)',
      ),
    );
    expect(problems(fleet('qwen: {to: hosted, when: []}'))).toContainEqual(
      expect.stringContaining('when lists no reason'),
    );
  });

  it('refuses an unknown key inside a fallback', () => {
    expect(problems(fleet('qwen: {to: hosted, whn: [waking]}'))).toContainEqual(
      expect.stringContaining('unknown key "whn" in fallbacks "qwen"'),
    );
  });
});
