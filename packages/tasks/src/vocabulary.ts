/**
 * The vocabulary of a task, built with core's Tokenizer from the training split only: every
 * piece of core's `exampleTexts` (question, steps, answer — which covers the No-CoT, CoT and
 * latent forms) plus core's special tokens. Evaluation splits are measured against it (unknown
 * pieces), never used to build it.
 */
import { exampleTexts, Tokenizer, type BuildOptions } from '@telepath/core';
import type { Example } from './example.js';

export interface VocabularyReport {
  size: number;
  trainExamples: number;
  /** Pieces of each evaluation split that encode as <unk>. */
  unknown: Record<string, { pieces: number; unknown: number }>;
}

/** Text a task's vocabulary is built from (core's `exampleTexts`). */
export function vocabularyTexts(examples: Iterable<Example>): string[] {
  return exampleTexts(examples);
}

export function buildVocabulary(train: Iterable<Example>, o: BuildOptions = {}): Tokenizer {
  return Tokenizer.build(vocabularyTexts(train), o);
}

/** Builds from the training split, saves it (core's JSON format, atomic write) and reports coverage. */
export async function buildAndSaveVocabulary(
  train: Example[],
  path: string,
  evaluation: Record<string, Example[]> = {},
  o: BuildOptions = {},
): Promise<{ tokenizer: Tokenizer; report: VocabularyReport }> {
  const tokenizer = buildVocabulary(train, o);
  await tokenizer.save(path);
  const unknown = Object.fromEntries(
    Object.entries(evaluation).map(([k, ex]) => [k, tokenizer.countUnknown(vocabularyTexts(ex))]),
  );
  return { tokenizer, report: { size: tokenizer.size, trainExamples: train.length, unknown } };
}
