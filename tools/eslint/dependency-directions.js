/**
 * The dependency directions of docs/contributing.md §3, shared by the ESLint config (through
 * @nx/enforce-module-boundaries' depConstraints) and the package.json rule beside this file.
 * One table, so the two checks cannot drift apart.
 */

/** For each `type:*` tag, the tags of the workspace packages it may depend on ('*' = any). */
export const ALLOWED_DEPENDENCIES = {
  'type:core': [],
  'type:backend': [],
  'type:tasks': ['type:core'],
  'type:method': ['type:core'],
  'type:analysis': ['type:core'],
  'type:app': ['*'],
};

/** The same table in the shape `@nx/enforce-module-boundaries` takes. */
export const DEP_CONSTRAINTS = Object.entries(ALLOWED_DEPENDENCIES).map(([sourceTag, tags]) => ({
  sourceTag,
  onlyDependOnLibsWithTags: tags,
}));
