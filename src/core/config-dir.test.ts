import { describe, expect, it } from 'vitest';

import { configPaths, resolveConfigDir } from './config-dir.ts';

const base = { home: '/home/ada', cwd: '/work' };

describe('resolveConfigDir', () => {
  it('uses $SVC_CONFIG_DIR first', () => {
    expect(
      resolveConfigDir({ ...base, env: { SVC_CONFIG_DIR: '/srv/svc', XDG_CONFIG_HOME: '/xdg' } }),
    ).toBe('/srv/svc');
  });

  it('takes a relative $SVC_CONFIG_DIR against the working directory', () => {
    expect(resolveConfigDir({ ...base, env: { SVC_CONFIG_DIR: 'state' } })).toBe('/work/state');
  });

  it('falls back to $XDG_CONFIG_HOME/svc', () => {
    expect(resolveConfigDir({ ...base, env: { XDG_CONFIG_HOME: '/xdg' } })).toBe('/xdg/svc');
  });

  it('falls back to ~/.config/svc', () => {
    expect(resolveConfigDir({ ...base, env: {} })).toBe('/home/ada/.config/svc');
  });

  it('treats empty variables as unset', () => {
    expect(resolveConfigDir({ ...base, env: { SVC_CONFIG_DIR: '', XDG_CONFIG_HOME: '' } })).toBe(
      '/home/ada/.config/svc',
    );
  });

  it('ignores a relative $XDG_CONFIG_HOME, as the XDG spec requires', () => {
    expect(resolveConfigDir({ ...base, env: { XDG_CONFIG_HOME: 'relative' } })).toBe(
      '/home/ada/.config/svc',
    );
  });
});

describe('configPaths', () => {
  it('puts the engine log at daemon/engine.log', () => {
    expect(configPaths('/c')).toEqual({
      daemonDir: '/c/daemon',
      engineLog: '/c/daemon/engine.log',
    });
  });
});
