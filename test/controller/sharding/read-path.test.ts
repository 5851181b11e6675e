/**
 * How a member picks its read path (`--sharded-watch`): the API server's sharded watch when it says it
 * applied the probe's shardSelector (metadata.shardInfo), the leader's labels otherwise; `on` against a
 * server that does not serve it is one clear error; an unanswered probe is retried, not taken for a no.
 */
import { createLogger } from '../../../controller/log';
import { chooseReadPath, SettingsError } from '../../../controller/sharding/read-path';
import { answeringClient } from '../../support/answering-client';

/** A client whose list of Leases answers with each of `answers` in turn (an Error is thrown). */
function probed(...answers: (boolean | Error)[]) {
  return answeringClient((req) => {
    const answer = answers.length > 1 ? answers.shift()! : answers[0];
    if (answer instanceof Error) throw answer;
    return {
      metadata: answer ? { shardInfo: { selector: String(req.query?.shardSelector) } } : {},
      items: [],
    };
  });
}

const lines: string[] = [];
const log = createLogger({ level: 'debug', format: 'json', write: (l) => lines.push(l) });
const settings = (shardedWatch?: 'auto' | 'on' | 'off') => ({ shardedWatch, leaseNamespace: 'ops' });

it('takes the ranges path by default where the API server serves sharded watches', async () => {
  const { client, requests } = probed(true);
  expect(await chooseReadPath(client, settings(), log)).toBe('ranges');
  expect(requests).toHaveLength(1);
  expect(requests[0].path).toBe('/apis/coordination.k8s.io/v1/namespaces/ops/leases');
  expect(requests[0].query?.shardSelector).toMatch(/^shardRange\(object\.metadata\.uid, '0x0+', '0x8/);
});

it('takes the labels path by default where it does not', async () => {
  expect(await chooseReadPath(probed(false).client, settings(), log)).toBe('labels');
  expect(await chooseReadPath(probed(false).client, settings('auto'), log)).toBe('labels');
});

it('takes the labels path without asking when told off', async () => {
  const { client, requests } = probed(true);
  expect(await chooseReadPath(client, settings('off'), log)).toBe('labels');
  expect(requests).toHaveLength(0);
});

it('refuses --sharded-watch on in one line where the API server does not serve it', async () => {
  const err = await chooseReadPath(probed(false).client, settings('on'), log).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SettingsError);
  expect((err as Error).message).toMatch(/^--sharded-watch on: .*ShardedListAndWatch.*auto or off$/);
});

it('asks again when the probe fails, rather than taking it for a no', async () => {
  lines.length = 0;
  const { client, requests } = probed(new Error('connect ECONNREFUSED'), true);
  expect(await chooseReadPath(client, settings(), log)).toBe('ranges');
  expect(requests).toHaveLength(2);
  expect(lines.some((l) => l.includes('retrying') && l.includes('ECONNREFUSED'))).toBe(true);
});
