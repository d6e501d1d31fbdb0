/**
 * ProsQA's two answer options read from the question's structure, not its wording: the options
 * are the graph's `target` and `negTarget`; how often the question mentions an option is its
 * number of facts (edges touching it); the order the question lists them in comes from
 * `meta.optionOrder` ([first, second] node ids) when a rendering records it, else from where each
 * option's name last occurs in the question text (the closing "… a A or a B?" lists A first).
 */
import type { Example } from '../example.js';
import type { ProsqaGraph } from './graph.js';
import { prosqaGraph } from './load.js';

export interface ProsqaOptions {
  graph: ProsqaGraph;
  /** [first-listed, second-listed] node ids. */
  order: [number, number];
  /** Facts (edges) that mention each node, index = node id. */
  mentions: number[];
}

function lastIndexOfWord(text: string, word: string): number {
  let at = -1;
  const re = new RegExp(`\\b${word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`, 'g');
  for (let m = re.exec(text); m; m = re.exec(text)) at = m.index;
  return at;
}

export function prosqaOptions(ex: Example): ProsqaOptions {
  const graph = prosqaGraph(ex);
  const mentions = new Array<number>(graph.symbols.length).fill(0);
  for (const [u, v] of graph.edges) {
    mentions[u]++;
    mentions[v]++;
  }
  const recorded = ex.meta?.optionOrder as unknown;
  const pair: [number, number] = [graph.target, graph.negTarget];
  let order: [number, number];
  if (Array.isArray(recorded) && recorded.length === 2 && pair.every((o) => recorded.includes(o)))
    order = [recorded[0] as number, recorded[1] as number];
  else {
    const [a, b] = pair.map((o) => lastIndexOfWord(ex.question, graph.symbols[o]));
    order =
      a >= 0 && b >= 0 && a !== b ? (a < b ? pair : [pair[1], pair[0]]) : pair[0] < pair[1] ? pair : [pair[1], pair[0]];
  }
  return { graph, order, mentions };
}

/** The option the question mentions less often (fewer facts); the first-listed one on a tie. */
export function lessMentionedOption(o: ProsqaOptions): number {
  const [first, second] = o.order;
  return o.mentions[second] < o.mentions[first] ? second : first;
}

/** The gold answer sentence with its concept replaced by `node`'s (the answer format stays the task's). */
export function prosqaAnswerFor(ex: Example, node: number): string {
  const g = prosqaGraph(ex);
  if (node === g.target) return ex.answer;
  const gold = g.symbols[g.target];
  const at = lastIndexOfWord(ex.answer, gold);
  return at < 0 ? g.symbols[node] : ex.answer.slice(0, at) + g.symbols[node] + ex.answer.slice(at + gold.length);
}
