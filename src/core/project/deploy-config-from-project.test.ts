/**
 * A Svcfile (+ preset) as the deploy config a daemon node runs (spec §2.7), through the real
 * parser and resolver: the node-owned fields come from the Svcfile and its preset, the rest of the
 * preset travels as serveArgs, and BASEURL as the engine's --host/--port.
 */
import { describe, expect, it } from 'vitest';

import type { DeployConfig } from '../contract/deploy-config.ts';
import { deployConfigFromSpec } from './deploy-config-from-project.ts';
import { type Result, unwrap } from './diagnostics.ts';
import { parseSvcfile } from './parse.ts';
import { parsePreset } from './preset.ts';
import { resolveProject } from './resolve.ts';

function deploy(svcfile: string, preset?: string): Result<DeployConfig> {
  const project = unwrap(parseSvcfile(svcfile, 'Svcfile'));
  const resolved = unwrap(
    resolveProject({
      project,
      supervised: false,
      ...(preset === undefined
        ? {}
        : { preset: { preset: unwrap(parsePreset(preset, 'p.ini')), source: 'p.ini' } }),
    }),
  );
  return deployConfigFromSpec(resolved.spec, 'nodes/gpu/Svcfile');
}

function config(svcfile: string, preset?: string): DeployConfig {
  const result = deploy(svcfile, preset);
  if (!result.ok) {
    throw new Error(`expected a deploy config, got:\n${result.problems.join('\n')}`);
  }
  return result.value;
}

function refused(svcfile: string, preset?: string): string[] {
  const result = deploy(svcfile, preset);
  if (result.ok) {
    throw new Error(`expected a refusal, got ${JSON.stringify(result.value)}`);
  }
  return result.problems;
}

const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;

describe('model', () => {
  it.each([
    ['a llamacpp hub repo splits off its quant', 'llamacpp', 'org/m:Q4_K_M', 'org/m', 'Q4_K_M'],
    ['a llamacpp hub repo without a quant', 'llamacpp', 'org/m', 'org/m', undefined],
    [
      'a llamacpp relative path stays whole',
      'llamacpp',
      './models/q:v2.gguf',
      './models/q:v2.gguf',
      undefined,
    ],
    [
      'a llamacpp absolute path stays whole',
      'llamacpp',
      '/srv/m/q.gguf',
      '/srv/m/q.gguf',
      undefined,
    ],
    [
      'a llamacpp .gguf file stays whole',
      'llamacpp',
      'models/a:b.gguf',
      'models/a:b.gguf',
      undefined,
    ],
    ['vllm never splits', 'vllm', 'org/m:rev', 'org/m:rev', undefined],
    ['mtplx never splits', 'mtplx', 'org/m:rev', 'org/m:rev', undefined],
  ])('%s', (_name, provider, model, modelId, quant) => {
    const deployed = config(lines(`PROVIDER ${provider}`, `MODEL ${model}`));
    expect(deployed.runner).toBe(provider);
    expect(deployed.modelId).toBe(modelId);
    expect(deployed.quant).toBe(quant);
    expect('quant' in deployed).toBe(quant !== undefined);
  });

  it('takes the model from the preset when the Svcfile names none', () => {
    expect(
      config(lines('PROVIDER llamacpp', 'PRESET p.ini'), lines('[a]', 'hf = org/q:Q8_0')),
    ).toEqual({
      runner: 'llamacpp',
      modelId: 'org/q',
      quant: 'Q8_0',
      serveArgs: [],
    });
  });

  it('takes a preset model path whole', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'PRESET p.ini'),
      lines('[a]', 'model = /m/a.gguf'),
    );
    expect(deployed.modelId).toBe('/m/a.gguf');
    expect(deployed.quant).toBeUndefined();
  });

  it('lets MODEL win over the preset model', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'MODEL org/b:Q5_K_M', 'PRESET p.ini'),
      lines('[a]', 'hf = org/a:Q8_0'),
    );
    expect(deployed.modelId).toBe('org/b');
    expect(deployed.quant).toBe('Q5_K_M');
  });

  it('refuses a Svcfile with no model and no preset model: nothing to deploy', () => {
    const problems = refused(lines('PROVIDER llamacpp', 'PRESET p.ini'), lines('[a]', 'temp = 1'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('nodes/gpu/Svcfile');
    expect(problems[0]).toContain('nothing to deploy');
  });

  it('refuses omlx: it cannot run on a daemon node', () => {
    const problems = refused(lines('PROVIDER omlx', 'MODEL mlx-community/q'));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('nodes/gpu/Svcfile');
    expect(problems[0]).toContain('omlx');
    expect(problems[0]).toContain('daemon');
  });
});

describe('the node-owned fields', () => {
  it('maps ALIAS, CONTEXT (unscaled) and PARALLEL', () => {
    expect(
      config(
        lines('PROVIDER llamacpp', 'MODEL org/m:Q4_K_M', 'ALIAS chat', 'CONTEXT 16k', 'PARALLEL 2'),
      ),
    ).toEqual({
      runner: 'llamacpp',
      modelId: 'org/m',
      quant: 'Q4_K_M',
      contextSize: 16_000,
      parallel: 2,
      servedModelName: 'chat',
      serveArgs: [],
    });
  });

  it.each([
    ['vllm', 'MODEL org/m'],
    ['mtplx', 'MODEL org/m'],
  ])('%s: the same fields, CONTEXT never multiplied by PARALLEL', (provider, model) => {
    const deployed = config(
      lines(`PROVIDER ${provider}`, model, 'ALIAS f', 'CONTEXT 32768', 'PARALLEL 4'),
    );
    expect(deployed).toEqual({
      runner: provider,
      modelId: 'org/m',
      contextSize: 32_768,
      parallel: 4,
      servedModelName: 'f',
      serveArgs: [],
    });
  });

  it('leaves out what the Svcfile and preset do not set', () => {
    const deployed = config(lines('PROVIDER llamacpp', 'MODEL org/m'));
    expect(deployed).toEqual({ runner: 'llamacpp', modelId: 'org/m', serveArgs: [] });
  });

  it.each([
    ['llamacpp', 'PROVIDER llamacpp', ['hf = org/q', 'ctx-size = 32768', 'np = 3']],
    [
      'llamacpp short and long spellings',
      'PROVIDER llamacpp',
      ['hf = org/q', 'c = 32768', 'parallel = 3'],
    ],
    ['vllm', 'PROVIDER vllm\nMODEL org/q', ['max-model-len = 32768', 'max-num-seqs = 3']],
    ['mtplx', 'PROVIDER mtplx\nMODEL org/q', ['context-window = 32768', 'max-active-requests = 3']],
  ])(
    "%s: keeps the preset's own context and slots as serveArgs, never as fields the daemon scales (spec §1.3 rule 2)",
    (_name, head, entries) => {
      const deployed = config(lines(head, 'PRESET p.ini'), lines('[a]', ...entries));
      expect(deployed.contextSize).toBeUndefined();
      expect(deployed.parallel).toBeUndefined();
      expect(deployed.serveArgs).toHaveLength(4);
      expect(deployed.serveArgs).toContain('32768');
      expect(deployed.serveArgs).toContain('3');
    },
  );

  it('lets CONTEXT and PARALLEL win over the preset', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'CONTEXT 8192', 'PARALLEL 2', 'PRESET p.ini'),
      lines('[a]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
    );
    expect(deployed.contextSize).toBe(8192);
    expect(deployed.parallel).toBe(2);
  });

  it('takes the section value over the [*] default', () => {
    const deployed = config(
      lines('PROVIDER llamacpp', 'PRESET p.ini'),
      lines('[*]', 'ctx-size = 4096', 'np = 1', '[a]', 'hf = org/q', 'ctx-size = 32768', 'np = 3'),
    );
    expect(deployed.serveArgs).toEqual(['--ctx-size', '32768', '--parallel', '3']);
  });
});

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
