/**
 * The properties that hold in every real ProsQA example (docs/datasets.md §4, [measured]); the
 * generator must satisfy them too. Returns the list of violations (empty when all hold).
 */
import type { Example } from '../example.js';
import { bfsDistances, childLists, edgeSentence, parentCounts, reachable } from './graph.js';
import { prosqaGraph } from './load.js';
import { isPersonName } from './names.js';

/** Sentences of a ProsQA question: every edge sentence, then the "Is Name a A or B?" question. */
export function questionSentences(question: string): string[] {
  return question.split(/(?<=[.?]) /);
}

export function prosqaViolations(ex: Example): string[] {
  const g = prosqaGraph(ex);
  const bad: string[] = [];
  const n = g.symbols.length;
  const ch = childLists(n, g.edges);
  const parents = parentCounts(n, g.edges);
  const isPerson = (i: number) => parents[i] === 0;
  if (new Set(g.symbols).size !== n) bad.push('symbol names are not unique');
  g.symbols.forEach((s, i) => {
    if (isPerson(i) !== isPersonName(s)) bad.push(`node ${i} "${s}": parentless nodes must be exactly the persons`);
  });
  const sentences = questionSentences(ex.question);
  const last = sentences.pop() ?? '';
  const expected = g.edges.map(([u, v]) => edgeSentence(g.symbols, u, v, isPerson)).sort();
  if (JSON.stringify([...sentences].sort()) !== JSON.stringify(expected))
    bad.push('question sentences are not exactly one per edge');
  const name = g.symbols[g.root];
  const [tName, nName] = [g.symbols[g.target], g.symbols[g.negTarget]];
  if (last !== `Is ${name} a ${tName} or ${nName}?` && last !== `Is ${name} a ${nName} or ${tName}?`) {
    bad.push(`question does not end "Is ${name} a ${tName} or ${nName}?" (either order)`);
  }
  if (ex.answer !== `${name} is a ${tName}.`) bad.push(`answer is not "${name} is a ${tName}."`);
  const dist = bfsDistances(ch, g.root);
  if (dist[g.target] < 0) bad.push('target not reachable from root');
  if (dist[g.negTarget] >= 0) bad.push('neg_target reachable from root');
  if (ch[g.target].length > 0 || ch[g.negTarget].length > 0) bad.push('target and neg_target must be leaves');
  if (ex.steps.length !== dist[g.target])
    bad.push(`steps (${ex.steps.length}) ≠ shortest path length (${dist[g.target]})`);
  // steps = the sentences of a path root → … → target.
  let at = g.root;
  ex.steps.forEach((s, i) => {
    const next = ch[at].find((v) => edgeSentence(g.symbols, at, v, isPerson) === s);
    if (next === undefined) bad.push(`steps[${i}] ${JSON.stringify(s)} is not an edge out of "${g.symbols[at]}"`);
    else at = next;
  });
  if (ex.steps.length > 0 && at !== g.target) bad.push('steps do not end at the target');
  if (!reachable(ch, g.root).has(g.target)) bad.push('target unreachable');
  return bad;
}
