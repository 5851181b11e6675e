/**
 * The controller under test, as the phases see it: how to start one process of it and how to read it. Any
 * controller that reconciles the Memcached kind (cache.example.com) into a Deployment and a Service, serves
 * a readiness URL and Prometheus metrics, and runs as a process of its own can be measured;
 * `reconstruct.ts` is the reconstruct controller's description.
 */
import type { MetricNames } from './metrics';

/** What one run of the controller is asked to do. */
export interface LaunchOptions {
  /** The only namespace it watches. */
  namespace: string;
  /** Reconciles in parallel. */
  workers: number;
  /** Its resync period; a long one (a day) for none during a phase. */
  resyncSeconds: number;
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
}

export interface ControllerUnderTest {
  /** A short name for it: its column where controllers are compared. */
  readonly name: string;
  /** How it runs, after the machine in the report's first line. */
  readonly about: string;
  /** Throws, saying what to do, when it cannot be started (not built, say): before the run touches the cluster. */
  check(): void;
  /** The command line and URLs of a new process; free ports are picked here. */
  launch(options: LaunchOptions): Promise<Launch>;
  /** The names of the figures in its metrics. */
  readonly metrics: MetricNames;
  /** Whether a line of its log (stderr) reports an error. */
  isErrorLine(line: string): boolean;
}
