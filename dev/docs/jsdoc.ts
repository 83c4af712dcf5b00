// The JSDoc comments of a source file's object literals, by property path: what the generated docs
// say about a config key or an error code comes from the comment next to it in the code, so there
// is one place to write it.
import { readFileSync } from 'node:fs';
import ts from 'typescript';

function jsdocText(node: ts.Node): string | undefined {
  const docs = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc);
  const text = docs
    .map((d) => (typeof d.comment === 'string' ? d.comment : (d.comment ?? []).map((c) => c.text).join('')))
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text === '' ? undefined : text;
}

function propertyName(node: ts.PropertyAssignment | ts.ShorthandPropertyAssignment): string | undefined {
  const n = node.name;
  return ts.isIdentifier(n) || ts.isStringLiteral(n) ? n.text : undefined;
}

/**
 * For the top-level `const <name> = …` of `file`: every property assignment with a JSDoc comment,
 * keyed by its path of enclosing property names (`thrift.uri`), and the comment on the const itself
 * under the key ''.
 */
export function propertyDocs(file: string, name: string): Map<string, string> {
  const src = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
  const out = new Map<string, string>();
  const visit = (node: ts.Node, trail: readonly string[]): void => {
    if (ts.isPropertyAssignment(node) || ts.isShorthandPropertyAssignment(node)) {
      const key = propertyName(node);
      if (key !== undefined) {
        const p = [...trail, key];
        const doc = jsdocText(node);
        if (doc !== undefined) out.set(p.join('.'), doc);
        if (ts.isPropertyAssignment(node)) ts.forEachChild(node.initializer, (c) => visit(c, p));
        return;
      }
    }
    ts.forEachChild(node, (c) => visit(c, trail));
  };
  for (const stmt of src.statements) {
    if (!ts.isVariableStatement(stmt)) continue;
    for (const d of stmt.declarationList.declarations) {
      if (!ts.isIdentifier(d.name) || d.name.text !== name || d.initializer === undefined) continue;
      const top = jsdocText(stmt);
      if (top !== undefined) out.set('', top);
      visit(d.initializer, []);
    }
  }
  return out;
}
