/**
 * `reconstruct synth --inputs FILE`: a kind with observed inputs (test/fixtures/kinds/web-front.ts)
 * rendered offline with the inputs' values, as the controller would apply them; without them, the child
 * that waits is left out with one line naming the input and where it comes from, or marked under
 * `--placeholders`; a bad inputs file is said naming the file, the resource and the input.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { synthCommand } from '../../cli/synth';
import { capture } from '../support/capture';

const MODULE = join(__dirname, '../fixtures/kinds/web-front.ts');
const FRONT = `apiVersion: web.example.com/v1
kind: WebFront
metadata: {name: shop, namespace: web}
spec: {image: 'web:1', settings: shop-settings}
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'synth-inputs-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function run(args: string[], files: Record<string, string>) {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  const out = capture();
  const err = capture();
  const code = await synthCommand(
    [join(dir, 'front.yaml'), '-o', '-', '--kinds', MODULE, '--no-builtin-kinds', ...args],
    out,
    err,
  );
  const objects = parseAllDocuments(out.text()).map((d) => d.toJS() as { kind: string; data?: unknown });
  return { code, objects, stderr: err.text() };
}

describe('reconstruct synth --inputs', () => {
  it('renders with the values given, what the controller applies with them', async () => {
    const inputs = join(dir, 'inputs.yaml');
    const { code, objects, stderr } = await run(['--inputs', inputs], {
      'front.yaml': FRONT,
      'inputs.yaml': 'WebFront/web/shop:\n  host: lb.example.net\n  theme: dark\n',
    });
    expect([code, stderr]).toEqual([0, '']);
    expect(objects.map((o) => o.kind)).toEqual(['Deployment', 'Service', 'ConfigMap']);
    expect(objects[2].data).toEqual({ url: 'http://lb.example.net/' });
    expect(JSON.stringify(objects[0])).toContain('{"name":"THEME","value":"dark"}');
  });

  it("gives a resource with no namespace the file's one entry of its kind and name (as `reconstruct inputs` keys it)", async () => {
    const inputs = join(dir, 'inputs.yaml');
    const bare = FRONT.replace(', namespace: web', '');
    const one = await run(['--inputs', inputs], {
      'front.yaml': bare,
      'inputs.yaml':
        'WebFront/web/shop: {host: lb.example.net, theme: dark}\nWebFront/web/other: {host: x}\n',
    });
    expect([one.code, one.stderr]).toEqual([0, '']);
    expect(one.objects[2].data).toEqual({ url: 'http://lb.example.net/' });

    const two = await run(['--inputs', inputs], {
      'front.yaml': bare,
      'inputs.yaml': 'WebFront/web/shop: {host: a}\nWebFront/staging/shop: {host: b}\n',
    });
    expect(two.code).toBe(1);
    expect(two.stderr).toContain(
      'WebFront/shop: has no namespace, and the file has WebFront/web/shop, WebFront/staging/shop: give it one (-n NAMESPACE) or key its inputs WebFront/shop',
    );
  });

  it('leaves out a child that waits for an input not given, saying which and where it comes from', async () => {
    const inputs = join(dir, 'inputs.yaml');
    const { code, objects, stderr } = await run(['--inputs', inputs], {
      'front.yaml': FRONT,
      'inputs.yaml': 'WebFront/web/shop: {theme: dark}\n',
    });
    expect(code).toBe(0);
    expect(objects.map((o) => o.kind)).toEqual(['Deployment', 'Service']);
    expect(stderr).toBe(
      `${join(dir, 'front.yaml')}: WebFront/shop: left out ConfigMap shop-endpoint: it waits for input host ` +
        '(Service shop status.loadBalancer.ingress[0].hostname); --inputs FILE gives values, --placeholders renders it marked\n',
    );
  });

  it('renders the waiting children with their inputs marked under --placeholders', async () => {
    const { code, objects, stderr } = await run(['--placeholders'], { 'front.yaml': FRONT });
    expect(code).toBe(0);
    expect(objects.map((o) => o.kind)).toEqual(['Deployment', 'Service', 'ConfigMap']);
    expect(objects[2].data).toEqual({ url: 'http://<input:host>/' });
    expect(JSON.stringify(objects[0])).toContain('{"name":"THEME","value":"<input:theme>"}');
    expect(stderr.split('\n').filter(Boolean)).toEqual([
      expect.stringContaining(
        'WebFront/shop: rendered Deployment shop with placeholders: it waits for input theme (ConfigMap shop-settings key theme)',
      ),
      expect.stringContaining(
        'WebFront/shop: rendered ConfigMap shop-endpoint with placeholders: it waits for input host',
      ),
    ]);
  });

  it('says what is wrong with an inputs file, naming the file, the resource and the input, and renders the rest', async () => {
    const inputs = join(dir, 'inputs.yaml');
    const other = FRONT.replace('name: shop,', 'name: blog,');
    const { code, objects, stderr } = await run(['--inputs', inputs], {
      'front.yaml': `${FRONT}---\n${other}`,
      'inputs.yaml':
        'WebFront/web/shop: {hostname: lb.example.net}\nWebFront/web/blog: {host: b, theme: t}\n',
    });
    expect(code).toBe(1);
    expect(stderr).toBe(
      `${inputs}: WebFront/web/shop: inputs.hostname: WebFront declares no such input (it has host, theme)\n`,
    );
    expect(objects.map((o) => o.kind)).toEqual(['Deployment', 'Service', 'ConfigMap']);

    const missing = await run(['--inputs', join(dir, 'none.yaml')], { 'front.yaml': FRONT });
    expect([missing.code, missing.stderr]).toEqual([
      1,
      `${join(dir, 'none.yaml')}: inputs: cannot read it: ENOENT\n`,
    ]);
  });
});
