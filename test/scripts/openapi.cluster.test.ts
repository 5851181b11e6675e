/**
 * The Kubernetes schemas shipped for offline child validation are those of the API server the package
 * targets: generated again from the local control plane's `/openapi/v3`, they equal the committed file.
 * When this fails, run `npm run gen:openapi` and commit the file.
 */
import { readFileSync } from 'node:fs';
import { OUTPUT, generate } from '../../scripts/openapi/generate';

it('constructs/kit/validate/kubernetes-openapi.json is what the API server serves', () => {
  const committed = JSON.parse(readFileSync(OUTPUT, 'utf8')) as ReturnType<typeof generate>;
  const served = generate();
  expect(served.kubernetes).toBe(committed.kubernetes);
  expect(Object.keys(served.kinds)).toEqual(Object.keys(committed.kinds));
  expect(served).toEqual(committed);
});
