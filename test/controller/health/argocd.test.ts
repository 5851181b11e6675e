/**
 * Argo CD's health checks as `reconstruct install --argocd-health` renders them (controller/health/argocd.ts):
 * one key per kind, the same check, nothing else in the ConfigMap. What Argo CD makes of them, by its own
 * code: test/controller/health.cluster.test.ts.
 */
import { parseAllDocuments } from 'yaml';
import { installCommand } from '../../../cli/install';
import { builtinKinds } from '../../../constructs';
import { HEALTH_LUA, argocdHealthConfigMap, healthKey } from '../../../controller/health/argocd';
import { installManifests } from '../../../controller/install/install';

type Doc = { kind: string; metadata: { name: string; namespace?: string }; data?: Record<string, string> };
const argocdCm = (docs: Doc[]) =>
  docs.filter((d) => d.kind === 'ConfigMap' && d.metadata.name === 'argocd-cm');

describe('the health checks for Argo CD', () => {
  it('are keyed resource.customizations.health.<group>_<Kind>, one per kind, all with the one check', () => {
    const cm = argocdHealthConfigMap(builtinKinds) as Doc;
    expect(cm.metadata).toMatchObject({ name: 'argocd-cm', namespace: 'argocd' });
    expect(Object.keys(cm.data ?? {})).toEqual(
      expect.arrayContaining([
        'resource.customizations.health.cache.example.com_Memcached',
        'resource.customizations.health.mysql.oracle.com_Cluster',
        'resource.customizations.health.nodes.lailin.xyz_NodePool',
      ]),
    );
    expect(Object.keys(cm.data ?? {})).toHaveLength(builtinKinds.length);
    expect(new Set(Object.values(cm.data ?? {}))).toEqual(new Set([HEALTH_LUA]));
    expect(healthKey({ group: 'mysql.reconstruct.dev', kind: 'MysqlUser' })).toBe(
      'resource.customizations.health.mysql.reconstruct.dev_MysqlUser',
    );
  });

  it('are in the install only when asked, in the namespace asked', () => {
    const render = (argocdHealth?: { namespace?: string }) =>
      installManifests({
        kinds: builtinKinds,
        version: '0.0.0',
        ...(argocdHealth ? { argocdHealth } : {}),
      }) as Doc[];
    expect(argocdCm(render())).toEqual([]);
    expect(argocdCm(render({}))[0].metadata.namespace).toBe('argocd');
    expect(argocdCm(render({ namespace: 'gitops' }))[0].metadata.namespace).toBe('gitops');
  });

  it('come from `reconstruct install --argocd-health [--argocd-namespace NS]`, which refuses a namespace alone', async () => {
    const cli = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const stdout = jest.spyOn(process.stdout, 'write').mockImplementation((s) => out.push(String(s)) > 0);
      const stderr = jest.spyOn(process.stderr, 'write').mockImplementation((s) => err.push(String(s)) > 0);
      try {
        const status = await installCommand(args, '0.0.0');
        return { status, stdout: out.join(''), stderr: err.join('') };
      } finally {
        stdout.mockRestore();
        stderr.mockRestore();
      }
    };
    const out = await cli('--argocd-health', '--argocd-namespace', 'gitops');
    expect(out.status).toBe(0);
    const docs = parseAllDocuments(out.stdout).map((d) => d.toJSON() as Doc);
    expect(argocdCm(docs)[0].metadata.namespace).toBe('gitops');
    const alone = await cli('--argocd-namespace', 'gitops');
    expect(alone.status).toBe(2);
    expect(alone.stderr).toBe('reconstruct install: --argocd-namespace: only with --argocd-health\n');
  });
});
