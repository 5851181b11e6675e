/** ControllerDeployment: the controller's pods, their arguments and their defaults. */
import { App, Chart } from 'cdk8s';
import type { Manifest } from '../../../constructs';
import {
  CONTROLLER_NODE_OPTIONS,
  ControllerDeployment,
  type ControllerDeploymentProps,
} from '../../../controller/install/controller-deployment';
import { version } from '../../../package.json';
import { toYaml } from '../../constructs/manifests';

type Container = {
  image: string;
  args: string[];
  env: { name: string; value: string }[];
  ports: { name: string; containerPort: number }[];
  securityContext: Record<string, unknown>;
};
type Deployment = Manifest & {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: {
      metadata: { labels: Record<string, string> };
      spec: { serviceAccountName: string; containers: Container[] };
    };
  };
};

const labels = { app: 'op' };
function synth(props: Partial<ControllerDeploymentProps> = {}): Deployment {
  const chart = new Chart(new App(), 'test');
  new ControllerDeployment(chart, 'controller', {
    name: 'op',
    namespace: 'op-system',
    serviceAccountName: 'op-sa',
    labels,
    ...props,
  });
  const [deployment] = chart.toJson() as Deployment[];
  return deployment;
}
const container = (deployment: Deployment) => deployment.spec.template.spec.containers[0];

describe('ControllerDeployment', () => {
  it('renders the controller (snapshot)', () => {
    expect(
      toYaml([
        synth({ image: 'op:1', replicas: 1, namespaces: ['a', 'b'], controllerArgs: ['--kinds=k.js'] }),
      ]),
    ).toMatchSnapshot();
  });

  it('GIVEN no options THEN two replicas of reconstruct:<version> watch every namespace', () => {
    const deployment = synth();
    expect(deployment.spec.replicas).toBe(2);
    expect(container(deployment).image).toBe(`reconstruct:${version}`);
    expect(container(deployment).args).toEqual([
      'controller',
      '--leader-elect',
      '--lease-namespace=op-system',
      `--health-addr=0.0.0.0:${ControllerDeployment.HEALTH_PORT}`,
      `--metrics-addr=0.0.0.0:${ControllerDeployment.METRICS_PORT}`,
      '--log-format=json',
    ]);
  });

  it('selects its pods by its labels and runs them as the ServiceAccount given', () => {
    const deployment = synth();
    expect(deployment.metadata.labels).toEqual(labels);
    expect(deployment.spec.selector.matchLabels).toEqual(labels);
    expect(deployment.spec.template.metadata.labels).toEqual(labels);
    expect(deployment.spec.template.spec.serviceAccountName).toBe('op-sa');
  });

  it('watches each namespace given once, then takes the extra arguments', () => {
    const args = container(synth({ namespaces: ['b', 'a', 'b'], controllerArgs: ['--kinds=k.js'] })).args;
    expect(args.slice(-2)).toEqual(['--namespaces=b,a', '--kinds=k.js']);
  });

  it('names the ports the probes and the metrics Service use, and runs with a smaller young generation', () => {
    const c = container(synth());
    expect(c.ports.map((p) => p.name)).toEqual(['health', 'metrics']);
    expect(c.env).toEqual([{ name: 'NODE_OPTIONS', value: CONTROLLER_NODE_OPTIONS }]);
    expect(c.securityContext).toMatchObject({ readOnlyRootFilesystem: true, runAsNonRoot: true });
  });
});
