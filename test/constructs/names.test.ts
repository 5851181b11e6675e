import { balancerKind } from '../../constructs';
import { balancer, databaseManager, memcached, sample, synthesize } from '../fixtures/resources';
import { specError } from './manifests';

it.each([
  () => synthesize(memcached('1cache', { size: 1 })),
  () => synthesize(balancer('9lb', sample(balancerKind).spec)),
])('rejects a name that cannot name a Service (DNS-1035: starts with a letter)', (fn) => {
  expect(specError(fn).field).toBe('metadata.name');
});

it('DatabaseManager: rejects a name too long for a label value', () => {
  expect(specError(() => synthesize(databaseManager('d'.repeat(64), { deploymentName: 'db' }))).field).toBe(
    'metadata.name',
  );
});
