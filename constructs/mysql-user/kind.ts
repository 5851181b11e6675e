/**
 * The MysqlUser kind, on the server operations it is given: the real ones in index.ts, a fake in a unit
 * test. Its child is the password Secret (MysqlUser, the construct); its external object the user on the
 * server, whose password the handlers read from that Secret.
 */
import { SECRET, defineKind, writeOnly, type CustomResource, type KindExternal } from '../kit';
import { normalizeGrants, grantsDiffer, type Grant, type ObservedGrant } from '../mysql-server/grants';
import { inKindWords, nothingIfInvalidName, onServer, serverOf, serverSecret } from '../mysql-server/kinds';
import { InvalidNameError } from '../mysql-server/names';
import type { ServerOperations } from '../mysql-server/operations';
import type { ObservedUser, UserAccount } from '../mysql-server/users';
import { MysqlUser, mysqlUserInputs, passwordSecretName, userName } from './mysql-user';
import { mysqlUserSchema } from './schema';
import type { MysqlUserSpec, MysqlUserSpecWithDefaults } from './types.generated';

type Stored = MysqlUserSpecWithDefaults;

/** What the spec wants of the user. No password: the handlers read it from the password Secret. */
export interface DesiredUser extends UserAccount {
  /** Normalized (one per database, sorted), or as written when `invalid`. */
  readonly grants: readonly Grant[];
  /** Why the server cannot take the spec's grants, when it cannot: then nothing is applied. */
  readonly invalid?: string;
}

export function desiredUser(resource: CustomResource<Stored>): DesiredUser {
  const { metadata, spec } = resource;
  const account = { name: userName({ name: metadata.name, spec }), host: spec.host };
  try {
    return { ...account, grants: normalizeGrants(spec.grants, 'spec.grants') };
  } catch (error) {
    if (!(error instanceof InvalidNameError)) throw error;
    return { ...account, grants: spec.grants, invalid: error.message };
  }
}

const listed = (privileges: readonly string[] | undefined) =>
  privileges && privileges.length > 0 ? privileges.join(', ') : '(none)';

/** `grants on app: SELECT -> INSERT, SELECT`, a line per database whose privileges differ. */
function grantLines(wanted: readonly Grant[], observed: readonly ObservedGrant[]): string[] {
  const elsewhere = observed.filter((o) => o.pattern || o.database === '*');
  const held = new Map(observed.filter((o) => !elsewhere.includes(o)).map((o) => [o.database, o.privileges]));
  const lines: string[] = [];
  for (const w of wanted) {
    const has = held.get(w.database);
    held.delete(w.database);
    if (listed(has) !== listed(w.privileges)) {
      lines.push(`grants on ${w.database}: ${listed(has)} -> ${listed(w.privileges)}`);
    }
  }
  for (const [database, privileges] of held)
    lines.push(`grants on ${database}: ${listed(privileges)} -> (none)`);
  for (const o of elsewhere) {
    const where = o.database === '*' ? '*.*' : `${o.database} (a pattern)`;
    lines.push(`grants on ${where}: ${listed(o.privileges)} -> (none)`);
  }
  return lines;
}

/** What differs, one line each; the password only said to differ. */
export function userDifferences(desired: DesiredUser, observed: ObservedUser): string[] {
  if (desired.invalid) return [desired.invalid];
  const lines: string[] = [];
  if (grantsDiffer(desired.grants, observed.grants)) {
    const said = grantLines(desired.grants, observed.grants);
    lines.push(...(said.length > 0 ? said : ['grants: differ']));
  }
  if (observed.passwordMatches === false) lines.push('password: differs');
  return lines;
}

/** The handlers of a MysqlUser's user, on `server`. */
export function mysqlUserExternal(server: ServerOperations): KindExternal<Stored, ObservedUser, DesiredUser> {
  return {
    describe: (d) => `MySQL user ${d.name}@${d.host}`,
    identity: (d, r) => onServer(r, `${d.name}@${d.host}`),
    secrets: {
      server: serverSecret,
      password: {
        name: (r) => passwordSecretName({ name: r.metadata.name, spec: r.spec }),
        keys: ['password'],
        plainKeys: ['username', 'database', 'host', 'port'],
      },
    },
    desired: desiredUser,
    observe: (d, context) => {
      const { password } = context.secrets.password;
      const user = { name: d.name, host: d.host, password };
      return inKindWords(context, () =>
        nothingIfInvalidName(() => server.observeUser(serverOf(context), user, { signal: context.signal })),
      );
    },
    differences: userDifferences,
    async apply(d, _observed, context) {
      const user = {
        name: d.name,
        host: d.host,
        grants: d.grants,
        password: context.secrets.password.password,
      };
      await inKindWords(context, () => server.applyUser(serverOf(context), user, { signal: context.signal }));
    },
    delete: (o, context) =>
      inKindWords(context, () =>
        server.dropUser(serverOf(context), { name: o.name, host: o.host }, { signal: context.signal }),
      ),
  };
}

/** The MysqlUser kind, its handlers on `server`. */
export function mysqlUserKindOn(server: ServerOperations) {
  return defineKind<MysqlUserSpec, object, Stored, ObservedUser, DesiredUser>({
    apiVersion: 'mysql.reconstruct.dev/v1alpha1',
    kind: 'MysqlUser',
    plural: 'mysqlusers',
    categories: ['mysql'],
    schema: mysqlUserSchema,
    construct: MysqlUser,
    inputs: mysqlUserInputs,
    // The password Secret is created, never listed or watched; the handlers read it (and the server
    // Secret) by name.
    children: [writeOnly(SECRET)],
    external: mysqlUserExternal(server),
    // Once the user is as the spec wants (the kit says so until then): where its password is.
    ready: ({ resource }, children) => {
      if (!children.ready) return children;
      const { name, host } = desiredUser(resource);
      const secret = passwordSecretName({ name: resource.metadata.name, spec: resource.spec });
      const message = `MySQL user ${name}@${host} is as the spec wants; its password is in Secret ${secret}`;
      return { ready: true, reason: 'Ready', message };
    },
  });
}
