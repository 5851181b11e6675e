/** The install manifests, offline: the metrics Service always, the ServiceMonitor when asked. */
import { builtinKinds } from '../../constructs';
import { installManifests } from '../../controller/install';

type Doc = { kind: string; metadata: { name: string }; spec?: Record<string, unknown> };

const render = (serviceMonitor?: boolean) =>
  installManifests({ kinds: builtinKinds, version: '0.0.0', serviceMonitor }) as Doc[];

describe('installManifests', () => {
  it('puts the controller’s metrics behind a Service', () => {
    expect(render().find((d) => d.kind === 'Service')?.metadata.name).toBe('reconstruct-controller-metrics');
    expect(render().some((d) => d.kind === 'ServiceMonitor')).toBe(false);
  });

  it('adds a ServiceMonitor scraping that Service’s metrics port when asked', () => {
    const docs = render(true);
    const monitor = docs.find((d) => d.kind === 'ServiceMonitor');
    const service = docs.find((d) => d.kind === 'Service');
    expect(monitor?.spec).toEqual({
      selector: { matchLabels: (service?.spec as { selector: object }).selector },
      endpoints: [{ port: 'metrics', path: '/metrics', interval: '30s' }],
    });
  });
});
