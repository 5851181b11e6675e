/**
 * The controller under test, as the phases see it: how to start one process of it, how to read it, and
 * when its work on a resource counts as done. Any controller that reconciles the Memcached kind
 * (cache.example.com) into a Deployment (and more), serves a readiness URL and Prometheus metrics, and runs
 * as a process of its own can be measured; `reconstruct.ts`, `peer-go.ts` and `peer-kro.ts` describe the
 * three there are. A controller may reconcile a kind of its own instead (kro: the Memcached its
 * ResourceGraphDefinition defines), with the same `spec.size`.
 */
import type { ApiKind } from '../../constructs/kit';
import type { KubeClient } from '../../controller/kube/client';
import type { MetricNames } from './metrics';

/** What one run of the controller is asked to do. */
export interface LaunchOptions {
  /** The only namespace it watches. */
  namespace: string;
  /** Reconciles in parallel. */
  workers: number;
  /** Its resync period; a long one (a day) for none during a phase; undefined: its own default. */
  resyncSeconds?: number;
  /** Write a CPU profile into this folder, where the controller can. */
  cpuProfDir?: string;
}

/** How to start one controller process and where it answers. */
export interface Launch {
  /**
   * The executable and its arguments. It must be the controller process itself, not a wrapper that starts
   * it: its CPU and memory are read from /proc/<pid> of the process spawned.
   */
  command: string;
  args: string[];
  /** Its whole environment. */
  env: NodeJS.ProcessEnv;
  /** Answers 200 once the controller is ready to reconcile (its caches synced). */
  readyUrl: string;
  /** Its Prometheus metrics, in the text format. */
  metricsUrl: string;
  /**
   * Also polled, once readyUrl answers, where a controller's readiness URL says less than "ready to
   * reconcile" (kro's answers before its controller for the resource's kind has started).
   */
  ready?: () => Promise<boolean>;
}

/**
 * When the bench counts a resource's children applied and the resource Ready, as its own watch sees them.
 * Each controller has its own (what it makes, what it reports); a comparison of two controllers gives both
 * the same.
 */
export interface Milestones {
  /** The kinds of child whose objects, all seen, make the resource's children applied (Deployment, Service). */
  children: ('Deployment' | 'Service')[];
  /**
   * Ready: `condition`, the resource's Ready condition is True; `deployment`, its Deployment has as many
   * ready replicas as it asks for (spec.size) at its latest generation.
   */
  ready: 'condition' | 'deployment';
}

export interface ControllerUnderTest {
  /** A short name for it: its column where controllers are compared. */
  readonly name: string;
  /** How it runs, after the machine in the report's first line. */
  readonly about: string;
  /** Throws, saying what to do, when it cannot be started (not built, say): before the run touches the cluster. */
  check(): void;
  /** The kind of the resources it reconciles; Memcached (cache.example.com/v1alpha1) when not given. */
  readonly resource?: ApiKind;
  /** Installs what it needs in the cluster before its first run (CRDs, definitions); once per bench. */
  prepare?(client: KubeClient): Promise<void>;
  /** Removes what prepare installed, after the last run. */
  finish?(client: KubeClient): Promise<void>;
  /** The command line and URLs of a new process; free ports are picked here. */
  launch(options: LaunchOptions): Promise<Launch>;
  /** What it makes of a resource and how it says the resource is Ready. */
  readonly milestones: Milestones;
  /** The names of the figures in its metrics. */
  readonly metrics: MetricNames;
  /** Whether a line of its log (stderr) reports an error. */
  isErrorLine(line: string): boolean;
}
