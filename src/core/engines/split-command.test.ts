/** A llama-swap `cmd` split the way llama-swap splits it: comments, continuations, quoting. */
import { describe, expect, it } from 'vitest';

import { splitCommand } from './split-command.ts';

describe('splitCommand', () => {
  it('drops comment lines and joins the rest, continuations included', () => {
    expect(
      splitCommand('# the server\nllama-server \\\n  --port 1\n  # -ngl 99\n  --jinja\n'),
    ).toEqual(['llama-server', '--port', '1', '--jinja']);
  });

  it('keeps quoted words whole: single quotes literal, double quotes with escapes', () => {
    expect(
      splitCommand(`llama-server --model '/m/a b.gguf' --chat-template "say \\"hi\\"" a\\ b`),
    ).toEqual(['llama-server', '--model', '/m/a b.gguf', '--chat-template', 'say "hi"', 'a b']);
    expect(splitCommand(`x --empty ''`)).toEqual(['x', '--empty', '']);
  });

  it('names an unclosed quote', () => {
    expect(splitCommand(`llama-server --model '/m`)).toBe('a single quote is never closed');
    expect(splitCommand('llama-server --alias "q')).toBe('a double quote is never closed');
  });
});
