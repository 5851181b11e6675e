/**
 * What every benchmark entry point does around its run: a clean-up that runs once whatever happens (the
 * deadline, SIGINT, SIGTERM, the end), and the exit code and last words of main.
 */
import { controllerLogDir, terminateAll } from './controller-process';
import { log } from './support';

/**
 * Arms the deadline and the signals: either stops the controllers, runs `cleanUp` and exits 1. Returns the
 * clean-up for the run's own end; it runs at most once.
 */
export function guard(deadlineMs: number, cleanUp: () => Promise<void>): () => Promise<void> {
  let cleaning: Promise<void> | undefined;
  const once = () => {
    cleaning ??= (async () => {
      terminateAll();
      await cleanUp();
    })();
    return cleaning;
  };
  const abort = (why: string) => {
    const logDir = controllerLogDir();
    log(`${why}: stopping${logDir ? ` (the controllers' logs are in ${logDir})` : ''}`);
    const hard = setTimeout(() => process.exit(1), 240_000);
    hard.unref();
    void once().finally(() => process.exit(1));
  };
  setTimeout(() => abort(`deadline of ${deadlineMs / 60_000} min reached`), deadlineMs).unref();
  process.once('SIGINT', () => abort('SIGINT'));
  process.once('SIGTERM', () => abort('SIGTERM'));
  return once;
}

/** Runs `main` and exits with its code, or 1 after logging its failure (and where the controllers' logs are). */
export function run(main: () => Promise<number>): void {
  main().then(
    (code) => {
      process.exitCode = code;
      setTimeout(() => process.exit(code), 2000).unref();
    },
    (err: unknown) => {
      log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
      const logDir = controllerLogDir();
      if (logDir) log(`the controllers' logs are in ${logDir}`);
      process.exitCode = 1;
      setTimeout(() => process.exit(1), 2000).unref();
    },
  );
}
