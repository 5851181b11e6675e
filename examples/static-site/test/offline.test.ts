/**
 * The CLI on the sample, offline, as a user runs it: `npx reconstruct synth samples/ --kinds src/index.ts`
 * loads this project's TypeScript kinds (through tsx) and renders the StaticSite's children.
 */
import { spawnSync } from 'child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Yaml } from 'cdk8s';
import { contentHash, CONTENT_HASH_ANNOTATION } from '../src';

jest.setTimeout(60_000);

const PROJECT = join(__dirname, '..');

function reconstruct(args: string[]): {
  status: number | null;
  stdout: string;
  stderr: string;
} {
  const run = spawnSync('npx', ['reconstruct', ...args], {
    cwd: PROJECT,
    encoding: 'utf8',
  });
  if (run.error) throw run.error;
  return run;
}

/** A YAML stream's documents (cdk8s reads files only). */
function parseYaml(text: string): any[] {
  const dir = mkdtempSync(join(tmpdir(), 'static-site-'));
  try {
    writeFileSync(join(dir, 'out.yaml'), text);
    return Yaml.load(join(dir, 'out.yaml')).filter((d: unknown) => d);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('reconstruct synth samples/ --kinds src/index.ts -o -', () => {
  let docs: any[];
  const get = (kind: string, name: string) => {
    const found = docs.find((d) => d.kind === kind && d.metadata.name === name);
    if (!found) throw new Error(`no ${kind}/${name} in the output`);
    return found;
  };
  const sample = parseYaml(readFileSync(join(PROJECT, 'samples/site.yaml'), 'utf8'))[0];

  beforeAll(() => {
    const run = reconstruct(['synth', 'samples/', '--kinds', 'src/index.ts', '-o', '-']);
    // The endpoint waits for the Service's address, which only the cluster knows: left out, said once.
    expect({
      status: run.status,
      stderr: run.stderr.replace(/^npm warn .*\n/gm, ''),
    }).toEqual({
      status: 0,
      stderr:
        'samples/site.yaml: StaticSite/hello: left out ConfigMap hello-endpoint: it waits for input address ' +
        '(Service hello spec.clusterIP); --inputs FILE gives values, --placeholders renders it marked\n',
    });
    docs = parseYaml(run.stdout);
  });

  it('renders the ConfigMap, Deployment and Service of the sample, and nothing else', () => {
    expect(docs.map((d) => `${d.kind}/${d.metadata.name}`).sort()).toEqual([
      'ConfigMap/hello-content',
      'Deployment/hello',
      'Service/hello',
    ]);
  });

  it('labels every child as the operator would', () => {
    for (const doc of docs) {
      expect(doc.metadata.labels).toMatchObject({
        'app.kubernetes.io/managed-by': 'reconstruct',
        'app.kubernetes.io/instance': 'hello',
      });
    }
  });

  it('puts the pages in the ConfigMap and their hash on the pod template', () => {
    expect(get('ConfigMap', 'hello-content').data).toEqual(sample.spec.pages);
    expect(get('Deployment', 'hello').spec.template.metadata.annotations).toEqual({
      [CONTENT_HASH_ANNOTATION]: contentHash(sample.spec.pages),
    });
  });

  it('runs 2 replicas of the default image and serves port 80 (the default)', () => {
    const deployment = get('Deployment', 'hello');
    expect(deployment.spec.replicas).toBe(2);
    expect(deployment.spec.template.spec.containers[0].image).toBe('nginx:1.27-alpine');
    expect(get('Service', 'hello').spec.ports).toEqual([{ name: 'http', port: 80, targetPort: 80 }]);
  });

  it('with the inputs the cluster gives (`reconstruct inputs staticsite/hello`), renders the endpoint too', () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-site-'));
    try {
      writeFileSync(join(dir, 'inputs.yaml'), 'StaticSite/default/hello:\n  address: 10.96.0.42\n');
      const run = reconstruct([
        'synth',
        'samples/',
        '--kinds',
        'src/index.ts',
        '--inputs',
        join(dir, 'inputs.yaml'),
        '-o',
        '-',
      ]);
      expect(run.stderr.replace(/^npm warn .*\n/gm, '')).toBe('');
      const endpoint = parseYaml(run.stdout).find(
        (d) => d.kind === 'ConfigMap' && d.metadata.name === 'hello-endpoint',
      );
      expect(endpoint?.data).toEqual({
        address: '10.96.0.42',
        url: 'http://10.96.0.42:80/',
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports what the schema rejects (the same rules as the API server), with the file and the field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'static-site-'));
    const site = (name: string, spec: string) =>
      `apiVersion: sites.example.com/v1alpha1\nkind: StaticSite\nmetadata: {name: ${name}}\nspec: ${spec}\n`;
    try {
      writeFileSync(
        join(dir, 'bad.yaml'),
        [
          site('empty', '{pages: {}}'),
          site('too-many', "{pages: {index.html: ''}, replicas: 11}"),
          site('nested', "{pages: {docs/index.html: ''}}"),
          site('scaled', "{pages: {index.html: ''}, replicas: 3, autoscaling: {maxReplicas: 2}}"),
          site('good', "{pages: {index.html: ''}}"),
        ].join('---\n'),
      );
      const run = reconstruct(['synth', dir, '--kinds', 'src/index.ts', '-o', '-']);
      expect(run.status).toBe(1);
      const problems = run.stderr
        .split('\n')
        .filter((l) => l.includes('bad.yaml') && !l.includes('left out'));
      expect(problems).toEqual([
        expect.stringMatching(/StaticSite\/empty: spec\.pages: .*at least one page/),
        expect.stringMatching(/StaticSite\/too-many: spec\.replicas: .*less than or equal to 10/),
        expect.stringMatching(/StaticSite\/nested: spec\.pages: .*page names must be file names/),
        expect.stringMatching(
          /StaticSite\/scaled: spec\.autoscaling\.maxReplicas: .*autoscaling\.maxReplicas must be at least replicas/,
        ),
      ]);
      // The valid one is still rendered.
      expect(parseYaml(run.stdout).map((d) => `${d.kind}/${d.metadata.name}`)).toContain('Deployment/good');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
