import { parse, parseAllDocuments, stringify } from 'yaml';
import { toYaml, toYamlStream } from '../../synth/yaml';
import { LOOKALIKES } from '../support/lookalikes';
import { mulberry32 } from '../support/random';

/** What a YAML 1.1 reader and a YAML 1.2 reader make of `text`. */
function readBack(text: string): { '1.1': unknown; '1.2': unknown } {
  const v11: unknown = parse(text, { version: '1.1' });
  const v12: unknown = parse(text, { version: '1.2' });
  return { '1.1': v11, '1.2': v12 };
}

function roundTrips(value: unknown, text: string): boolean {
  try {
    const read = readBack(text);
    return [read['1.1'], read['1.2']].every((r) => JSON.stringify(r) === JSON.stringify(value));
  } catch {
    return false; // e.g. a plain `<<` key is a YAML 1.1 merge of a non-map
  }
}

describe('toYaml', () => {
  it('GIVEN plain stringify WHEN a YAML 1.1 reader reads `yes` back THEN it gets a boolean (the problem)', () => {
    const text = stringify({ value: 'yes' }, { lineWidth: 0 });
    expect(text).toBe('value: yes\n');
    expect(readBack(text)).toEqual({ '1.1': { value: true }, '1.2': { value: 'yes' } });
  });

  it.each(LOOKALIKES.map((s) => [JSON.stringify(s), s]))(
    'GIVEN the string %s as a value, a list item and a map key THEN YAML 1.1 and 1.2 read it back',
    (_, s) => {
      const value = { value: s, list: [s], map: { [s]: s } };
      expect(readBack(toYaml(value))).toEqual({ '1.1': value, '1.2': value });
    },
  );

  it.each([
    // Numbers to go-yaml v2 (kubectl): it drops `_`s and lets Go's strconv take 0X/0o/0B prefixes.
    ['0X1F', 'v: "0X1F"\n'],
    ['+0o17', 'v: "+0o17"\n'],
    ['0B1', 'v: "0B1"\n'],
    ['+_1', 'v: "+_1"\n'],
    ['1e1_0', 'v: "1e1_0"\n'],
    // PyYAML refuses `=` (YAML 1.1 value type) and a tab inside a plain scalar.
    ['=', 'v: "="\n'],
    ['a\tb', 'v: "a\\tb"\n'],
    // YAML 1.1 line breaks and non-printables are escaped.
    ['a\u2028b\u0085c\ufeff', 'v: "a\\u2028b\\u0085c\\ufeff"\n'],
    // Block literals that would not read back: blanks only, or a tab first (go-yaml v2).
    [' \n', 'v: "\\ \\n"\n'],
    ['\tindented\nline', 'v: "\\tindented\\nline"\n'],
  ])('GIVEN %j, which a YAML 1.1 reader in the wild would misread, THEN it is quoted', (s, text) => {
    expect(toYaml({ v: s })).toBe(text);
  });

  it('GIVEN thousands of random strings made of dangerous characters THEN YAML 1.1 and 1.2 read them all back', () => {
    const random = mulberry32(20240601);
    const alphabet = '0123456789._:+-~eExXoObB' + 'yesnoftrulYNTFO' + '   #\'"\n\n\t=<>!&*|%@`,[]{}?';
    const words = [
      'yes',
      'No',
      'on',
      'OFF',
      'true',
      'null',
      '~',
      '0x',
      '0o',
      '0b',
      '.inf',
      '2001-12-14',
      '<<',
    ];
    const pick = <T>(xs: ArrayLike<T>): T => xs[Math.floor(random() * xs.length)];
    const randomString = (): string => {
      let s = random() < 0.3 ? pick(words) : '';
      for (let n = Math.floor(random() * 8); n > 0; n--) s += pick(alphabet);
      return s;
    };
    const values = Array.from({ length: 1000 }, () => {
      const [a, b, c, d] = [randomString(), randomString(), randomString(), randomString()];
      return { values: [a, b], keys: { [c]: d }, deep: [{ [d]: { [a]: [c] } }] };
    });

    expect(values.filter((v) => !roundTrips(v, toYaml(v)))).toEqual([]);
    // The generator does reach strings that plain YAML 1.2 output gets wrong.
    expect(values.filter((v) => !roundTrips(v, stringify(v, { lineWidth: 0 }))).length).toBeGreaterThan(100);
  });

  it('GIVEN ordinary values THEN they stay plain, and only a string that looks like a number is quoted', () => {
    const value = {
      image: 'nginx:1.15.9',
      name: 'memcached',
      labels: { 'app.kubernetes.io/name': 'memcached', version: '1.4.36-alpine' },
      replicas: 3,
      port: '3',
      ratio: 0.5,
      enabled: true,
      disabled: false,
      nothing: null,
      words: ['yesterday', 'online', 'nope', 'offline', 'nullable', 'x3', '0xZZ', '1_a', '10.0.0.1', '500m'],
    };
    expect(toYaml(value)).toBe(
      [
        'image: nginx:1.15.9',
        'name: memcached',
        'labels:',
        '  app.kubernetes.io/name: memcached',
        '  version: 1.4.36-alpine',
        'replicas: 3',
        'port: "3"',
        'ratio: 0.5',
        'enabled: true',
        'disabled: false',
        'nothing: null',
        'words:',
        ...value.words.map((w) => `  - ${w}`),
        '',
      ].join('\n'),
    );
  });

  it('GIVEN a typical Deployment and ConfigMap with no look-alike strings THEN the layout is plain stringify', () => {
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'memcached-sample',
        namespace: 'default',
        labels: { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': 'memcached-sample' },
        ownerReferences: [
          { apiVersion: 'cache.example.com/v1alpha1', kind: 'Memcached', name: 'sample', controller: true },
        ],
      },
      spec: {
        replicas: 3,
        selector: { matchLabels: { 'app.kubernetes.io/instance': 'memcached-sample' } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/instance': 'memcached-sample' } },
          spec: {
            securityContext: { runAsNonRoot: true, runAsUser: 1001 },
            containers: [
              {
                name: 'memcached',
                image: 'memcached:1.4.36-alpine',
                command: ['memcached', '-m=64', '-o', 'modern', '-v'],
                ports: [{ containerPort: 11211, name: 'memcached', protocol: 'TCP' }],
                env: [{ name: 'MEMCACHED_MEMORY', value: '64m' }],
                resources: { limits: { cpu: '500m', memory: '128Mi' } },
                securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
              },
            ],
          },
        },
      },
    };
    const configMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'memcached-config' },
      data: { 'memcached.conf': '-m 64\n-p 11211\n-u memcache\n', motd: 'welcome to memcached' },
    };
    expect(toYaml(deployment)).toBe(stringify(deployment, { lineWidth: 0 }));
    expect(toYaml(configMap)).toBe(stringify(configMap, { lineWidth: 0 }));
    expect(toYaml(configMap)).toContain('memcached.conf: |\n    -m 64\n');
  });
});

describe('toYamlStream', () => {
  it('GIVEN several manifests THEN writes one document each, separated by ---, with look-alikes quoted', () => {
    const values = [
      { kind: 'ConfigMap', data: { on: 'yes' } },
      { kind: 'Secret', stringData: { mode: '0755' } },
    ];
    const text = toYamlStream(values);
    expect(text).toBe(
      'kind: ConfigMap\ndata:\n  "on": "yes"\n---\nkind: Secret\nstringData:\n  mode: "0755"\n',
    );
    for (const version of ['1.1', '1.2'] as const) {
      expect(parseAllDocuments(text, { version }).map((d) => d.toJS() as unknown)).toEqual(values);
    }
  });

  it('GIVEN no manifests THEN writes nothing', () => {
    expect(toYamlStream([])).toBe('');
  });
});

describe('toYaml of an object met twice', () => {
  it('writes it twice, without anchors and aliases', () => {
    const shared = { name: 'data', mountPath: '/var/lib/mysql' };
    const text = toYaml({ a: [shared], b: [shared] });
    expect(text).not.toMatch(/[&*]a\d/);
    expect(text.match(/mountPath: \/var\/lib\/mysql/g)).toHaveLength(2);
  });
});
