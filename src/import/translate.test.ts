/**
 * A llama-swap configuration → Svcfiles and presets (docs/design.md D27): the flags of a
 * llama-server or vLLM `cmd` land on Svcfile keywords or in the preset, macros are expanded, and
 * every written file is read back through the project's own Svcfile and preset parsers and built
 * into the engine command svc would run.
 */
import { describe, expect, it } from 'vitest';

import {
  engineCommandOf,
  fileText,
  importProblems,
  lossesOf,
  plan,
  planWith,
  yamlLines,
} from '../../test/support/project-files/import-plan.ts';
import { unwrap } from '../core/project/diagnostics.ts';
import { parseSvcfile } from '../core/project/parse.ts';
import { parsePreset } from '../core/project/preset.ts';

const MACROS = yamlLines(
  'macros:',
  '  "llama": >',
  '    llama-server',
  '    --port ${PORT}',
  '  "default_ctx": 16384',
  '  "ctx_args": "--ctx-size ${default_ctx}"',
  'models:',
  '  "qwen-8b":',
  '    macros:',
  '      "temp": 0.7',
  '    cmd: |',
  '      # comments in a cmd are dropped',
  '      ${llama}',
  '      -m /models/${MODEL_ID}.gguf',
  '      ${ctx_args} -np 2',
  '      -ngl 99 --jinja --temp ${temp}',
  '      -fa on --cache-type-k q8_0',
);

/** The plan for a configuration of one model: its name, then its entry's lines, unindented. */
function planOne(name: string, ...entry: string[]): ReturnType<typeof plan> {
  return plan(yamlLines('models:', `  ${name}:`, ...entry.map((line) => `    ${line}`)));
}

describe('a llama-server cmd', () => {
  it('writes the Svcfile keywords and a preset of the other flags, macros expanded', () => {
    const result = plan(MACROS);
    expect(result.files.map((file) => file.path)).toEqual([
      'fleet.yaml',
      '.env',
      'qwen-8b/Svcfile',
      'qwen-8b/preset.ini',
    ]);
    expect(fileText(result, 'qwen-8b/Svcfile')).toBe(
      yamlLines(
        '# llama-swap model "qwen-8b" from config.yaml, imported by svc import llama-swap',
        'PROVIDER llamacpp',
        'MODEL    /models/qwen-8b.gguf',
        'ALIAS    qwen-8b',
        'CONTEXT  8192',
        'PARALLEL 2',
        'BASEURL  127.0.0.1:5800',
        'PRESET   preset.ini',
      ),
    );
    expect(fileText(result, 'qwen-8b/preset.ini')).toBe(
      yamlLines(
        '; the flags of llama-swap model "qwen-8b" that have no Svcfile keyword',
        '[qwen-8b]',
        'n-gpu-layers = 99',
        'jinja = true',
        'temp = 0.7',
        'flash-attn = on',
        'cache-type-k = q8_0',
      ),
    );
  });

  it("builds an engine command that carries every flag of the original cmd (${PORT} is svc's)", () => {
    expect(engineCommandOf(plan(MACROS), 'qwen-8b')).toBe(
      'llama-server --n-gpu-layers 99 --jinja --temp 0.7 --flash-attn on --cache-type-k q8_0 -m /models/qwen-8b.gguf --alias qwen-8b --ctx-size 16384 --parallel 2 --host 127.0.0.1 --port 5800',
    );
  });

  it('keeps a fixed host and port as BASEURL, and a hub repository as MODEL', () => {
    const result = planOne(
      'gemma',
      'cmd: llama-server -hf ggml-org/gemma-3-4b-it-GGUF --host 0.0.0.0 --port 9001 -c 4096',
      'proxy: http://127.0.0.1:9001',
    );
    expect(fileText(result, 'gemma/Svcfile')).toContain(
      'MODEL    ggml-org/gemma-3-4b-it-GGUF\nALIAS    gemma\nCONTEXT  4096\nBASEURL  0.0.0.0:9001\n',
    );
    expect(result.files.map((file) => file.path)).not.toContain('gemma/preset.ini');
    expect(engineCommandOf(result, 'gemma')).toBe(
      'llama-server -hf ggml-org/gemma-3-4b-it-GGUF --alias gemma --ctx-size 4096 --host 0.0.0.0 --port 9001',
    );
    expect(lossesOf(result, 'gemma')).toEqual([]);
  });

  it('keeps a shared ctx-size the slots do not divide in the preset, never scaled', () => {
    const result = planOne('m', 'cmd: llama-server -m /m.gguf -c 10000 -np 3 --port ${PORT}');
    expect(fileText(result, 'm/preset.ini')).toContain('[m]\nctx-size = 10000\n');
    expect(engineCommandOf(result, 'm')).toBe(
      'llama-server --ctx-size 10000 -m /m.gguf --alias m --parallel 3 --host 127.0.0.1 --port 5800',
    );
  });

  it('lists what cannot be a preset line, and keeps running a llama-server build by path', () => {
    const result = planOne(
      'm',
      'cmd: /opt/llama/llama-server-b5000 -m models/m.gguf -sp --lora a.gguf --lora b.gguf',
    );
    expect(fileText(result, 'm/preset.ini')).toContain('lora = a.gguf\n');
    expect(fileText(result, 'm/Svcfile')).toContain('ENGINE   /opt/llama/llama-server-b5000\n');
    expect(lossesOf(result, 'm')).toEqual([
      "-sp: svc knows no long name for llama-server's short flag -sp (a preset key longer than one letter becomes --key): write its long form in the preset",
      '--lora b.gguf: lora is given earlier in the cmd; a preset holds one value per flag',
      "MODEL models/m.gguf: a relative path: svc reads it from the Svcfile's directory, llama-swap from its working directory; make it absolute if it no longer resolves",
    ]);
  });

  it('keeps the value llama-server uses for a flag given twice: the last', () => {
    const result = planOne(
      'm',
      'cmd: llama-server -m /m.gguf -c 4096 --ctx-size 8192 -ngl 10 -ngl 99',
      'ttll: 60',
    );
    expect(engineCommandOf(result, 'm')).toBe(
      'llama-server --n-gpu-layers 99 -m /m.gguf --alias m --ctx-size 8192',
    );
    expect(lossesOf(result, 'm')).toEqual([
      'ttll: not a llama-swap key: did you mean ttl?',
      '-c 4096: ctx-size is given again later in the cmd, and llama-server uses the last value',
      '-ngl 10: n-gpu-layers is given again later in the cmd, and llama-server uses the last value',
    ]);
  });

  it('carries env and leading assignments as ENV, never a secret (docs/design.md D5)', () => {
    const result = planWith(
      yamlLines(
        'models:',
        '  m:',
        '    cmd: CUDA_VISIBLE_DEVICES=1 llama-server -m /m.gguf --api-key sk-cmd-secret --hf-token ${env.HF}',
        '    env: ["GGML_CUDA_NO_PINNED=1", "HF_TOKEN=${env.HF}"]',
      ),
      { HF: 'hf_env_secret' },
    );
    expect(fileText(result, 'm/Svcfile')).toContain(
      'ENV      CUDA_VISIBLE_DEVICES=1\nENV      GGML_CUDA_NO_PINNED=1\n',
    );
    const everything = JSON.stringify(result);
    expect(everything).not.toContain('sk-cmd-secret');
    expect(everything).not.toContain('hf_env_secret');
    expect(lossesOf(result, 'm')).toEqual([
      "--api-key (value not shown): svc gates the engine itself: name the key's variable with engineTokenEnv on the fleet node",
      '--hf-token (value not shown): a secret is not written into a preset: set it in the .env beside the Svcfile',
      'HF_TOKEN (value not shown): a secret is not written into a Svcfile: put it in the .env beside it',
    ]);
  });

  it("makes useModelName the ALIAS, the model id and its aliases the node's aliases (D31)", () => {
    const result = planOne(
      'qwen',
      'cmd: llama-server -m /q.gguf --alias Qwen3',
      'aliases: ["gpt-4o-mini", {id: "gpt-4o"}]',
      'useModelName: qwen3',
      'unlisted: true',
    );
    expect(fileText(result, 'qwen/Svcfile')).toContain('ALIAS    qwen3\n');
    expect(fileText(result, 'fleet.yaml')).toContain(
      '    aliases:\n      - qwen\n      - gpt-4o-mini\n      - gpt-4o\n    unlisted: true\n',
    );
    expect(lossesOf(result, 'qwen')).toEqual([
      'served name Qwen3: ALIAS is "qwen3", the name llama-swap sent requests under (the model id, else useModelName)',
    ]);
  });
});

describe('a vLLM cmd', () => {
  it('maps the model, context, slots and address, the rest to the preset in vLLM spelling', () => {
    const result = planOne(
      'coder',
      'cmd: >',
      '  vllm serve Qwen/Qwen3-Coder-30B-A3B --max-model-len 65536 --max-num-seqs 8',
      '  -tp 2 --gpu-memory-utilization 0.9 --enforce-eager --host 127.0.0.1 --port 8001',
      'proxy: http://localhost:8001',
    );
    expect(fileText(result, 'coder/Svcfile')).toContain(
      'PROVIDER vllm\nMODEL    Qwen/Qwen3-Coder-30B-A3B\nALIAS    coder\nCONTEXT  65536\nPARALLEL 8\nBASEURL  127.0.0.1:8001\nPRESET   preset.ini\n',
    );
    expect(engineCommandOf(result, 'coder')).toBe(
      'vllm serve Qwen/Qwen3-Coder-30B-A3B --tensor-parallel-size 2 --gpu-memory-utilization 0.9 --enforce-eager --served-model-name coder --max-model-len 65536 --max-num-seqs 8 --host 127.0.0.1 --port 8001',
    );
    expect(lossesOf(result, 'coder')).toEqual([]);
  });

  it('reads the python -m entry point, noting the program is not the vllm on PATH', () => {
    const result = planOne(
      'v',
      'cmd: python3 -m vllm.entrypoints.openai.api_server --model org/m --port ${PORT}',
    );
    expect(engineCommandOf(result, 'v')).toBe(
      'vllm serve org/m --served-model-name v --host 127.0.0.1 --port 5800',
    );
    expect(lossesOf(result, 'v')[0]).toMatch(/^python3 -m vllm.entrypoints.openai.api_server: /);
  });
});

describe('the configuration as a whole', () => {
  const CONFIG = yamlLines('models:', '  ok:', '    cmd: llama-server -m /ok.gguf --port ${PORT}');

  it('lists the settings of the whole configuration svc has no place for', () => {
    const result = plan(
      yamlLines(
        'healthCheckTimeout: 500',
        'apiKeys: ["sk-hunter2"]',
        'peers:',
        '  openrouter: {proxy: "https://openrouter.ai/api", models: [a]}',
        CONFIG,
      ),
    );
    expect(lossesOf(result)).toEqual([
      "healthCheckTimeout: svc's gateway waits for a woken engine up to its --wake-timeout (default 5m): pass svc gateway --wake-timeout",
      "apiKeys (1, not shown): svc's gateway takes one token, from the variable the fleet file's gateway.tokenEnv names (default OPENAI_API_KEY)",
      'peers openrouter: write each as a kind: upstream node (url, apiKeyEnv, models; docs/fleet-file.md), its key in the .env beside the fleet file',
    ]);
    expect(JSON.stringify(result)).not.toContain('sk-hunter2');
  });
});

describe('a configuration that cannot be read', () => {
  it.each([
    [yamlLines('models:', '  m:', '    ttl: 5'), 'config.yaml line 3 (models.m): cmd is required'],
    [
      yamlLines('models:', '  m:', '    cmd: llama-server ${nope}'),
      'config.yaml line 3 (models.m.cmd): ${nope} is not a macro defined before it',
    ],
    [
      yamlLines('models:', '  m:', '    cmd: llama-server ${env.UNSET_HERE}'),
      'config.yaml line 3 (models.m.cmd): ${env.UNSET_HERE}: the environment variable UNSET_HERE is not set',
    ],
    [
      yamlLines('models:', '  m:', '    cmd: llama-server -m /m.gguf', '    ttl: soon'),
      'config.yaml line 4 (models.m.ttl): ttl is whole seconds',
    ],
    [yamlLines('models:', '  m:', '  cmd: x', ' bad'), 'config.yaml line 4'],
    [yamlLines('logLevel: info'), 'config.yaml (models): models is required'],
    [
      yamlLines('models:', '  m:', '    cmd: docker run x'),
      'config.yaml: no model could be carried over: "m" (its cmd takes no ${PORT} and its proxy names no port on this machine',
    ],
  ])('refuses, naming the line and field: %#', (text, expected) => {
    expect(importProblems(text).join('\n')).toContain(expected);
  });

  it('reports every problem at once', () => {
    const problems = importProblems(
      yamlLines('models:', '  a:', '    ttl: 1', '  b:', '    cmd: llama-server ${x}'),
    );
    expect(problems).toHaveLength(2);
  });
});

describe('every written file reads back', () => {
  it('through the Svcfile and preset parsers', () => {
    const result = plan(MACROS);
    for (const file of result.files) {
      if (file.path.endsWith('/Svcfile')) {
        expect(unwrap(parseSvcfile(file.text, file.path)).alias?.value).toBe('qwen-8b');
      } else if (file.path.endsWith('preset.ini')) {
        expect(unwrap(parsePreset(file.text, file.path)).sections).toHaveLength(1);
      }
    }
  });
});
