/** Observed inputs: what a construct reads besides the spec (see declare.ts). What the kit exports of them. */
export {
  fromChild,
  fromConfigMap,
  fromExternal,
  fromObject,
  fromSecret,
  type AsNumber,
  type ChildOptions,
  type Input,
  type InputSource,
  type InputValue,
  type InputValues,
  type Inputs,
  type KeyOf,
  type NameFrom,
  type ObjectField,
} from './declare';
export { pendingChildren, type PendingChild } from './pending';
export { resolveInputs, type ObjectLookup, type ResolvedInputs } from './resolve';
export { isKnown } from './tokens';
