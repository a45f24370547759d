/**
 * A llama-swap model whose cmd is no engine svc knows runs as `PROVIDER command` (docs/design.md
 * D31): a container or another server keeps its cmd as COMMAND, cmdStop as STOP, checkEndpoint as
 * HEALTH, and the port llama-swap numbered from startPort.
 */
import { describe, expect, it } from 'vitest';

import {
  engineCommandOf,
  fileText,
  lossesOf,
  plan,
  yamlLines,
} from '../../test/support/project-files/import-plan.ts';

describe('what is not an engine svc runs', () => {
  const CONFIG = yamlLines(
    'models:',
    '  ok:',
    '    cmd: llama-server -m /ok.gguf --port ${PORT}',
    '  docker-llama:',
    '    proxy: "http://127.0.0.1:${PORT}"',
    '    cmd: |',
    '      docker run --name ${MODEL_ID} --init --rm -p ${PORT}:8080',
    '      ghcr.io/ggml-org/llama.cpp:server --model /models/q.gguf',
    '    cmdStop: docker stop ${MODEL_ID}',
    '  whisper:',
    '    cmd: whisper-server --port ${PORT} -m /w.bin',
    '    filters: {stripParams: "temperature"}',
  );

  it('runs a container or another server as PROVIDER command, cmdStop as STOP (D31)', () => {
    const result = plan(CONFIG);
    expect(result.files.map((file) => file.path)).toEqual([
      'fleet.yaml',
      '.env',
      'ok/Svcfile',
      'docker-llama/Svcfile',
      'whisper/Svcfile',
    ]);
    // startPort's numbering, by model id: docker-llama 5800, ok 5801, whisper 5802.
    expect(fileText(result, 'docker-llama/Svcfile')).toBe(
      yamlLines(
        '# llama-swap model "docker-llama" from config.yaml, imported by svc import llama-swap',
        'PROVIDER command',
        'ALIAS    docker-llama',
        'COMMAND  docker run --name docker-llama --init --rm -p ${PORT}:8080 ghcr.io/ggml-org/llama.cpp:server --model /models/q.gguf',
        'STOP     docker stop docker-llama',
        'BASEURL  127.0.0.1:5800',
      ),
    );
    expect(engineCommandOf(result, 'docker-llama')).toBe(
      'docker run --name docker-llama --init --rm -p 5800:8080 ghcr.io/ggml-org/llama.cpp:server --model /models/q.gguf',
    );
    expect(engineCommandOf(result, 'ok')).toContain('--port 5801');
    expect(engineCommandOf(result, 'whisper')).toBe('whisper-server --port 5802 -m /w.bin');
    expect(lossesOf(result, 'docker-llama')).toEqual([]);
    expect(lossesOf(result, 'whisper')).toEqual([]);
    expect(fileText(result, 'fleet.yaml')).toContain(
      'params:\n      strip:\n        - temperature\n',
    );
  });

  it('carries checkEndpoint as HEALTH, a startPort, and a fixed port from the proxy', () => {
    const result = plan(
      yamlLines(
        'startPort: 10001',
        'models:',
        '  sd:',
        '    cmd: sd-server --listen-port ${PORT}',
        '    checkEndpoint: /v1/models',
        '  fixed:',
        '    cmd: my-server --port 7070',
        '    proxy: http://localhost:7070',
      ),
    );
    expect(fileText(result, 'sd/Svcfile')).toContain(
      'HEALTH   /v1/models\nBASEURL  127.0.0.1:10001\n',
    );
    expect(engineCommandOf(result, 'sd')).toBe('sd-server --listen-port 10001');
    expect(fileText(result, 'fixed/Svcfile')).toContain('BASEURL  127.0.0.1:7070\n');
  });
});
