/** Grants as data: the wanted ones normalized, the server's rows read, and the statements between them. */
import {
  type Grant,
  grantStatements,
  grantsDiffer,
  normalizeGrants,
  type ObservedGrant,
  observedGrants,
  privilegeOfColumn,
  privilegesOfRow,
} from '../../../constructs/mysql-server/grants';
import { InvalidNameError } from '../../../constructs/mysql-server/names';

/** The privilege columns of MariaDB 10.11's mysql.db, in its order. */
const DB_COLUMNS = [
  'Select_priv',
  'Insert_priv',
  'Update_priv',
  'Delete_priv',
  'Create_priv',
  'Drop_priv',
  'Grant_priv',
  'References_priv',
  'Index_priv',
  'Alter_priv',
  'Create_tmp_table_priv',
  'Lock_tables_priv',
  'Create_view_priv',
  'Show_view_priv',
  'Create_routine_priv',
  'Alter_routine_priv',
  'Execute_priv',
  'Event_priv',
  'Trigger_priv',
  'Delete_history_priv',
];

/** A mysql.db row giving `held` (column names) on `db`. */
const dbRow = (db: string, held: string[]) => ({
  Host: '%',
  Db: db,
  User: 'app',
  ...Object.fromEntries(DB_COLUMNS.map((c) => [c, held.includes(c) ? 'Y' : 'N'])),
});
const ALL_BUT_GRANT = DB_COLUMNS.filter((c) => c !== 'Grant_priv');
const ACCOUNT = '`app`@`%`';

describe('normalizeGrants', () => {
  it('joins grants on one database, sorts, and keeps ALL alone', () => {
    expect(
      normalizeGrants([
        { database: 'b', privileges: ['SELECT'] },
        { database: 'a', privileges: ['UPDATE', 'SELECT', 'SELECT'] },
        { database: 'b', privileges: ['INSERT'] },
        { database: 'c', privileges: ['SELECT', 'ALL'] },
        { database: 'd', privileges: [] },
      ]),
    ).toEqual([
      { database: 'a', privileges: ['SELECT', 'UPDATE'] },
      { database: 'b', privileges: ['INSERT', 'SELECT'] },
      { database: 'c', privileges: ['ALL'] },
    ]);
  });
  it('refuses a privilege outside the list and a bad database, naming the field', () => {
    // As a resource's spec may hold it: what the types do not allow.
    const bad = JSON.parse('[{ "database": "a", "privileges": ["SUPER"] }]') as Grant[];
    expect(() => normalizeGrants(bad, 'spec.grants')).toThrow(InvalidNameError);
    expect(() => normalizeGrants(bad, 'spec.grants')).toThrow(
      'spec.grants[0].privileges: "SUPER" is not one of ALL',
    );
    expect(() => normalizeGrants([{ database: 'a.b', privileges: ['SELECT'] }])).toThrow(
      'grants[0].database: ',
    );
    expect(() => normalizeGrants([{ database: '*', privileges: ['SELECT'] }])).toThrow(
      'grants[0].database: ',
    );
  });
});

describe('reading the privilege tables', () => {
  it.each([
    ['Select_priv', 'SELECT'],
    ['Create_tmp_table_priv', 'CREATE TEMPORARY TABLES'],
    ['Lock_tables_priv', 'LOCK TABLES'],
    ['Grant_priv', 'GRANT OPTION'],
    ['Show_view_priv', 'SHOW VIEW'],
    ['Delete_history_priv', 'DELETE HISTORY'],
  ])('names %s %s', (column, name) => {
    expect(privilegeOfColumn(column)).toBe(name);
  });
  it('reads every privilege but GRANT OPTION as ALL, with GRANT OPTION beside it', () => {
    expect(privilegesOfRow(dbRow('a', ALL_BUT_GRANT))).toEqual(['ALL']);
    expect(privilegesOfRow(dbRow('a', DB_COLUMNS))).toEqual(['ALL', 'GRANT OPTION']);
    expect(privilegesOfRow(dbRow('a', ['Select_priv', 'Create_view_priv', 'Grant_priv']))).toEqual([
      'CREATE VIEW',
      'GRANT OPTION',
      'SELECT',
    ]);
  });
  it('unescapes databases, keeps patterns as stored, and drops a global USAGE', () => {
    const user = { User: 'app', Host: '%', Select_priv: 'N', Super_priv: 'N', plugin: 'x' };
    expect(
      observedGrants(
        [dbRow('app\\_db', ['Select_priv']), dbRow('app_%', ['Insert_priv']), dbRow('z', [])],
        user,
      ),
    ).toEqual([
      { database: 'app_%', privileges: ['INSERT'], pattern: true },
      { database: 'app_db', privileges: ['SELECT'] },
    ]);
    expect(observedGrants([], { ...user, Super_priv: 'Y' })).toEqual([
      { database: '*', privileges: ['SUPER'] },
    ]);
  });
});

describe('grantStatements', () => {
  const cases: [string, Grant[], ObservedGrant[], string[]][] = [
    [
      'nothing to do',
      [{ database: 'a', privileges: ['SELECT'] }],
      [{ database: 'a', privileges: ['SELECT'] }],
      [],
    ],
    [
      'a new user',
      [{ database: 'app_db', privileges: ['INSERT', 'SELECT'] }],
      [],
      ['GRANT INSERT, SELECT ON `app\\_db`.* TO `app`@`%`'],
    ],
    ['ALL', [{ database: 'a', privileges: ['ALL'] }], [], ['GRANT ALL PRIVILEGES ON `a`.* TO `app`@`%`']],
    ['ALL held', [{ database: 'a', privileges: ['ALL'] }], [{ database: 'a', privileges: ['ALL'] }], []],
    [
      'ALL held with GRANT OPTION',
      [{ database: 'a', privileges: ['ALL'] }],
      [{ database: 'a', privileges: ['ALL', 'GRANT OPTION'] }],
      ['REVOKE GRANT OPTION ON `a`.* FROM `app`@`%`'],
    ],
    [
      'ALL to a few',
      [{ database: 'a', privileges: ['SELECT'] }],
      [{ database: 'a', privileges: ['ALL'] }],
      ['REVOKE ALL PRIVILEGES ON `a`.* FROM `app`@`%`', 'GRANT SELECT ON `a`.* TO `app`@`%`'],
    ],
    [
      'some more, some fewer',
      [{ database: 'a', privileges: ['INSERT', 'SELECT'] }],
      [{ database: 'a', privileges: ['CREATE VIEW', 'SELECT', 'UPDATE'] }],
      ['REVOKE CREATE VIEW, UPDATE ON `a`.* FROM `app`@`%`', 'GRANT INSERT ON `a`.* TO `app`@`%`'],
    ],
    [
      'a database no longer wanted, a pattern and global privileges',
      [],
      [
        { database: '*', privileges: ['GRANT OPTION', 'SUPER'] },
        { database: 'app_%', privileges: ['SELECT'], pattern: true },
        { database: 'old_db', privileges: ['GRANT OPTION'] },
      ],
      [
        'REVOKE ALL PRIVILEGES ON *.* FROM `app`@`%`',
        'REVOKE GRANT OPTION ON *.* FROM `app`@`%`',
        'REVOKE ALL PRIVILEGES ON `app_%`.* FROM `app`@`%`',
        'REVOKE GRANT OPTION ON `old\\_db`.* FROM `app`@`%`',
      ],
    ],
    [
      'a pattern that reads like the wanted database',
      [{ database: 'app_db', privileges: ['SELECT'] }],
      [{ database: 'app_db', privileges: ['SELECT'], pattern: true }],
      ['REVOKE ALL PRIVILEGES ON `app_db`.* FROM `app`@`%`', 'GRANT SELECT ON `app\\_db`.* TO `app`@`%`'],
    ],
  ];
  it.each(cases)('%s', (_name, wanted, observed, statements) => {
    expect(grantStatements(ACCOUNT, wanted, observed)).toEqual(statements);
    expect(grantsDiffer(wanted, observed)).toBe(statements.length > 0);
  });
});
