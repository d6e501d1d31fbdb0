/**
 * The shipped dataset files: a literal table (docs/contributing.md §1, transformers.js "literal registry
 * tables"). The sha256, byte and example counts are those recorded in each folder's
 * PROVENANCE.md and in datasets/README.md (docs/datasets.md §0); `registry.test.ts` checks that the
 * three agree, and the loaders check every file against this table before parsing it.
 */

export interface DatasetFile {
  /** Folder under datasets/. */
  dir: string;
  /** File name inside the folder. */
  file: string;
  sha256: string;
  bytes: number;
  /** Published number of examples. */
  examples: number;
  /** Heading in datasets/README.md that says where the file comes from. */
  readmeSection: string;
}

export const DATASET_FILES = {
  'gsm8k/train': {
    dir: 'gsm8k',
    file: 'train.jsonl',
    bytes: 4_166_206,
    examples: 7_473,
    readmeSection: 'GSM8K',
    sha256: '17f347dc51477c50d4efb83959dbb7c56297aba886e5544ee2aaed3024813465',
  },
  'gsm8k/test': {
    dir: 'gsm8k',
    file: 'test.jsonl',
    bytes: 749_738,
    examples: 1_319,
    readmeSection: 'GSM8K',
    sha256: '3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14',
  },
  'gsm8k-aug/valid': {
    dir: 'gsm8k_aug',
    file: 'valid.txt',
    bytes: 143_419,
    examples: 500,
    readmeSection: 'GSM8k-Aug',
    sha256: '04f9bddfe8ac4846571b1e2b612b289c95770b5012fdb34cc36a597b041afb87',
  },
  'gsm8k-aug/test': {
    dir: 'gsm8k_aug',
    file: 'test.txt',
    bytes: 388_019,
    examples: 1_319,
    readmeSection: 'GSM8k-Aug',
    sha256: 'e464efa2713fbcf423bdbfb482c543a6a086188c3d97c294b1d19a70c2a515e8',
  },
  'prosqa/valid': {
    dir: 'prosqa',
    file: 'prosqa_valid.json',
    bytes: 518_208,
    examples: 300,
    readmeSection: 'ProsQA',
    sha256: 'c74e0de24f1e90ec48b1a993e6458a7be4caeef3928f5104e3c2e45d689a5249',
  },
  'prosqa/test': {
    dir: 'prosqa',
    file: 'prosqa_test.json',
    bytes: 856_611,
    examples: 500,
    readmeSection: 'ProsQA',
    sha256: '82ddc0afe6ee30eb31bb16fa208e293e55278a20fa987098d48519cae7e12680',
  },
  'gsm-hard/test': {
    dir: 'gsm_hard',
    file: 'gsmhardv2.jsonl',
    bytes: 1_138_151,
    examples: 1_319,
    readmeSection: 'GSM-Hard',
    sha256: '2032b0188a49ac0ec38cbe1e695e7d62d6dddc44bbb64f920728aca710e9ddef',
  },
  'svamp/test': {
    dir: 'svamp',
    file: 'SVAMP.json',
    bytes: 339_970,
    examples: 1_000,
    readmeSection: 'SVAMP',
    sha256: '5be77703a6d891ae476d7c082787ad361392aa02453b132516cdd5f4e7934e3e',
  },
} as const satisfies Record<string, DatasetFile>;

export type DatasetFileKey = keyof typeof DATASET_FILES;
export const DATASET_FILE_KEYS = Object.keys(DATASET_FILES) as DatasetFileKey[];
