/**
 * What the bench sees through its own watches (one informer each for the resources, Deployments and Services): when
 * each resource was created, when its children were applied, when it became Ready, and its Deployment's
 * replicas. "Applied" means delivered by this watch, the same for the controller and the baseline; which
 * children count and what Ready means are the Milestones it is given.
 */
import { DEPLOYMENT, SERVICE } from '../../constructs';
import type { ApiKind, KubeObject } from '../../constructs/kit';
import { Informer } from '../../controller/runtime/informer';
import type { KubeClient } from '../../controller/kube/client';
import { MEMCACHED, isReady } from './cluster';
import type { Milestones } from './controller-under-test';
import { now } from './support';

export class Observer {
  created = new Map<string, number>();
  deploymentSeen = new Map<string, number>();
  serviceSeen = new Map<string, number>();
  readyAt = new Map<string, number>();
  replicas = new Map<string, number>();
  /** Per resource: whether its Deployment has all the ready replicas it asks for, at its latest generation. */
  deploymentReady = new Map<string, boolean>();
  uids = new Map<string, string>();
  statusChanges = 0;
  private replicaWaiters = new Map<string, { want: number; resolve: () => void }>();
  private readonly informers: Informer[];

  constructor(
    client: KubeClient,
    namespace: string,
    readonly milestones: Milestones,
    resource: ApiKind = MEMCACHED,
  ) {
    this.informers = [
      new Informer(
        client,
        { type: resource, namespace },
        {
          onAdd: (obj) => this.memcached(obj),
          onUpdate: (old, obj) => {
            if (JSON.stringify(old.status) !== JSON.stringify(obj.status)) this.statusChanges++;
            this.memcached(obj);
          },
        },
      ),
      new Informer(
        client,
        { type: DEPLOYMENT, namespace },
        {
          onAdd: (obj) => this.deployment(obj),
          onUpdate: (_, obj) => this.deployment(obj),
        },
      ),
      new Informer(client, { type: SERVICE, namespace }, { onAdd: (obj) => this.service(obj) }),
    ];
  }

  private memcached(obj: KubeObject): void {
    if (this.milestones.ready === 'condition' && isReady(obj)) this.ready(obj.metadata.name);
  }

  private ready(name: string): void {
    if (!this.readyAt.has(name)) this.readyAt.set(name, now());
  }

  private deployment(obj: KubeObject): void {
    const name = obj.metadata.name;
    if (!this.deploymentSeen.has(name)) this.deploymentSeen.set(name, now());
    const replicas = (obj.spec as { replicas?: number } | undefined)?.replicas ?? 1;
    this.replicas.set(name, replicas);
    const status = obj.status as { observedGeneration?: number; readyReplicas?: number } | undefined;
    const ready =
      (status?.observedGeneration ?? 0) >= (obj.metadata.generation ?? 0) &&
      (status?.readyReplicas ?? 0) === replicas;
    this.deploymentReady.set(name, ready);
    if (this.milestones.ready === 'deployment' && ready) this.ready(name);
    const waiter = this.replicaWaiters.get(name);
    if (waiter && waiter.want === replicas) {
      this.replicaWaiters.delete(name);
      waiter.resolve();
    }
  }

  private service(obj: KubeObject): void {
    if (!this.serviceSeen.has(obj.metadata.name)) this.serviceSeen.set(obj.metadata.name, now());
  }

  async start(): Promise<void> {
    this.informers.forEach((i) => i.start());
    await Promise.all(this.informers.map((i) => i.waitForSync(AbortSignal.timeout(60_000))));
  }

  async stop(): Promise<void> {
    await Promise.all(this.informers.map((i) => i.stop()));
  }

  /** Forgets everything seen so far (between phases). */
  reset(): void {
    this.created = new Map();
    this.deploymentSeen = new Map();
    this.serviceSeen = new Map();
    this.readyAt = new Map();
    this.replicas = new Map();
    this.deploymentReady = new Map();
    this.uids = new Map();
    this.statusChanges = 0;
    this.replicaWaiters = new Map();
  }

  /** Resolves true once the Deployment `name` has spec.replicas == want, false after timeoutMs. */
  replicasBecome(name: string, want: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolveWait) => {
      const timer = setTimeout(() => {
        this.replicaWaiters.delete(name);
        resolveWait(false);
      }, timeoutMs);
      this.replicaWaiters.set(name, {
        want,
        resolve: () => {
          clearTimeout(timer);
          resolveWait(true);
        },
      });
    });
  }

  /** When the last of the resource's children (the milestones' kinds) was seen; undefined until all are. */
  childrenApplied(name: string): number | undefined {
    const seen = { Deployment: this.deploymentSeen, Service: this.serviceSeen };
    const times = this.milestones.children.map((kind) => seen[kind].get(name));
    return times.every((t) => t !== undefined) ? Math.max(...times) : undefined;
  }

  /** Per resource: its children seen, minus its create's response. */
  latencies(names: string[]): number[] {
    return names.map((n) => (this.childrenApplied(n) ?? NaN) - (this.created.get(n) ?? NaN));
  }

  lastChildApplied(names: string[]): number {
    return Math.max(...names.map((n) => this.childrenApplied(n) ?? NaN));
  }
}
