/**
 * ESLint rule `telepath/package-json`, run on each workspace package's package.json: the checks
 * on the manifest that no plugin makes. `@nx/enforce-module-boundaries` checks the imports a file
 * makes; this rule checks what the manifest declares:
 *   - `nx.tags` holds exactly one `type:*` tag from ALLOWED_DEPENDENCIES;
 *   - every workspace package listed in dependencies, devDependencies, peerDependencies or
 *     nx.implicitDependencies is allowed by that table (an implicit dependency is how core names the
 *     native backend it loads by name at run time, so `type:core` may list a `type:backend` there
 *     and nowhere else).
 * Workspace packages are found from the root package.json's "workspaces" globs (one level: "dir/*").
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ALLOWED_DEPENDENCIES } from './dependency-directions.js';

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'peerDependencies'];
/** Implicit (run-time, by name) edges a tag may declare beyond ALLOWED_DEPENDENCIES. */
const IMPLICIT_ALLOWED = { 'type:core': ['type:backend'] };

/** name → type tag of every workspace package under `root`. */
function workspaceTags(root) {
  const rootJson = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const tags = new Map();
  for (const glob of rootJson.workspaces ?? []) {
    const base = join(root, glob.replace(/\/\*$/, ''));
    if (!existsSync(base)) continue;
    for (const entry of readdirSync(base)) {
      const file = join(base, entry, 'package.json');
      if (!existsSync(file)) continue;
      const json = JSON.parse(readFileSync(file, 'utf8'));
      tags.set(
        json.name,
        (json.nx?.tags ?? []).find((t) => t.startsWith('type:')),
      );
    }
  }
  return tags;
}

function findRoot(dir) {
  for (let d = dir; d !== dirname(d); d = dirname(d)) {
    const file = join(d, 'package.json');
    if (existsSync(file) && JSON.parse(readFileSync(file, 'utf8')).workspaces) return d;
  }
  return undefined;
}

/** @type {import('eslint').Rule.RuleModule} */
export const packageJsonRule = {
  meta: {
    type: 'problem',
    docs: {
      description:
        'package.json: one type:* tag, and declared workspace dependencies that follow the dependency directions',
    },
    schema: [],
  },
  create(context) {
    return {
      Program(node) {
        const filename = context.filename;
        if (!filename.endsWith('package.json')) return;
        const root = findRoot(dirname(filename));
        if (!root || dirname(filename) === root) return;
        const json = JSON.parse(context.sourceCode.getText());
        const typeTags = (json.nx?.tags ?? []).filter((t) => t.startsWith('type:'));
        const known = Object.keys(ALLOWED_DEPENDENCIES);
        if (typeTags.length !== 1 || !known.includes(typeTags[0])) {
          context.report({
            node,
            message: `nx.tags must hold exactly one of ${known.join(', ')} (found: ${typeTags.join(', ') || 'none'})`,
          });
          return;
        }
        const tag = typeTags[0];
        const allowed = ALLOWED_DEPENDENCIES[tag];
        const workspace = workspaceTags(root);
        const check = (dep, where, extra = []) => {
          if (dep === json.name || !workspace.has(dep)) return;
          const target = workspace.get(dep);
          if (allowed.includes('*') || allowed.includes(target) || extra.includes(target)) return;
          context.report({
            node,
            message: `${where}: ${json.name} (${tag}) must not depend on ${dep} (${target}); allowed: ${allowed.length ? allowed.join(', ') : 'no workspace package'}`,
          });
        };
        for (const field of DEPENDENCY_FIELDS) for (const dep of Object.keys(json[field] ?? {})) check(dep, field, []);
        for (const dep of json.nx?.implicitDependencies ?? [])
          check(dep, 'nx.implicitDependencies', IMPLICIT_ALLOWED[tag] ?? []);
      },
    };
  },
};
