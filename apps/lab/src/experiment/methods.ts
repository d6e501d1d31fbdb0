/**
 * The only place that knows every method: a literal table from method id to its implementation
 * (docs/contributing.md §4: no registries, no side-effect registration). Methods still to come are listed
 * with the issue that brings them, so `telepath list` and config errors can say so.
 */
import { colar } from '@telepath/colar';
import type { LatentMethod, MethodId } from '@telepath/core';
import { coprocessor } from '@telepath/coprocessor';
import { cot } from '@telepath/cot';
import { softEmbedding } from '@telepath/soft-embedding';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMethod = LatentMethod<any, any>;

export const METHODS: Partial<Record<MethodId, AnyMethod>> = {
  cot,
  coprocessor,
  'soft-embedding': softEmbedding,
  colar,
};

/** Methods that are not (yet) arm methods, with where they live instead. */
export const PLANNED_METHODS: Partial<Record<MethodId, string>> = {
  'thought-comm':
    'runs as an experiment kind, not as an arm: "kind": "thought-comm-synthetic" or "thought-comm-agents" (kinds.ts, issue 9)',
};

export function methodById(id: string, where: string): AnyMethod {
  const m = METHODS[id as MethodId];
  if (m) return m;
  const planned = PLANNED_METHODS[id as MethodId];
  throw new Error(
    `${where}: unknown method "${id}". Expected one of: ${Object.keys(METHODS).join(', ')}${planned ? ` ("${id}" ${planned})` : ''}`,
  );
}
