import { parseSettings } from '../../cli/controller';

describe('reconstruct controller settings', () => {
  it('has defaults for every setting, with more than one worker and leader election off', () => {
    expect(parseSettings(['--log-format', 'json'], {})).toEqual({
      kindModules: [],
      builtinKinds: true,
      kubeconfig: undefined,
      namespaces: [],
      workers: 4,
      leaderElect: false,
      leaseName: 'reconstruct-controller',
      leaseNamespace: 'default',
      leaseDurationMs: 15_000,
      fieldManager: 'reconstruct',
      metricsAddr: '127.0.0.1:8080',
      healthAddr: '127.0.0.1:8081',
      resyncMs: 36_000_000,
      shutdownMs: 20_000,
      logLevel: 'info',
      logFormat: 'json',
    });
  });

  it('reads RECONSTRUCT_* variables, and flags win over them', () => {
    const env = {
      RECONSTRUCT_NAMESPACES: 'a, b',
      RECONSTRUCT_WORKERS: '8',
      RECONSTRUCT_LEADER_ELECT: 'true',
    };
    expect(parseSettings([], env)).toMatchObject({ namespaces: ['a', 'b'], workers: 8, leaderElect: true });
    expect(parseSettings(['--workers', '2', '--namespaces', 'c'], env)).toMatchObject({
      namespaces: ['c'],
      workers: 2,
    });
  });

  it('names the bad setting', () => {
    expect(() => parseSettings(['--workers', '0'], {})).toThrow('--workers: "0" is not a positive number');
    expect(() => parseSettings([], { RECONSTRUCT_LOG_LEVEL: 'loud' })).toThrow(
      '--log-level: "loud" is not one of debug, info, warn, error',
    );
    expect(() => parseSettings(['--bogus'], {})).toThrow(/bogus/);
  });
});
