/**
 * Golden tests: `PROVIDER command` (docs/design.md D31), any program as an engine: COMMAND split
 * with shell quoting and run as argv, `${PORT}` replaced; HEALTH and STOP; and ENGINE, a
 * llama-server build by path. Each refusal names the line and what to write instead.
 */
import { describe, expect, it } from 'vitest';

import { command, failure, lines } from '../../../test/support/project-files/golden-command.ts';
import { buildCommand, engineOf, stopCommand } from '../engines/build-command.ts';
import { deployConfigFromSpec } from './deploy-config-from-project.ts';
import { unwrap } from './diagnostics.ts';
import { parseSvcfile } from './parse.ts';
import { resolveProject } from './resolve.ts';

function specOf(svcfile: string) {
  return unwrap(
    resolveProject({ project: unwrap(parseSvcfile(svcfile, 'Svcfile')), supervised: true }),
  ).spec;
}

describe('PROVIDER command (docs/design.md D31)', () => {
  it("runs COMMAND as written, ${PORT} replaced by BASEURL's port", () => {
    expect(
      command(
        lines(
          'PROVIDER command',
          'ALIAS whisper',
          `COMMAND whisper-server --host 127.0.0.1 --port \${PORT} -m "/models/ggml base.bin"`,
          'BASEURL 127.0.0.1:9123',
        ),
        undefined,
        true,
      ),
    ).toBe("whisper-server --host 127.0.0.1 --port 9123 -m '/models/ggml base.bin'");
  });

  it('replaces ${PORT} inside a word, and uses 8080 when BASEURL names no port', () => {
    expect(
      command(
        lines('PROVIDER command', 'COMMAND docker run --rm -p ${PORT}:8080 img:1 --x=${PORT}'),
      ),
    ).toBe('docker run --rm -p 8080:8080 img:1 --x=8080');
  });

  it('adds nothing of its own: no metrics switch, no key file, no bind flags', () => {
    expect(
      command(
        lines('PROVIDER command', 'COMMAND srv ${PORT}', 'BASEURL 0.0.0.0:7000'),
        undefined,
        true,
      ),
    ).toBe('srv 7000');
  });

  it('checks readiness on HEALTH (default /health) and listens where BASEURL says', () => {
    const spec = specOf(lines('PROVIDER command', 'COMMAND srv ${PORT}', 'HEALTH /v1/models'));
    expect(engineOf(spec).health).toEqual({ path: '/v1/models', readyWhen: '200' });
    expect(buildCommand(spec).bind).toEqual({ host: '127.0.0.1', port: 8080 });
    const plain = specOf(lines('PROVIDER command', 'COMMAND srv ${PORT}', 'BASEURL 0.0.0.0:81'));
    expect(engineOf(plain).health).toEqual({ path: '/health', readyWhen: '200' });
    expect(buildCommand(plain).bind).toEqual({ host: '0.0.0.0', port: 81 });
  });

  it('builds STOP with ${PID} replaced; none without STOP', () => {
    const spec = specOf(
      lines('PROVIDER command', 'COMMAND srv ${PORT}', 'STOP kill -INT ${PID} "x${PID}y"'),
    );
    expect(stopCommand(spec, 4242)).toEqual(['kill', '-INT', '4242', 'x4242y']);
    expect(
      stopCommand(specOf(lines('PROVIDER command', 'COMMAND srv ${PORT}')), 1),
    ).toBeUndefined();
  });

  it('refuses a command Svcfile without COMMAND, and keywords it cannot hand the program', () => {
    expect(failure(lines('PROVIDER command', 'ALIAS a')).message).toBe(
      'Svcfile: PROVIDER command needs COMMAND <program and its arguments>, with ${PORT} where it takes its port',
    );
    expect(
      failure(lines('PROVIDER command', 'COMMAND srv ${PORT}', 'CONTEXT 4k', 'PARALLEL 2')).message,
    ).toBe(
      [
        'Svcfile:3: PROVIDER command takes no CONTEXT: svc cannot hand it to an arbitrary program; write it into COMMAND',
        'Svcfile:4: PROVIDER command takes no PARALLEL: svc cannot hand it to an arbitrary program; write it into COMMAND',
      ].join('\n'),
    );
  });

  it('refuses a COMMAND without ${PORT} unless BASEURL names the port', () => {
    expect(failure(lines('PROVIDER command', 'COMMAND srv --port 9000')).message).toBe(
      'Svcfile:2: COMMAND does not use ${PORT}, so BASEURL must name the port the program listens on',
    );
    expect(
      command(lines('PROVIDER command', 'COMMAND srv --port 9000', 'BASEURL localhost:9000')),
    ).toBe('srv --port 9000');
  });

  it.each(['COMMAND srv', 'HEALTH /ready', 'STOP kill ${PID}'])(
    'refuses %s for an engine svc knows',
    (line) => {
      expect(failure(lines('PROVIDER llamacpp', 'MODEL org/m', line)).message).toMatch(
        /^Svcfile:3: (COMMAND|HEALTH|STOP) is for PROVIDER command only; PROVIDER llamacpp runs llama\.cpp, whose command, readiness check and stop svc knows$/,
      );
    },
  );
});

describe('ENGINE: a llama-server build by path (docs/design.md D31)', () => {
  it('runs that executable in place of llama-server on PATH, flags unchanged', () => {
    expect(
      command(
        lines(
          'PROVIDER llamacpp',
          'ENGINE /opt/llama.cpp/llama-server-ec9e0301',
          'MODEL /models/q.gguf',
          'BASEURL 127.0.0.1:5800',
        ),
      ),
    ).toBe('/opt/llama.cpp/llama-server-ec9e0301 -m /models/q.gguf --host 127.0.0.1 --port 5800');
  });

  it('refuses ENGINE for another provider, and a relative path', () => {
    expect(failure(lines('PROVIDER vllm', 'MODEL o/m', 'ENGINE /opt/vllm')).message).toBe(
      'Svcfile:3: ENGINE is for PROVIDER llamacpp only (a llama-server build by path)',
    );
    expect(
      failure(lines('PROVIDER llamacpp', 'MODEL o/m', 'ENGINE bin/llama-server')).message,
    ).toBe(
      'Svcfile:3: ENGINE "bin/llama-server" must be an absolute path to a llama-server executable',
    );
  });
});

describe('what a daemon node cannot run (spec §2.7: a deploy config names neither)', () => {
  it('refuses PROVIDER command and ENGINE for a daemon node, pointing at kind: local', () => {
    const program = deployConfigFromSpec(
      specOf(lines('PROVIDER command', 'COMMAND srv ${PORT}')),
      'w/Svcfile',
    );
    expect(program).toEqual({
      ok: false,
      problems: [
        'w/Svcfile: PROVIDER command cannot run on a daemon node (use llamacpp, vllm, mtplx); run it with svc serve --api on its machine or make the node kind: local',
      ],
    });
    const build = deployConfigFromSpec(
      specOf(lines('PROVIDER llamacpp', 'MODEL o/m', 'ENGINE /opt/ls')),
      'b/Svcfile',
    );
    expect(build.ok ? [] : build.problems).toEqual([
      "b/Svcfile: ENGINE /opt/ls cannot run on a daemon node (a deploy config names no executable, spec §2.7: the daemon runs the engine on its PATH); make the node kind: local, or put that build first on the daemon's PATH",
    ]);
  });
});
