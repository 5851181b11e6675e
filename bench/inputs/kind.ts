/**
 * The kind of the inputs benchmark: a Themed `<name>` writes a ConfigMap `<name>-page` carrying its spec's
 * color and the theme a ConfigMap of the user's gives (`spec.settings`, key `theme`, an observed input).
 * One child and no workload, so that what is timed is the path from a change to the child written.
 */
import { ApiObject } from 'cdk8s';
import { Construct } from 'constructs';
import {
  CONFIG_MAP,
  defineKind,
  fromConfigMap,
  type InputValues,
  type ResourcePropsWithInputs,
} from '../../constructs';

export interface ThemedSpec {
  /** A ConfigMap of the user's, in the resource's namespace, whose key `theme` the page carries. */
  settings: string;
  color: string;
}

const inputs = { theme: fromConfigMap<ThemedSpec>({ name: (r) => r.spec.settings, key: 'theme' }) };

class Themed extends Construct {
  constructor(
    scope: Construct,
    id: string,
    { name, spec, inputs: values }: ResourcePropsWithInputs<ThemedSpec, InputValues<typeof inputs>>,
  ) {
    super(scope, id);
    new ApiObject(this, 'page', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: `${name}-page` },
      data: { color: spec.color, theme: values.theme },
    });
  }
}

export const themedKind = defineKind({
  apiVersion: 'bench.reconstruct.dev/v1',
  kind: 'Themed',
  plural: 'themeds',
  schema: {
    description: 'A page whose theme comes from a ConfigMap of the user (the inputs benchmark).',
    spec: {
      type: 'object',
      required: ['settings', 'color'],
      properties: { settings: { type: 'string', minLength: 1 }, color: { type: 'string' } },
    },
  },
  children: [CONFIG_MAP],
  inputs,
  construct: Themed,
});

export const kinds = [themedKind];
