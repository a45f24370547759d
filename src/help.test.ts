import { describe, expect, it } from 'vitest';

import { renderMainHelp } from './help.ts';

describe('renderMainHelp', () => {
  it('lists each command with its summary, aligned', () => {
    const text = renderMainHelp([
      { name: 'serve', summary: 'Run an engine in the foreground' },
      { name: 'gateway', summary: 'Serve a fleet' },
    ]);
    expect(text).toContain(
      'Commands:\n  serve    Run an engine in the foreground\n  gateway  Serve a fleet\n',
    );
    expect(text).toContain('-V, --version');
  });

  it('shows no Commands section when there are none', () => {
    expect(renderMainHelp([])).not.toContain('Commands:');
  });
});
