/**
 * The operator process as a function: the caches, the work queue and the workers for a list of kinds,
 * the health and metrics servers, leader election and a bounded shutdown. `reconstruct controller` parses
 * its flags into these settings; a program that embeds the controller calls `runController` itself.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { KindRegistry, type Kind } from '../../constructs/kit';
import { Campaign } from './campaign';
import { LeaderElector } from './leader';
import { RING_LABEL, drainLabel, memberName, shardLabel } from '../sharding/members';
import { Sharder } from '../sharding/sharder';
import { ShardMember } from '../sharding/member';
import { sharderMetrics, watchShare } from '../sharding/metrics';
import { SettingsError, chooseReadPath, shareCheck } from '../sharding/read-path';
import { loadClient } from '../kube/client';
import { createLogger } from '../log';
import { Manager } from './manager';
import { Stopping, withTimeout } from './stopping';
import { Metrics, observeRequests } from './metrics';
import { MetricsAuthorizer } from './metrics-auth';
import { HealthServer, hostOf, isLoopback } from './server';
import { metricsCertificate } from '../kube/self-signed';
import { ServingThread } from '../serving/thread';
import { startTracing } from '../tracing/setup';
import { traceRequests } from '../tracing/requests';
import { version } from '../../package.json';
import { startConversionWebhook } from '../serving/conversions';

import { DEFAULT_SETTINGS, defaultLeaseName, type ControllerSettings } from './settings';

export { DEFAULT_SETTINGS, SettingsError, defaultLeaseName, type ControllerSettings };

/**
 * Runs the controller for `kinds` until SIGTERM or SIGINT (or `signal` aborts), then shuts down within
 * `shutdownMs`. Resolves with the exit status: 0 after a requested stop, 1 after losing the lease.
 */
export async function runController(
  kinds: KindRegistry | readonly Kind[],
  options: Partial<ControllerSettings> = {},
  signal?: AbortSignal,
): Promise<number> {
  const settings = {
    ...DEFAULT_SETTINGS,
    leaseName: defaultLeaseName(options.watchLabelSelector),
    ...options,
  };
  const log = options.log ?? createLogger({ level: settings.logLevel, format: settings.logFormat });
  const registry = kinds instanceof KindRegistry ? kinds : new KindRegistry(kinds);
  const client = loadClient({ kubeconfig: settings.kubeconfig, userAgent: 'reconstruct-controller' });
  const metrics = new Metrics({ apiHost: client.host });
  observeRequests(client, metrics, log);
  metrics.watchConnections(client);
  const suffix = randomBytes(4).toString('hex');
  const identity = `${hostname()}_${suffix}`;
  const sharding = settings.sharding
    ? { ring: settings.shardRing ?? settings.leaseName, member: memberName(hostname(), suffix) }
    : undefined;
  const traces = startTracing(settings.tracing ?? {}, log, {
    version,
    instance: identity,
    member: sharding?.member,
    kinds: registry.kinds,
  });
  traceRequests(client, traces.tracing);
  const readPath = sharding ? await chooseReadPath(client, settings, log, signal) : undefined;
  if (sharding) {
    const { ring, member } = sharding;
    if (readPath === 'labels')
      settings.watchLabelSelector = [settings.watchLabelSelector, `${shardLabel(ring)}=${member}`]
        .filter(Boolean)
        .join(',');
    log.info('a member of the ring', {
      ring,
      member,
      lease: `${settings.leaseNamespace}/${member}`,
      readPath,
    });
  }
  const manager = new Manager(
    client,
    registry,
    {
      ...settings,
      ...(sharding && readPath === 'labels'
        ? { shard: { label: shardLabel(sharding.ring), drain: drainLabel(sharding.ring) } }
        : {}),
      shardedWatch: readPath === 'ranges',
      tracing: traces.tracing,
    },
    log,
    metrics,
  );
  const external = registry.kinds.filter((k) => k.external !== undefined);
  metrics.watchExternal(() => external.map((k) => ({ kind: k.kind, ...manager.external.counts(k) })));
  // On the ranges read path: the member's share, from the ring's record (controller/sharding/member).
  const shardMember =
    sharding && readPath === 'ranges'
      ? new ShardMember({
          client,
          ring: sharding.ring,
          member: sharding.member,
          leaseNamespace: settings.leaseNamespace,
          log,
          hold: (ranges) => manager.reshard(ranges),
          quiesce: () => manager.quiesce(),
        })
      : undefined;
  if (sharding)
    watchShare(
      metrics.registry,
      sharding.ring,
      sharding.member,
      () => manager.heldCounts(),
      shardMember
        ? () => ({ generation: shardMember.share.generation, ranges: shardMember.share.ranges.length })
        : undefined,
    );
  if (settings.watchLabelSelector && !sharding)
    log.info('watching the resources a label selector selects, and their children', {
      selector: settings.watchLabelSelector,
      lease: settings.leaseName,
    });

  const servers: HealthServer[] = [];
  // Ready once no kind is still filling its caches; a kind refused (no CRD, no permission) is listed in
  // /readyz?verbose and does not hold the others up.
  const probes = {
    ready: () => manager.isReady(),
    checks: () => [
      ...manager.kindStates().map((k) => ({
        name: `kind ${k.kind}`,
        ok: k.state === 'ready',
        message: k.state === 'unavailable' ? `unavailable: ${k.message ?? ''}` : k.state,
      })),
      ...(sharding ? [shareCheck(sharding, readPath!, shardMember?.share)] : []),
    ],
    metrics: () => metrics.render(),
  };
  // The probes' port serves /metrics too only on loopback (a local run, the tests): a kubelet's probes need
  // no token, a scraper does. The probes and the conversions are answered by a thread of their own
  // (controller/serving), whatever the main thread is doing.
  const serving = await ServingThread.start({
    healthAddress: settings.healthAddr,
    ready: probes.ready,
    checks: probes.checks,
    ...(isLoopback(settings.healthAddr) ? { metrics: probes.metrics } : {}),
    ...(settings.kindsFrom ? { kinds: settings.kindsFrom } : {}),
    log,
    observe: (seconds, code) => metrics.webhookRequest('/convert', code, seconds),
  });
  const healthPort = serving.healthPort;
  if (settings.metricsAddr !== '0' && settings.metricsAddr !== settings.healthAddr) {
    const secure = settings.metricsSecure ?? !isLoopback(settings.metricsAddr);
    const authorizer = new MetricsAuthorizer(client);
    const metricsServer = new HealthServer({
      ...probes,
      ...(secure
        ? { tls: metricsCertificate(settings.metricsCertDir), authorize: (h) => authorizer.decide(h) }
        : {}),
    });
    const metricsPort = await metricsServer.listen(settings.metricsAddr);
    servers.push(metricsServer);
    log.info('serving /metrics', { address: `${hostOf(settings.metricsAddr)}:${metricsPort}`, secure });
  }
  // The port chosen for :0, so that a test or a sidecar can find the probes.
  log.info('serving /healthz and /readyz', { address: `${hostOf(settings.healthAddr)}:${healthPort}` });

  const webhook = await startConversionWebhook(client, registry, settings, log, metrics, serving);
  manager.start();
  const leads = settings.leaderElect || sharding !== undefined;
  if (leads) metrics.leading(settings.leaseName, false);
  // client-go's proportions: renew within 2/3 of the lease, retry every 2/15 of it.
  const timing = {
    namespace: settings.leaseNamespace,
    leaseDurationMs: settings.leaseDurationMs,
    renewDeadlineMs: Math.round((settings.leaseDurationMs * 2) / 3),
    retryPeriodMs: Math.round((settings.leaseDurationMs * 2) / 15),
  };
  const lease = (name: string, id: string, shared?: { labels: Record<string, string> }) =>
    new LeaderElector(client, { ...timing, name, identity: id, ...shared, sharedMetadata: !!shared }, log);
  // Not sharded: the replica that holds the Lease works; losing it ends the process (exit 1), as
  // controller-runtime's does, and a standby takes over.
  const elector = leads && !sharding ? lease(settings.leaseName, identity) : undefined;
  let sharder: Sharder | undefined;

  // Each kind is reconciled once its own caches have synced (Manager.kindStates), not after every kind's.
  let working: Promise<void> | undefined;
  const startWorking = () => {
    log.info('starting workers', { workers: settings.workers, protocol: client.protocol });
    working ??= manager.run();
  };

  const stopping = new Stopping();
  process.once('SIGTERM', () => stopping.request('SIGTERM'));
  process.once('SIGINT', () => stopping.request('SIGINT'));
  if (signal?.aborted) stopping.request('aborted');
  signal?.addEventListener('abort', () => stopping.request('aborted'), { once: true });
  // Sharded: a member works while it holds its own Lease, which the ring's leader takes over when it stops
  // renewing. One that loses it (renewals late on a loaded machine, a partition) steps back: it takes no
  // work while its share goes to the others, and stands again; it does not exit (controller/runtime/campaign).
  const membership =
    sharding &&
    new Campaign(() => lease(sharding.member, sharding.member, { labels: { [RING_LABEL]: sharding.ring } }), {
      onLeading: (again) => {
        if (again) {
          log.info('joined the ring again', sharding);
          return manager.resume();
        }
        log.info('joined the ring', sharding);
        shardMember?.start();
        startWorking();
      },
      onLost: () => {
        manager.pause();
        // While it stops, the wait for its reconciles ends: the work is no longer its own.
        if (stopping.decided) return (stopping.loseLease('lost its member Lease'), false);
        log.warn('stepped back from the ring: it lost its member Lease; it stands again', sharding);
        return true;
      },
    });
  // And the one that holds the ring's Lease runs the sharder; losing it stops the sharder alone.
  const leadership =
    sharding &&
    new Campaign(() => lease(settings.leaseName, identity), {
      onLeading: () => {
        log.info('became leader', { lease: `${settings.leaseNamespace}/${settings.leaseName}`, identity });
        metrics.leading(settings.leaseName, true);
        sharder = new Sharder({
          client,
          kinds: registry.kinds,
          ring: sharding.ring,
          leaseNamespace: settings.leaseNamespace,
          identity,
          namespaces: settings.namespaces,
          readPath,
          metrics: sharderMetrics(metrics.registry, sharding.ring),
          log: log.child({ ring: sharding.ring }),
        });
        sharder.start();
      },
      onLost: () => {
        metrics.leading(settings.leaseName, false);
        void sharder?.stop();
        sharder = undefined;
        return !stopping.decided;
      },
    });
  if (membership && leadership) {
    membership.start();
    leadership.start();
  } else if (elector) {
    void elector.run({
      onStartedLeading: () => {
        log.info('became leader', { lease: `${settings.leaseNamespace}/${settings.leaseName}`, identity });
        metrics.leading(settings.leaseName, true);
        startWorking();
      },
      onStoppedLeading: () => {
        metrics.leading(settings.leaseName, false);
        stopping.loseLease('lost the lease');
      },
    });
  } else {
    startWorking();
  }

  const reason = await stopping.reason;
  log.info('shutting down', { reason });
  manager.stopWorkers();
  // A replica that lost its lease does not wait for its reconciles, as controller-runtime exits at once:
  // another replica may take its resources as soon as the lease runs out, a third of a duration away. One
  // that loses it while it waits on a requested stop stops waiting then.
  const boundMs = stopping.failed ? 0 : settings.shutdownMs;
  const deadline = Date.now() + boundMs;
  // External handlers in flight finish within the same bound, then are aborted (controller/external).
  const handlers = manager.external.stop(boundMs);
  if (
    working &&
    (await withTimeout(Promise.all([working, handlers]), boundMs, stopping.leaseLost)) === 'timeout' &&
    !stopping.failed
  ) {
    if (stopping.leaseLost.aborted) log.warn('lost a lease while stopping: in-flight reconciles abandoned');
    else
      log.warn('in-flight reconciles did not finish in time', { timeoutSeconds: settings.shutdownMs / 1000 });
  }
  // What the last reconciles had to say; within the same bound.
  if ((await withTimeout(manager.drainEvents(), Math.max(0, deadline - Date.now()))) === 'timeout') {
    log.warn('events still waiting at shutdown were not sent');
  }
  await sharder?.stop();
  await shardMember?.stop();
  if (elector) await elector.release();
  if (leadership) await leadership.release();
  // Its resources go to the others at once, not after its Lease expires: it has stopped working on them.
  if (membership) await membership.release();
  await manager.stop();
  await webhook?.stop();
  await Promise.all([...servers.map((s) => s.close()), serving.close()]);
  await traces.shutdown();
  // Losing the lease without being asked to stop is a failure: the Deployment restarts us as a standby.
  return stopping.exitCode;
}
