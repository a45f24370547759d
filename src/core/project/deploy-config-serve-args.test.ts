/**
 * A deploy config's serveArgs (spec §2.7): the rest of the preset travels in flag form, never the
 * node-owned keys, and BASEURL as the engine's --host/--port over the preset's bind settings.
 */
import { describe, expect, it } from 'vitest';

import { config } from '../../../test/support/project-files/deploy-config-of.ts';

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

describe('serveArgs', () => {
  it('passes the rest of the preset through, in order, in flag form', () => {
    expect(
      config(
        lines('PROVIDER llamacpp', 'PRESET p.ini'),
        lines('[*]', 'mmap = 1', '[a]', 'hf = org/q', 'temp = 1.0', 'ngl = 99', 'fa = on'),
      ).serveArgs,
    ).toEqual(['--mmap', '--temp', '1.0', '--n-gpu-layers', '99', '--flash-attn', 'on']);
  });

  it('never passes the node-owned llamacpp keys, in any spelling', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'MODEL org/m', 'CONTEXT 8k', 'PARALLEL 2', 'PRESET p.ini'),
      lines(
        '[a]',
        'model = /x.gguf',
        'hf = org/q',
        'hf-file = q.gguf',
        'hf-token = t',
        'model-url = https://x/q.gguf',
        'ctx-size = 4096',
        'a = other',
        'metrics = 1',
        'np = 4',
        'api-key = k',
        'api-key-file = /k',
        'temp = 1',
      ),
    );
    expect(deployed.serveArgs).toEqual(['--temp', '1']);
  });

  it.each([
    [
      'vllm',
      'PROVIDER vllm',
      ['max-model-len = 4096', 'max-num-seqs = 8', 'served-model-name = z', 'api-key = k'],
    ],
    [
      'mtplx',
      'PROVIDER mtplx',
      [
        'context-window = 4096',
        'max-active-requests = 8',
        'model-id = z',
        'download = 1',
        'model = o/x',
      ],
    ],
  ])('never passes the node-owned %s keys', (_name, head, entries) => {
    const deployed = config(
      lines(head, 'MODEL org/m', 'CONTEXT 8k', 'PARALLEL 2', 'PRESET p.ini'),
      lines('[a]', ...entries, 'keep-me = 2'),
    );
    expect(deployed.serveArgs).toEqual(['--keep-me', '2']);
  });

  it("keeps the preset's host and port when there is no BASEURL", () => {
    expect(
      config(
        lines('PROVIDER llamacpp', 'PRESET p.ini'),
        lines('[*]', 'host = 127.0.0.1', 'port = 8080', '[a]', 'hf = org/q', 'temp = 1.0'),
      ).serveArgs,
    ).toEqual(['--host', '127.0.0.1', '--port', '8080', '--temp', '1.0']);
  });

  it("turns BASEURL into --host/--port, replacing the preset's", () => {
    expect(
      config(
        lines('PROVIDER llamacpp', 'BASEURL http://0.0.0.0:9999/v1', 'PRESET p.ini'),
        lines('[*]', 'host = 127.0.0.1', 'port = 8080', '[a]', 'hf = org/q', 'temp = 1.0'),
      ).serveArgs,
    ).toEqual(['--temp', '1.0', '--host', '0.0.0.0', '--port', '9999']);
  });

  it.each([
    ['llamacpp', 'BASEURL localhost:9090', ['--host', 'localhost', '--port', '9090']],
    ['vllm', 'BASEURL http://0.0.0.0:8000/v1', ['--host', '0.0.0.0', '--port', '8000']],
    ['mtplx', 'BASEURL http://127.0.0.1:9100/v1', ['--host', '127.0.0.1', '--port', '9100']],
  ])('%s: BASEURL alone becomes the bind flags', (provider, baseUrl, serveArgs) => {
    expect(config(lines(`PROVIDER ${provider}`, 'MODEL org/m', baseUrl)).serveArgs).toEqual(
      serveArgs,
    );
  });
});

describe('BASEURL and preset bind settings, preset alias', () => {
  it("keeps the preset's port when BASEURL names only a host", () => {
    const result = config(
      'PROVIDER llamacpp\nBASEURL http://0.0.0.0\nPRESET p.ini\n',
      '[a]\nhf = o/q\nport = 8080\nhost = 127.0.0.1\n',
    );
    expect(result.serveArgs).toEqual(['--port', '8080', '--host', '0.0.0.0']);
  });

  it("takes the preset's alias as the served name when the Svcfile has no ALIAS", () => {
    expect(
      config('PROVIDER llamacpp\nPRESET p.ini\n', '[a]\nhf = o/q\na = chat\n').servedModelName,
    ).toBe('chat');
  });
});
