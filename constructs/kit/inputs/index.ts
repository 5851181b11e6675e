/** Observed inputs: what a construct reads besides the spec (see declare.ts). */
export {
  fromChild,
  fromConfigMap,
  fromExternal,
  fromObject,
  fromSecret,
  parsePath,
  inputProblems,
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
export { inputReads, resolveInputs, type InputRead, type ObjectLookup, type ResolvedInputs } from './resolve';
export { inputValues, isKnown, markPending, pendingInputs } from './tokens';
