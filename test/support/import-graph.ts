import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import ts from 'typescript';

/** The repository's root: paths below are relative to it, with `/`. */
export const repoRoot = join(import.meta.dirname, '..', '..');

/** One module a source file names: in an import, an `export … from`, an `import()` call or an `import('…').T` type. */
export interface ImportRef {
  specifier: string;
  /** loads nothing at run time: `import type`, `export type`, every name `type`, or an `import('…')` type */
  typeOnly: boolean;
  /** an `import()` call: loaded when it runs, not before the file's first line */
  dynamic: boolean;
}

/** A file's text (cached: the architecture and start-up tests read the same files). */
const texts = new Map<string, ts.SourceFile>();

function sourceFile(file: string): ts.SourceFile {
  let sf = texts.get(file);
  if (!sf) texts.set(file, (sf = ts.createSourceFile(file, readFileSync(join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, false)));
  return sf;
}

const onlyTypes = (names: readonly { isTypeOnly: boolean }[]): boolean => names.length > 0 && names.every((n) => n.isTypeOnly);

/** The modules a file (relative to the repository root) names, read with the TypeScript parser. */
export function importsOf(file: string): ImportRef[] {
  const refs: ImportRef[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const bindings = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly || (clause.name === undefined && bindings !== undefined && ts.isNamedImports(bindings) && onlyTypes(bindings.elements)));
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const typeOnly = node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && onlyTypes(clause.elements));
      refs.push({ specifier: node.moduleSpecifier.text, typeOnly, dynamic: false });
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) refs.push({ specifier: arg.text, typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      refs.push({ specifier: node.argument.literal.text, typeOnly: true, dynamic: false });
    }
    ts.forEachChild(node, visit);
  };
  visit(sourceFile(file));
  return refs;
}

/** The source file a relative specifier names (`./a.js` → `dir/a.ts`), relative to the repository root. */
export function resolveRelative(from: string, specifier: string): string {
  const target = relative(repoRoot, join(repoRoot, dirname(from), specifier)).split(sep).join('/');
  return target.replace(/\.js$/, '.ts');
}

/** Every `.ts` file under a folder of the repository (relative paths, sorted). */
export function sourceFiles(folder: string): string[] {
  return (readdirSync(join(repoRoot, folder), { recursive: true, encoding: 'utf8' }))
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
    .map((f) => `${folder}/${f.split(sep).join('/')}`)
    .sort();
}

/** Whether a file mentions `process.env` in its code (comments aside): `process.env`, `process['env']` or `{ env } = process`. */
export function readsProcessEnv(file: string): boolean {
  const sf = sourceFile(file);
  if (!sf.text.includes('env')) return false;
  let found = false;
  const isProcess = (e: ts.Expression): boolean =>
    (ts.isIdentifier(e) && e.text === 'process') || (ts.isPropertyAccessExpression(e) && e.name.text === 'process');
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (ts.isPropertyAccessExpression(node) && node.name.text === 'env' && isProcess(node.expression)) found = true;
    else if (ts.isElementAccessExpression(node) && isProcess(node.expression) && ts.isStringLiteralLike(node.argumentExpression) && node.argumentExpression.text === 'env') found = true;
    else if (ts.isVariableDeclaration(node) && node.initializer && isProcess(node.initializer) && ts.isObjectBindingPattern(node.name)) {
      found = node.name.elements.some((el) => { const key = el.propertyName ?? el.name; return ts.isIdentifier(key) && key.text === 'env'; });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/**
 * The modules a source file loads by static imports (type-only imports aside), transitively: what is
 * evaluated before its first line runs. Dynamic `import()` is not followed.
 */
export function staticGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    for (const ref of importsOf(file)) {
      if (ref.typeOnly || ref.dynamic) continue;
      if (ref.specifier.startsWith('.')) visit(resolveRelative(file, ref.specifier));
      else if (!ref.specifier.startsWith('node:')) packages.add(ref.specifier);
    }
  };
  visit(entry);
  return { files: [...files], packages: [...packages] };
}
