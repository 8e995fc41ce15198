/**
 * The contract's names have one home: src/contract. A module elsewhere that exports them again
 * (`export … from '…/contract'`, or `export { name }` of a name it imported from the contract)
 * makes a second door to the same names, and a reader cannot tell which is the source.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

// Compiled, this file is out/test/unit/architecture/contractNames.test.js.
const root = path.resolve(__dirname, '../../../..');
const contract = path.join(root, 'src/contract');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'src/contract' ? [] : sourceFiles(rel);
    return e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts') ? [rel] : [];
  });
}

/** Whether a module specifier written in `file` names the contract or a file inside it. */
function isContract(file: string, specifier: ts.Expression | undefined): boolean {
  if (!specifier || !ts.isStringLiteral(specifier) || !specifier.text.startsWith('.')) return false;
  const target = path.resolve(path.dirname(path.join(root, file)), specifier.text);
  return target === contract || target.startsWith(contract + path.sep);
}

/** The contract's names that `file` exports again. */
function contractReExports(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(path.join(root, file), 'utf8'), ts.ScriptTarget.Latest);
  const imported = new Set<string>();
  const found: string[] = [];
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && isContract(file, statement.moduleSpecifier)) {
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) imported.add(element.name.text);
    }
  }
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    const clause = statement.exportClause;
    const names = clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
    if (statement.moduleSpecifier) {
      if (isContract(file, statement.moduleSpecifier)) found.push(...names);
    } else found.push(...names.filter((name) => imported.has(name)));
  }
  return found.map((name) => `${file}: ${name}`);
}

test("only src/contract exports the contract's names", () => {
  const files = [...sourceFiles('src'), ...sourceFiles('webview/src')].sort();
  assert.deepEqual(files.flatMap(contractReExports), [], "modules outside src/contract that export the contract's names again: import them from the contract where they are used instead");
});
