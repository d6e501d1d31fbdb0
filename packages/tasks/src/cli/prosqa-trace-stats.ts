/**
 * `npm run -w @telepath/tasks prosqa-trace-stats -- FILE... [--json]`: where a model's written
 * breadth-first ProsQA traces leave the right one, per samples.jsonl (prosqa/trace-diagnosis.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  DIAGNOSED_REASONING,
  diagnoseTrace,
  formatDiagnosisSummary,
  summarizeDiagnoses,
  type DiagnosedReasoning,
  type TraceDiagnosisSummary,
} from '../prosqa/trace-diagnosis.js';
import { reasoningText } from '../answer.js';
import { runSamplesCommand } from './options.js';

const HELP = `Usage: npm run -w @telepath/tasks prosqa-trace-stats -- FILE... [--json]

Reads the generations of a ProsQA run written as an 'expansion', 'expansion-queue' or 'expansion-queue-done' trace (its
samples.jsonl: "question", "gold", "text" per line; the rendering and reasoning from the
config.resolved.json beside it) and prints, per file: lines per trace, the lines that name a node
and exactly its children (the lookup), the first line that leaves the right trace (the breadth-first
order), how many wrote the right trace whole and went on (the stop), and for queue traces how many
lines expand the first node of the queue the line above states and state the queue their own
children make.

Options:
  --json   one JSON object on stdout, file → summary
  --help   this text`;

function runData(file: string): { rendering: string; reasoning: DiagnosedReasoning } {
  const configFile = path.join(path.dirname(file), 'config.resolved.json');
  if (!existsSync(configFile))
    throw new Error(`${file}: no config.resolved.json beside it (which rendering and trace?)`);
  const data = (JSON.parse(readFileSync(configFile, 'utf8')) as { data?: { rendering?: string; reasoning?: string } })
    .data;
  const reasoning = data?.reasoning;
  if (!DIAGNOSED_REASONING.some((r) => r === reasoning))
    throw new Error(
      `${configFile}: data.reasoning is ${JSON.stringify(reasoning)}, expected one of ${DIAGNOSED_REASONING.map((r) => JSON.stringify(r)).join(', ')}`,
    );
  return { rendering: data?.rendering ?? 'symbolic', reasoning: reasoning as DiagnosedReasoning };
}

function fileSummary(file: string): TraceDiagnosisSummary {
  const { rendering, reasoning } = runData(file);
  const rows = readFileSync(file, 'utf8')
    .split('\n')
    .map((line, i) => [line, i + 1] as const)
    .filter(([line]) => line.trim() !== '');
  return summarizeDiagnoses(
    rows.map(([line, n]) => {
      let row: { question?: unknown; gold?: unknown; text?: unknown };
      try {
        row = JSON.parse(line);
      } catch {
        throw new Error(`${file}:${n}: not JSON`);
      }
      if (typeof row.question !== 'string' || typeof row.gold !== 'string' || typeof row.text !== 'string')
        throw new Error(`${file}:${n}: expected a sample with "question", "gold" and "text" (strings)`);
      try {
        return diagnoseTrace(row.question, row.gold, reasoningText(row.text), reasoning, rendering === 'headed');
      } catch (e) {
        throw new Error(`${file}:${n}: ${(e as Error).message}`);
      }
    }),
  );
}

runSamplesCommand('prosqa-trace-stats', HELP, fileSummary, formatDiagnosisSummary);
