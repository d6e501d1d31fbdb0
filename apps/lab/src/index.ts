export { main } from './cli.js';
export { METHODS, PLANNED_METHODS, methodById } from './methods.js';
export { loadExperiment, validateExperiment, type Arm, type ExperimentConfig } from './experiment.js';
export { loadTaskData, TASK_NAMES, type TaskData, type LabTaskName } from './data.js';
export { runExperiment } from './run-experiment.js';
export { runArm, runDirOf, type ArmSummary } from './run-arm.js';
export { evaluate, type EvalResult } from './evaluate.js';
export { aggregate, tableMarkdown, tableCsv, tableText, resultsJson, type ArmRow } from './table.js';
export { reportCommand, readSummaries, writeReport } from './report.js';
