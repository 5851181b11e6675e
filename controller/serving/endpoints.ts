/**
 * What the serving thread does (worker.ts starts it; thread.ts is the main thread's side): /healthz and
 * /readyz, and the conversion webhook once the main thread has its certificate. Both answer from this
 * thread, so a probe or a read of another version never waits behind the reconciles, the external
 * handlers and the garbage collections of the main thread (docs/DESIGN.md, "The serving thread").
 *
 * What they need of the main thread comes in messages: /readyz's checks every second (which also say that
 * the main thread is alive: /healthz fails after `livenessMs` without them), /metrics on request. The
 * kinds are loaded here again from their modules, for their conversions, when the first review comes: a
 * cluster that reads no other version than the stored one never asks for one, and the thread then stays
 * about 23 MB smaller (cdk8s-plus and the kinds, docs/DESIGN.md).
 */
import { createRequire } from 'node:module';
import { kindModuleFile } from '../../constructs/kind-module-files';
import type * as KindModules from '../../constructs/kind-modules';
import type { Level, Logger } from '../log';
import { ConversionServer, registryConvert, type Convert } from '../runtime/conversion-server';
import { HealthServer, type ReadyCheck } from '../runtime/server';
import type { Channel, FromThread, KindSources, ServingData, ToThread } from './messages';

const lateRequire = createRequire(__filename);

/** Serves until the main thread says stop; resolves once listening (or having said why it cannot). */
export async function serveEndpoints(
  data: ServingData,
  channel: Channel<ToThread, FromThread>,
  now: () => number = Date.now,
): Promise<void> {
  const post = (message: FromThread) => channel.postMessage(message);
  const log = channelLogger(post);
  let state: { ready: boolean; checks: readonly ReadyCheck[] } = { ready: false, checks: [] };
  let heardAt = now();
  let converter: Promise<Convert> | undefined;
  let conversions: ConversionServer | undefined;
  let nextMetrics = 0;
  const metricsAsked = new Map<number, { resolve: (text: string) => void; reject: (err: Error) => void }>();

  const health = new HealthServer({
    alive: () => {
      const silentMs = now() - heardAt;
      if (silentMs <= data.livenessMs) return undefined;
      return `the controller's main thread has not answered for ${Math.round(silentMs / 1000)} s`;
    },
    ready: () => state.ready,
    checks: () => state.checks,
    metrics: data.metrics
      ? () =>
          new Promise<string>((resolve, reject) => {
            const id = nextMetrics++;
            metricsAsked.set(id, { resolve, reject });
            post({ type: 'metrics', id });
          })
      : undefined,
  });

  const serveConversions = async (address: string, certificate: { key: string; cert: string }) => {
    if (!data.kinds) throw new Error('this thread was started without the modules of the kinds');
    const sources = data.kinds;
    // The modules are loaded for the first review (below); one that is not there fails now.
    sources.modules.forEach(kindModuleFile);
    const load = () => {
      converter ??= loadConverter(sources, log).catch((err: unknown) => {
        converter = undefined; // the next review tries again
        throw err;
      });
      return converter;
    };
    const server = new ConversionServer({
      address,
      certificate,
      convert: { load },
      log,
      observe: (seconds, code) => post({ type: 'observe', seconds, code }),
    });
    await server.start();
    conversions = server;
    return server.port;
  };

  const reply = (id: number, work: Promise<number | undefined>) =>
    work.then(
      (port) => post({ type: 'reply', id, ...(port !== undefined ? { port } : {}) }),
      (err: unknown) => post({ type: 'reply', id, error: err instanceof Error ? err.message : String(err) }),
    );

  channel.on('message', (message) => {
    switch (message.type) {
      case 'state':
        state = { ready: message.ready, checks: message.checks };
        heardAt = now();
        return;
      case 'metrics': {
        const asked = metricsAsked.get(message.id);
        metricsAsked.delete(message.id);
        if (message.error !== undefined) asked?.reject(new Error(message.error));
        else asked?.resolve(message.text ?? '');
        return;
      }
      case 'serve-conversions':
        return void reply(message.id, serveConversions(message.address, message.certificate));
      case 'certificate':
        try {
          return conversions?.setCertificate(message.certificate);
        } catch (err) {
          // A key that is not the certificate's: the one in place serves on (as on the main thread).
          return log.error('could not take up the conversion webhook certificate', {
            error: err instanceof Error ? err.message : String(err),
          });
        }
      case 'stop-conversions':
        return void reply(
          message.id,
          (conversions?.stop(message.graceMs) ?? Promise.resolve()).then(() => undefined),
        );
      case 'stop':
        return void reply(
          message.id,
          Promise.all([conversions?.stop(), health.close()]).then(() => undefined),
        );
    }
  });

  try {
    post({ type: 'listening', port: await health.listen(data.healthAddress) });
  } catch (err) {
    post({ type: 'failed', message: err instanceof Error ? err.message : String(err) });
  }
}

/** The kinds' conversions, their modules loaded (the first review waits for it, about 0.2 s). */
async function loadConverter(sources: KindSources, log: Logger): Promise<Convert> {
  const started = performance.now();
  const { loadKinds } = lateRequire('../../constructs/kind-modules') as typeof KindModules;
  const kinds = await loadKinds({ modules: sources.modules, builtin: sources.builtin });
  log.info('loaded the kinds for the first conversion', { ms: Math.round(performance.now() - started) });
  return registryConvert(kinds);
}

/** A logger whose lines the main thread writes with its own logger (its level, format and fields). */
function channelLogger(post: (message: FromThread) => void, bound: Record<string, unknown> = {}): Logger {
  const line = (level: Level) => (msg: string, fields?: Record<string, unknown>) =>
    post({ type: 'log', level, msg, fields: { ...bound, ...fields } });
  return {
    debug: line('debug'),
    info: line('info'),
    warn: line('warn'),
    error: line('error'),
    child: (fields) => channelLogger(post, { ...bound, ...fields }),
  };
}
