import { controllerCommand, parseSettings } from '../../cli/controller';
import { readKubeconfig } from '../../controller/kube/kubeconfig';
import { DEFAULT_SETTINGS } from '../../controller/runtime/run';

describe('reconstruct controller settings', () => {
  it('has defaults for every setting, with more than one worker and leader election off', () => {
    const settings = parseSettings(['--log-format', 'json'], {});
    expect(settings).toEqual({
      kindModules: [],
      builtinKinds: true,
      kubeconfig: undefined,
      ...DEFAULT_SETTINGS,
    });
    expect(DEFAULT_SETTINGS.workers).toBeGreaterThan(1);
    expect(DEFAULT_SETTINGS.leaderElect).toBe(false);
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

  it('takes a watch label selector, with a Lease of its own unless one is named, and says what is wrong with one', () => {
    const settings = (argv: string[]) =>
      parseSettings(argv, {}) as Exclude<ReturnType<typeof parseSettings>, 'help'>;
    const shard1 = settings(['--watch-label-selector', ' sharding.fluxcd.io/key=shard1 ']);
    const rest = settings(['--watch-label-selector', '!sharding.fluxcd.io/key']);
    expect(shard1.watchLabelSelector).toBe('sharding.fluxcd.io/key=shard1');
    expect(shard1.leaseName).toMatch(/^reconstruct-controller-[0-9a-f]{10}$/);
    expect(rest.leaseName).toMatch(/^reconstruct-controller-[0-9a-f]{10}$/);
    expect(rest.leaseName).not.toBe(shard1.leaseName);
    // Every replica of a shard finds the same Lease.
    expect(settings(['--watch-label-selector', 'sharding.fluxcd.io/key=shard1']).leaseName).toBe(
      shard1.leaseName,
    );
    expect(settings(['--watch-label-selector', 'a=b', '--lease-name', 'mine']).leaseName).toBe('mine');
    expect(settings([]).watchLabelSelector).toBeUndefined();
    expect(() => parseSettings(['--watch-label-selector', 'a in ()'], {})).toThrow(
      '--watch-label-selector: "a in ()": in needs at least one value',
    );
  });

  it('takes rollout settings for every kind, each only when given', () => {
    const settings = (argv: string[], env: NodeJS.ProcessEnv) =>
      parseSettings(argv, env) as Exclude<ReturnType<typeof parseSettings>, 'help'>;
    expect(settings([], {}).rollout).toBeUndefined();
    expect(
      settings(['--rollout-max-in-flight', '5'], { RECONSTRUCT_ROLLOUT_PROGRESS_DEADLINE: '120' }).rollout,
    ).toEqual({ maxInFlight: 5, failureThreshold: undefined, progressDeadlineSeconds: 120 });
    expect(() => parseSettings(['--rollout-failure-threshold', '0'], {})).toThrow(
      '--rollout-failure-threshold: "0" is not a whole number of at least 1',
    );
  });

  it('traces only when an OTLP endpoint or a sampling ratio is given, and checks both', () => {
    const settings = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
      parseSettings(argv, env) as Exclude<ReturnType<typeof parseSettings>, 'help'>;
    expect(settings([]).tracing).toBeUndefined();
    expect(
      settings(['--otlp-endpoint', 'http://collector:4318'], { RECONSTRUCT_TRACE_SAMPLING: '0.1' }).tracing,
    ).toEqual({ endpoint: 'http://collector:4318', sampleRatio: 0.1 });
    expect(() => parseSettings(['--otlp-endpoint', 'collector:4318'], {})).toThrow(
      '--otlp-endpoint: "collector:4318" is not an http(s) URL (e.g. http://otel-collector:4318)',
    );
    expect(() => parseSettings(['--trace-sampling', '10'], {})).toThrow(
      '--trace-sampling: "10" is not a number from 0 to 1',
    );
  });

  it('secures /metrics only when asked, else by the address (controller/runtime/run.ts decides)', () => {
    const settings = (argv: string[]) =>
      parseSettings(argv, {}) as Exclude<ReturnType<typeof parseSettings>, 'help'>;
    expect(settings([]).metricsSecure).toBeUndefined();
    expect(settings(['--metrics-secure', 'false']).metricsSecure).toBe(false);
    expect(settings(['--metrics-secure', 'true', '--metrics-cert-dir', '/certs'])).toMatchObject({
      metricsSecure: true,
      metricsCertDir: '/certs',
    });
    expect(() => settings(['--metrics-secure', 'yes'])).toThrow(
      '--metrics-secure: "yes" is not one of true, false',
    );
  });

  it('names the bad setting', () => {
    expect(() => parseSettings(['--workers', '0'], {})).toThrow('--workers: "0" is not a positive number');
    expect(() => parseSettings([], { RECONSTRUCT_LOG_LEVEL: 'loud' })).toThrow(
      '--log-level: "loud" is not one of debug, info, warn, error',
    );
    expect(() => parseSettings(['--bogus'], {})).toThrow(/bogus/);
  });
});

describe('reconstruct controller without a kubeconfig', () => {
  it('says in one line what is missing and what to do, and exits 2, with no stack trace', async () => {
    const written: string[] = [];
    const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      written.push(String(chunk));
      return true;
    });
    try {
      expect(
        await controllerCommand(['--kubeconfig', '/nonexistent/kubeconfig', '--log-level', 'error']),
      ).toBe(2);
    } finally {
      stderr.mockRestore();
    }
    const text = written.join('');
    expect(text.trim().split('\n')).toEqual([
      "reconstruct controller: kubeconfig /nonexistent/kubeconfig: cannot read it: ENOENT: no such file or directory, open '/nonexistent/kubeconfig'",
    ]);
    expect(text).not.toMatch(/\n\s+at /);
  });

  it('points at the local cluster when no kubeconfig is found anywhere', () => {
    expect(() =>
      readKubeconfig({ env: { HOME: '/nonexistent' }, serviceAccountDir: '/nonexistent' }),
    ).toThrow(/^no kubeconfig: .*: set KUBECONFIG, or start a local cluster \(`reconstruct cluster up`/);
  });
});
