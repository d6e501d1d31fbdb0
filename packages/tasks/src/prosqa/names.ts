/**
 * Name pools of ProsQA: the 17 person names and 38 concept names that occur across the real
 * valid and test files (docs/datasets.md §4, [measured]). Persons are capitalised, concepts are not.
 */

export const PROSQA_PERSON_NAMES = [
  'Alex',
  'Bob',
  'Carol',
  'Davis',
  'Eva',
  'Fae',
  'Gabriel',
  'Jack',
  'Max',
  'Oliver',
  'Polly',
  'Rex',
  'Sally',
  'Sam',
  'Stella',
  'Tom',
  'Wren',
] as const;

export const PROSQA_CONCEPT_NAMES = [
  'bompus',
  'boompus',
  'brimpus',
  'chorpus',
  'dumpus',
  'felpus',
  'fompus',
  'gerpus',
  'gorpus',
  'grimpus',
  'gwompus',
  'hilpus',
  'impus',
  'jelpus',
  'jompus',
  'kerpus',
  'lempus',
  'lorpus',
  'numpus',
  'quimpus',
  'rempus',
  'rompus',
  'rorpus',
  'scrompus',
  'shumpus',
  'sterpus',
  'storpus',
  'terpus',
  'timpus',
  'tumpus',
  'vumpus',
  'worpus',
  'wumpus',
  'yerpus',
  'yimpus',
  'yumpus',
  'zhorpus',
  'zumpus',
] as const;

export function isPersonName(name: string): boolean {
  return /^[A-Z]/.test(name);
}
