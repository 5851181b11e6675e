/** When tracing is on and where its spans go (controller/tracing/setup.ts), and how an API request's span is named. */
import { tracesDestination } from '../../../controller/tracing/setup';
import { requestSpanName } from '../../../controller/tracing/requests';

describe('tracesDestination', () => {
  it('is off unless an endpoint or an exporter is named', () => {
    expect(tracesDestination({}, {})).toBeUndefined();
    expect(tracesDestination({}, { OTEL_SERVICE_NAME: 'x' })).toBeUndefined();
  });

  it('sends to <endpoint>/v1/traces of the flag, else of OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    expect(tracesDestination({ endpoint: 'http://collector:4318/' }, {})).toBe(
      'http://collector:4318/v1/traces',
    );
    expect(tracesDestination({}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' })).toBe(
      'http://c:4318/v1/traces',
    );
    expect(
      tracesDestination({ endpoint: 'http://flag:4318' }, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://env:4318' }),
    ).toBe('http://flag:4318/v1/traces');
  });

  it('takes OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, and the standard default for OTEL_TRACES_EXPORTER=otlp', () => {
    expect(
      tracesDestination(
        {},
        {
          OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://c:4318/custom',
          OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x',
        },
      ),
    ).toBe('http://c:4318/custom');
    expect(tracesDestination({}, { OTEL_TRACES_EXPORTER: 'otlp' })).toBe('http://localhost:4318/v1/traces');
    expect(tracesDestination({}, { OTEL_TRACES_EXPORTER: 'console' })).toBe('console');
  });

  it('is off whatever else is set with OTEL_SDK_DISABLED=true or OTEL_TRACES_EXPORTER=none', () => {
    const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318' };
    expect(tracesDestination({}, { ...endpoint, OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
    expect(
      tracesDestination({ endpoint: 'http://c:4318' }, { OTEL_TRACES_EXPORTER: 'none' }),
    ).toBeUndefined();
  });
});

describe('requestSpanName', () => {
  it('is the method and the resource, without names or namespaces', () => {
    expect(requestSpanName('PATCH', '/apis/apps/v1/namespaces/demo/deployments/web')).toBe(
      'PATCH deployments',
    );
    expect(
      requestSpanName('PATCH', '/apis/cache.example.com/v1alpha1/namespaces/demo/memcacheds/c/status'),
    ).toBe('PATCH memcacheds/status');
    expect(requestSpanName('POST', '/api/v1/namespaces/demo/events')).toBe('POST events');
    expect(requestSpanName('GET', '/api/v1/namespaces/demo')).toBe('GET namespaces');
    expect(requestSpanName('GET', '/apis/rbac.authorization.k8s.io/v1/clusterroles/x?dryRun=All')).toBe(
      'GET clusterroles',
    );
  });
});
