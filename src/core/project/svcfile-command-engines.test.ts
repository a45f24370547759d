/** Golden tests: Svcfile (+ preset) → the exact vllm, omlx and mtplx commands (spec §1.4). */
import { describe, expect, it } from 'vitest';

import { command, lines } from '../../../test/support/project-files/golden-command.ts';

describe('vllm (spec §1.4)', () => {
  it('puts MODEL first as the positional and maps ALIAS, CONTEXT, PARALLEL, BASEURL', () => {
    expect(
      command(
        lines(
          'PROVIDER vllm',
          'MODEL Qwen/Qwen3-27B-FP8',
          'ALIAS friendly',
          'CONTEXT 32768',
          'PARALLEL 4',
          'BASEURL http://0.0.0.0:8000/v1',
        ),
      ),
    ).toBe(
      'vllm serve Qwen/Qwen3-27B-FP8 --served-model-name friendly --max-model-len 32768 --max-num-seqs 4 --host 0.0.0.0 --port 8000',
    );
  });

  it('keeps the positional straight after serve, exactly once, with a preset', () => {
    expect(
      command(
        lines('PROVIDER vllm', 'MODEL org/m', 'ALIAS friendly', 'PRESET p.ini'),
        lines(
          '[friendly]',
          'max-model-len = 4096',
          'gpu-memory-utilization = 0.9',
          'tensor-parallel-size = 2',
        ),
      ),
    ).toBe(
      'vllm serve org/m --max-model-len 4096 --gpu-memory-utilization 0.9 --tensor-parallel-size 2 --served-model-name friendly',
    );
  });

  it('never derives tensor or pipeline parallelism from PARALLEL', () => {
    expect(command(lines('PROVIDER vllm', 'MODEL org/m', 'PARALLEL 8'))).not.toMatch(
      /tensor|pipeline/,
    );
  });
});

describe('omlx (spec §1.4)', () => {
  it('runs a bare Svcfile with only PROVIDER', () => {
    expect(command(lines('PROVIDER omlx'))).toBe('omlx serve');
  });

  it('turns BASEURL into --host/--port and ignores MODEL, ALIAS and CONTEXT as launch flags', () => {
    expect(
      command(
        lines(
          'PROVIDER omlx',
          'MODEL mlx-community/q',
          'ALIAS q',
          'CONTEXT 32k',
          'BASEURL http://0.0.0.0:1234',
        ),
      ),
    ).toBe('omlx serve --host 0.0.0.0 --port 1234');
  });

  it('passes preset keys verbatim in its own vocabulary, ~ unexpanded', () => {
    expect(
      command(
        lines('PROVIDER omlx', 'PRESET p.ini'),
        lines('[x]', 'model-dir = ~/models', 'memory-guard = balanced', 'm = x'),
      ),
    ).toBe("omlx serve --model-dir '~/models' --memory-guard balanced -m x");
  });

  it('never passes --api-key', () => {
    expect(command(lines('PROVIDER omlx', 'PARALLEL 2'), undefined, true)).not.toContain('api-key');
  });
});

describe('mtplx (spec §1.4)', () => {
  it('maps MODEL verbatim, always --download, ALIAS, CONTEXT, PARALLEL, BASEURL', () => {
    expect(
      command(
        lines(
          'PROVIDER mtplx',
          'MODEL Youssofal/Qwen-MTPLX',
          'ALIAS qwen',
          'CONTEXT 128k',
          'PARALLEL 2',
          'BASEURL http://127.0.0.1:9100/v1',
        ),
      ),
    ).toBe(
      'mtplx serve --model Youssofal/Qwen-MTPLX --download --model-id qwen --context-window 128000 --max-active-requests 2 --host 127.0.0.1 --port 9100',
    );
  });

  it('emits no bind flag without BASEURL', () => {
    expect(command(lines('PROVIDER mtplx', 'MODEL o/m'))).toBe(
      'mtplx serve --model o/m --download',
    );
  });

  it('passes preset keys through unchecked, scheduler-mode included, and c stays -c', () => {
    expect(
      command(
        lines('PROVIDER mtplx', 'MODEL o/m', 'ALIAS qwen', 'PRESET p.ini'),
        lines(
          '[*]',
          'host = 127.0.0.1',
          'port = 8000',
          '[qwen]',
          'context-window = 32768',
          'scheduler-mode = parallel',
          'c = should-stay-literal',
        ),
      ),
    ).toBe(
      'mtplx serve --host 127.0.0.1 --port 8000 --context-window 32768 --scheduler-mode parallel -c should-stay-literal --model o/m --download --model-id qwen',
    );
  });
});
