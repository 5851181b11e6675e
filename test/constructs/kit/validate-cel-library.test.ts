/** The CEL library behind the schemas' rules is loaded when a rule first runs: never for synthesis alone. */
import { resource } from './validate-fixtures';

describe('the CEL library', () => {
  it('loads on the first rule evaluated, not with the kinds nor for a resource the API server admitted', () => {
    let loaded = 0;
    jest.isolateModules(() => {
      jest.doMock('@bufbuild/cel', () => {
        loaded++;
        return jest.requireActual<object>('@bufbuild/cel');
      });
      /* eslint-disable @typescript-eslint/no-require-imports -- modules of the isolated registry */
      const kit = require('../../../constructs') as typeof import('../../../constructs');
      const validate =
        require('../../../constructs/kit/validate') as typeof import('../../../constructs/kit/validate');
      /* eslint-enable @typescript-eslint/no-require-imports -- the loading ends here */
      const balancer = (name: string) =>
        resource(
          kit.balancerKind.crd,
          {
            ports: [{ name: 'http', port: 80 }],
            backends: [{ name: 'v1', weight: 1 }],
            selector: { app: 'web' },
          },
          { name, namespace: 'default' },
        );
      // What the controller does with each resource: synthesize it as admitted (Balancer has CEL rules).
      const children = kit.synthesize(kit.balancerKind, balancer('front') as never, {
        owner: { uid: 'u' },
        admitted: true,
      });
      expect(children.length).toBeGreaterThan(0);
      expect(loaded).toBe(0);
      // The offline renderer validates: the root rule needs CEL, and refuses a name too long for it.
      const { errors } = validate.validateResource(kit.balancerKind.crd, balancer('b'.repeat(60)));
      expect(loaded).toBe(1);
      expect(errors.map((e) => e.field)).toContain('spec.backends');
    });
  });
});
