/**
 * What the fault tests share: the install's rules (to take one away), and the figures each fault records
 * for docs/RELIABILITY.md (printed, and appended to RECONSTRUCT_FAULTS_OUT when set, one JSON line each).
 */
import { appendFileSync } from 'node:fs';
import { builtinKinds } from '../../constructs/builtin';
import { clusterRules, type PolicyRule } from '../../controller/install/permissions';

/** The ClusterRole rules `reconstruct install` renders for the built-in kinds. */
export function installRules(): PolicyRule[] {
  return clusterRules(builtinKinds);
}

/** One row of the table in docs/RELIABILITY.md. */
export interface FaultFigures {
  fault: string;
  bound: string;
  /** What was measured, e.g. "3.1 s". */
  recovery: string;
  lostOrDuplicated: string;
  /** API requests per 10 s while the fault lasted. */
  requestsPer10s?: string;
}

/** Prints a fault's figures and appends them to RECONSTRUCT_FAULTS_OUT (JSON lines) when set. */
export function record(figures: FaultFigures): void {
  process.stdout.write(`fault figures: ${JSON.stringify(figures)}\n`);
  const out = process.env.RECONSTRUCT_FAULTS_OUT;
  if (out) appendFileSync(out, `${JSON.stringify(figures)}\n`);
}
