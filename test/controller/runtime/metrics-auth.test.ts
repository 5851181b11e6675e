/** The scrape decisions of MetricsAuthorizer: which reviews it asks for, and how long it keeps an answer. */
import { MetricsAuthorizer } from '../../../controller/runtime/metrics-auth';

interface Sent {
  path: string;
  body: { spec: Record<string, unknown> };
}

/** A client that answers the reviews as the API server would for these tokens and users. */
function reviews(users: Record<string, string>, allowed: string[]) {
  const sent: Sent[] = [];
  const client = {
    request: <T>(req: { path: string; body?: unknown }): Promise<T> => {
      const body = req.body as Sent['body'];
      sent.push({ path: req.path, body });
      if (req.path.endsWith('/tokenreviews')) {
        const username = users[body.spec.token as string];
        return Promise.resolve({
          status: username
            ? { authenticated: true, user: { username, uid: 'u1', groups: ['system:serviceaccounts'] } }
            : { authenticated: false },
        } as T);
      }
      return Promise.resolve({ status: { allowed: allowed.includes(body.spec.user as string) } } as T);
    },
  };
  return { client, sent };
}

describe('MetricsAuthorizer', () => {
  const users = {
    'tok-prom': 'system:serviceaccount:monitoring:prometheus',
    'tok-x': 'system:serviceaccount:a:x',
  };

  it("asks for a bearer token, then reviews it and its user's get on /metrics", async () => {
    const { client, sent } = reviews(users, ['system:serviceaccount:monitoring:prometheus']);
    const auth = new MetricsAuthorizer(client);
    expect(await auth.decide(undefined)).toMatchObject({ code: 401 });
    expect(await auth.decide('Basic abc')).toMatchObject({ code: 401 });
    expect(sent).toEqual([]);
    expect(await auth.decide('Bearer nope')).toEqual({
      code: 401,
      message: 'Unauthorized: the token is not valid\n',
    });
    expect(await auth.decide('Bearer tok-x')).toEqual({
      code: 403,
      message: 'Forbidden: system:serviceaccount:a:x may not get /metrics\n',
    });
    expect(await auth.decide('Bearer tok-prom')).toEqual({ code: 200, message: '' });
    const access = sent.filter((s) => s.path.endsWith('/subjectaccessreviews')).pop()!;
    expect(access.body.spec).toEqual({
      user: 'system:serviceaccount:monitoring:prometheus',
      uid: 'u1',
      groups: ['system:serviceaccounts'],
      nonResourceAttributes: { path: '/metrics', verb: 'get' },
    });
  });

  it('keeps a decision a minute per token: a scrape every 30 s costs two reviews a minute', async () => {
    const { client, sent } = reviews(users, ['system:serviceaccount:monitoring:prometheus']);
    let now = 0;
    const auth = new MetricsAuthorizer(client, () => now);
    await auth.decide('Bearer tok-prom');
    now = 30_000;
    await auth.decide('Bearer tok-prom');
    expect(sent).toHaveLength(2);
    now = 61_000;
    await auth.decide('Bearer tok-prom');
    expect(sent).toHaveLength(4);
  });
});
