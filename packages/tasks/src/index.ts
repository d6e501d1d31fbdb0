/**
 * @telepath/tasks — GSM8K, ProsQA and Countdown: real data loaders with sha256 checks, the
 * ProsQA and Countdown generators, verifiers, scoring and sequence formats.
 */
export type { Example, ReasoningVerdict, Task, TaskName } from './example.js';
export { DataError, type SkippedRecord, type BadRecordOptions } from './data-error.js';
export { DATASET_FILES, DATASET_FILE_KEYS, type DatasetFile, type DatasetFileKey } from './registry.js';
export {
  defaultDatasetsDir,
  datasetPath,
  readDatasetFile,
  sha256Hex,
  examplesSha256,
  type FileCheck,
  type ReadOptions,
} from './files.js';
export type { LoadResult, LoadOptions } from './load-result.js';
export { canonicalNumber, numbersEqual, numbersClose, firstNumber } from './numbers.js';
export { answerText, reasoningText } from './answer.js';

export {
  loadGsm8k,
  loadGsm8kOriginal,
  loadGsm8kAug,
  loadGsm8kJsonlFile,
  excludeQuestions,
  type Gsm8kSplit,
} from './gsm8k/load.js';
export { parseGsm8kLine, parseIcotLine, formatIcotLine, extractAnnotations, type Gsm8kParsed } from './gsm8k/parse.js';
export { loadGsmHard, loadSvamp } from './gsm8k/ood.js';
export { gsm8kTask, gsmHardTask, svampTask, GSM_HARD_TOLERANCE } from './gsm8k/task.js';

export {
  loadProsqa,
  parseProsqaJson,
  toProsqaRecord,
  prosqaGraph,
  type ProsqaRecord,
  type ProsqaSplit,
} from './prosqa/load.js';
export type { ProsqaGraph } from './prosqa/graph.js';
export { prosqaViolations } from './prosqa/invariants.js';
export {
  generateProsqa,
  DEFAULT_PROSQA_GEN_CONFIG,
  PROSQA_GENERATOR_VERSION,
  type ProsqaGenConfig,
  type GenerateProsqaOptions,
} from './prosqa/generate.js';
export { prosqaStats, type ProsqaStats } from './prosqa/stats.js';
export { compareProsqa, type ComparisonRow } from './prosqa/compare.js';
export { prosqaTask, answerConcept } from './prosqa/task.js';
export { checkProsqaReasoning } from './prosqa/reasoning.js';
export { PROSQA_PERSON_NAMES, PROSQA_CONCEPT_NAMES } from './prosqa/names.js';
export {
  toSymbolicProsqa,
  renderProsqa,
  englishFromSymbolic,
  parseSymbolicQuestion,
  PROSQA_RENDERINGS,
  PROSQA_REASONING,
  PATH_MARK,
  FRONTIER_MARK,
  EXPANSION_MARK,
  type ProsqaRendering,
  type SymbolicLayout,
  type ProsqaReasoning,
} from './prosqa/symbolic.js';
export {
  expansionProblems,
  expansionTrace,
  frontierTrace,
  frontierProblems,
  pathFromSteps,
  pathProblems,
} from './prosqa/traces.js';
export {
  generateBalancedProsqa,
  curriculumStage,
  curriculumPrefix,
  DEFAULT_DEPTH_SHARES,
  PROSQA_BALANCED_VERSION,
  CURRICULUM_MIN_DEPTH,
  CURRICULUM_MAX_DEPTH,
  type BalancedProsqaOptions,
} from './prosqa/balanced.js';

export { COUNTDOWN_RULES, type CountdownRules } from './countdown/rules.js';
export {
  generateCountdown,
  generateCountdownSplits,
  drawCountdownInstance,
  countdownTargets,
  DEFAULT_COUNTDOWN_GEN_CONFIG,
  DEFAULT_COUNTDOWN_SIZES,
  COUNTDOWN_GENERATOR_VERSION,
  COUNTDOWN_SPLITS,
  COUNTDOWN_MIN_N,
  COUNTDOWN_MAX_N,
  isCountdownSize,
  type CountdownSplit,
  type CountdownMeta,
  type CountdownGenConfig,
  type GenerateCountdownOptions,
} from './countdown/generate.js';
export { sosFirstSolution, sosNaiveTreeSize } from './countdown/sos-dfs.js';
export { solveCountdown, type Solution } from './countdown/solver.js';
export { verifyCountdown, verifyExpression, verifySteps, type Verdict, type VerifyReason } from './countdown/verify.js';
export {
  loadCountdownJsonl,
  toCountdownJsonl,
  type CountdownLoadOptions,
  type CountdownLoadResult,
} from './countdown/load.js';
export { countdownTask, countdownAllNumbersTask, type CountdownTask } from './countdown/task.js';
export { countdownQuestion, stepsToExpression } from './countdown/format.js';
export {
  renderCountdown,
  reverseDigitRuns,
  readNumbers,
  stateLines,
  searchTrace,
  COUNTDOWN_REASONING,
  SEARCH_REASONING,
  NUMBER_FORMATS,
  SEARCH_ORDERS,
  DEFAULT_RENDER_OPTIONS,
  type SearchOrder,
  type SearchOptions,
  type CountdownReasoning,
  type NumberFormat,
  type RenderOptions,
} from './countdown/reasoning.js';
export { verifyTrace } from './countdown/trace-check.js';
export {
  countdownTrainBatch,
  countdownFact,
  exampleChars,
  FACT_OPS,
  factsInBatch,
  singleSolutionGuess,
  type CountdownStreamOptions,
  type FactOps,
} from './countdown/stream.js';

export {
  toSequence,
  noCotSequence,
  cotSequence,
  latentSequence,
  sequenceText,
  SEQUENCE_MODES,
  type Sequence,
  type SequenceMode,
  type LatentOptions,
} from './sequences.js';
export { buildVocabulary, buildAndSaveVocabulary, vocabularyTexts, type VocabularyReport } from './vocabulary.js';

export { taskHeuristics, countdownSum, countdownGreedy, type Heuristic, type HeuristicAnswer } from './heuristics.js';
export {
  diagnoseChain,
  chainClass,
  expressionValue,
  CHAIN_CLASSES,
  type ChainClass,
  type ChainDiagnosis,
} from './diagnostics.js';
export { prosqaOptions, lessMentionedOption, prosqaAnswerFor, type ProsqaOptions } from './prosqa/options.js';
