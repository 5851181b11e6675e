import { ConnectionProbe } from '../../../controller/runtime/connection-probe';
import type { KubeClient } from '../../../controller/kube/client';
import { ApiError } from '../../../controller/kube/errors';
import { recordingLogger } from '../../support/logger';

/** A client whose GET /version gives the next scripted outcome. */
function scripted(outcomes: ('ok' | 'timeout' | 'forbidden')[]) {
  const paths: string[] = [];
  const client: Pick<KubeClient, 'request'> = {
    request: <T>(req: { path: string }): Promise<T> => {
      paths.push(req.path);
      const next = outcomes.shift() ?? 'ok';
      if (next === 'ok') return Promise.resolve({ major: '1' } as T);
      if (next === 'forbidden') return Promise.reject(new ApiError(403, 'forbidden'));
      return Promise.reject(new ApiError(0, 'GET /version: no response within 5000 ms'));
    },
  };
  return { client, paths };
}

describe('ConnectionProbe', () => {
  it('says the connections are dead on each probe without an answer, logging a streak once', async () => {
    const { client, paths } = scripted(['ok', 'timeout', 'timeout', 'ok', 'timeout']);
    const { log, lines } = recordingLogger();
    let dead = 0;
    let back = 0;
    const probe = new ConnectionProbe(
      client,
      { dead: () => dead++, back: () => back++, heardSince: () => false },
      log,
    );
    const seen: [number, number][] = [];
    for (let i = 0; i < 5; i++) {
      await probe.probe();
      seen.push([dead, back]);
    }
    expect(paths).toEqual(Array(5).fill('/version'));
    // Dead on each unanswered probe; back (caches retry now) once, when an answer ends the streak.
    expect(seen).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [2, 1],
      [3, 1],
    ]);
    const said = lines.map((l) => l.msg);
    expect(said).toEqual([
      'API server connection dead (no answer to a probe); watching again on a new one',
      'API server connection answers again',
      'API server connection dead (no answer to a probe); watching again on a new one',
    ]);
  });

  it('takes any HTTP answer, a refusal included, for a live connection', async () => {
    const { client } = scripted(['forbidden']);
    let dead = 0;
    const handlers = { dead: () => dead++, back: () => undefined, heardSince: () => false };
    await new ConnectionProbe(client, handlers, recordingLogger().log).probe();
    expect(dead).toBe(0);
  });

  it('takes an unanswered probe for a busy server, not dead connections, while watches still deliver', async () => {
    const { client } = scripted(['timeout', 'timeout']);
    let dead = 0;
    let heard = true;
    const handlers = { dead: () => dead++, back: () => undefined, heardSince: () => heard };
    const probe = new ConnectionProbe(client, handlers, recordingLogger().log);
    await probe.probe();
    expect(dead).toBe(0);
    heard = false;
    await probe.probe();
    expect(dead).toBe(1);
  });

  it('PINGs HTTP/2 connections instead of asking the server, and asks where there is nothing to PING', async () => {
    const { client, paths } = scripted([]);
    const pings: (boolean | undefined)[] = [true, false, undefined];
    const withPing: Pick<KubeClient, 'request' | 'ping'> = {
      request: client.request,
      ping: (timeoutMs) => {
        expect(timeoutMs).toBe(5000);
        const next = pings.shift();
        return next === undefined ? undefined : Promise.resolve(next);
      },
    };
    let dead = 0;
    const probe = new ConnectionProbe(
      withPing,
      { dead: () => dead++, back: () => undefined, heardSince: () => false },
      recordingLogger().log,
    );
    await probe.probe();
    expect([dead, paths.length]).toEqual([0, 0]);
    await probe.probe(); // unanswered
    expect([dead, paths.length]).toEqual([1, 0]);
    await probe.probe(); // HTTP/1.1: GET /version
    expect([dead, paths]).toEqual([1, ['/version']]);
  });
});
