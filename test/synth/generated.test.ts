/**
 * Offline rendering of children whose values the controller generates (childPolicy's `generate`): left out
 * by default and said so, rendered with fresh values when asked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { synthCommand } from '../../cli/synth';
import { CREATE_ONLY_ANNOTATION, GENERATE_ANNOTATION } from '../../constructs/kit/child-policy';
import type { Manifest } from '../../constructs/kit/resource';
import { renderResources } from '../../synth/render';
import { policyDemoKind } from '../fixtures/kinds/policy-demo';
import { capture } from '../support/capture';

const POLICY_DEMO = join(__dirname, '../fixtures/kinds/policy-demo.ts');

const RESOURCE = `apiVersion: policies.example.com/v1
kind: PolicyDemo
metadata: {name: demo, namespace: ns}
spec: {token: true, data: true}
`;

const names = (manifests: readonly Manifest[]) => manifests.map((m) => `${m.kind}/${m.metadata.name}`);

describe('renderResources and generated values', () => {
  it('by default leaves out the Secret whose token the controller generates, and says which field', () => {
    const { manifests, rendered, problems } = renderResources(RESOURCE, { kinds: [policyDemoKind] });
    expect(problems).toEqual([]);
    expect(names(manifests)).toEqual(['ConfigMap/demo-data', 'ConfigMap/demo-scratch']);
    expect(rendered).toHaveLength(1);
    expect(rendered[0].omitted).toEqual([{ child: 'Secret demo-token', fields: ['/stringData/token'] }]);
    expect(names(rendered[0].children)).toEqual(names(manifests));
  });

  it('with includeGenerated, renders the Secret with 16 alphanumerics and omits nothing', () => {
    const { manifests, rendered, problems } = renderResources(RESOURCE, {
      kinds: [policyDemoKind],
      includeGenerated: true,
    });
    expect(problems).toEqual([]);
    expect(names(manifests)).toEqual(['Secret/demo-token', 'ConfigMap/demo-data', 'ConfigMap/demo-scratch']);
    expect(rendered[0].omitted).toEqual([]);
    const secret = manifests[0];
    expect((secret.stringData as { token: string }).token).toMatch(/^[A-Za-z0-9]{16}$/);
    // The annotations stay, so that the controller, given this output, still creates it only once.
    expect(secret.metadata.annotations).toMatchObject({
      [CREATE_ONLY_ANNOTATION]: 'true',
      [GENERATE_ANNOTATION]: '/stringData/token=alphanumeric(16)',
    });
  });

  it('with includeGenerated, generates a fresh token at each rendering', () => {
    const token = () =>
      (
        renderResources(RESOURCE, { kinds: [policyDemoKind], includeGenerated: true }).manifests[0]
          .stringData as { token: string }
      ).token;
    expect(token()).not.toBe(token());
  });

  it('leaves nothing out of a resource without generated values', () => {
    const { manifests, rendered } = renderResources(RESOURCE.replace('token: true', 'token: false'), {
      kinds: [policyDemoKind],
    });
    expect(names(manifests)).toEqual(['ConfigMap/demo-data', 'ConfigMap/demo-scratch']);
    expect(rendered[0].omitted).toEqual([]);
  });
});

async function run(
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string; docs: Manifest[] }> {
  const out = capture();
  const err = capture();
  const code = await synthCommand(args, out, err);
  const docs = parseAllDocuments(out.text())
    .map((d) => d.toJS() as Manifest | null)
    .filter((d): d is Manifest => d !== null);
  return { code, stdout: out.text(), stderr: err.text(), docs };
}

describe('reconstruct synth and generated values', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'generated-'));
    file = join(dir, 'demo.yaml');
    writeFileSync(file, RESOURCE);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes no Secret to standard output and says on standard error what it left out', async () => {
    const { code, stdout, stderr, docs } = await run([file, '-o', '-', '--kinds', POLICY_DEMO]);
    expect(names(docs)).toEqual(['ConfigMap/demo-data', 'ConfigMap/demo-scratch']);
    expect(stdout).not.toContain('Secret');
    expect(stderr).toContain(`${file}: PolicyDemo/demo: left out Secret demo-token`);
    expect(stderr).toContain('/stringData/token');
    expect(stderr).toContain('--include-generated');
    expect(stderr.trim().split('\n')).toHaveLength(1);
    expect(code).toBe(0);
  }, 30_000);

  it('with --include-generated, writes the Secret with its token and says nothing', async () => {
    const { code, stderr, docs } = await run([
      file,
      '-o',
      '-',
      '--kinds',
      POLICY_DEMO,
      '--include-generated',
    ]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(names(docs)).toEqual(['Secret/demo-token', 'ConfigMap/demo-data', 'ConfigMap/demo-scratch']);
    expect((docs[0].stringData as { token: string }).token).toMatch(/^[A-Za-z0-9]{16}$/);
  }, 30_000);
});
