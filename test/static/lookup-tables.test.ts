import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import ts from "typescript";

/**
 * Keeps the rule "user strings never index plain objects" (docs/decisions.md,
 * "Hardening") from coming back. A plain object answers `constructor`, `__proto__` or `toString` from
 * Object.prototype, so `TABLE[input]` turns those inputs into functions and prototypes (500s,
 * leaked files, prototype writes). The scan finds every variable initialised with an object literal
 * and fails on any `name[expression]` over it, read or write, whose key is not a literal, unless
 * - the variable is declared `Record<K, V>` with K a closed union (not `string`): the compiler then
 *   proves the key is one of K, and K-typed values only come out of validation; or
 * - the access sits under an `Object.hasOwn(name, key)` test of the same key.
 * Anything else must be a Map. The scan is syntactic (no type checker: a second over src/ and
 * web/src/), follows exported tables into the files that import them, and cannot see an object
 * passed as a parameter and then indexed: the generated prototype-key test over every route
 * (test/integration/openapi-generated.test.ts) covers that at run time.
 */

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function sourceFiles(directory: string): string[] {
  return readdirSync(join(ROOT, directory), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.endsWith(".d.ts"))
    .map((file) => join(directory, file));
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
}

/** `{…}`, `{…} as const`, `{…} satisfies T`, `({…})`. */
function isObjectLiteral(node: ts.Expression): boolean {
  while (
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isParenthesizedExpression(node) ||
    ts.isTypeAssertionExpression(node)
  ) {
    node = node.expression;
  }
  return ts.isObjectLiteralExpression(node);
}

/** `Record<K, V>` with K other than string: every key is known to the compiler. */
function hasClosedKeys(type: ts.TypeNode | undefined): boolean {
  if (!type || !ts.isTypeReferenceNode(type) || type.typeName.getText() !== "Record") return false;
  const key = type.typeArguments?.[0];
  return (
    key !== undefined &&
    key.kind !== ts.SyntaxKind.StringKeyword &&
    key.kind !== ts.SyntaxKind.AnyKeyword &&
    key.getText() !== "PropertyKey"
  );
}

/** Names of the object-literal variables of a file that may be indexed only with literals; `exported` gets the exported ones. */
function objectTables(source: ts.SourceFile): { all: Set<string>; exported: Set<string> } {
  const all = new Set<string>();
  const exported = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer && isObjectLiteral(node.initializer)) {
      if (!hasClosedKeys(node.type)) {
        all.add(node.name.text);
        const statement = node.parent.parent;
        if (ts.isVariableStatement(statement) && statement.modifiers?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword)) {
          exported.add(node.name.text);
        }
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return { all, exported };
}

function isLiteralKey(node: ts.Expression): boolean {
  return ts.isStringLiteral(node) || ts.isNumericLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node);
}

/** Whether an enclosing condition (`?:`, `&&`, `if`) tests `Object.hasOwn(table, key)` before the access runs. */
function isOwnKeyGuarded(access: ts.ElementAccessExpression): boolean {
  const guard = `Object.hasOwn(${access.expression.getText()}, ${access.argumentExpression.getText()})`;
  for (let child: ts.Node = access, parent = access.parent; parent; child = parent, parent = parent.parent) {
    const condition =
      ts.isConditionalExpression(parent) && child === parent.whenTrue
        ? parent.condition
        : ts.isBinaryExpression(parent) && parent.operatorToken.kind === ts.SyntaxKind.AmpersandAmpersandToken && child === parent.right
          ? parent.left
          : ts.isIfStatement(parent) && child === parent.thenStatement
            ? parent.expression
            : undefined;
    if (condition?.getText().includes(guard)) return true;
  }
  return false;
}

/** Every `table[non-literal key]` over a plain-object table of this file or an exported one of another. */
export function findObjectLookups(fileName: string, text: string, exportedTables: ReadonlySet<string> = new Set()): string[] {
  const source = parse(fileName, text);
  const tables = objectTables(source).all;
  const found: string[] = [];
  const check = (node: ts.Node): void => {
    if (
      ts.isElementAccessExpression(node) &&
      ts.isIdentifier(node.expression) &&
      (tables.has(node.expression.text) || exportedTables.has(node.expression.text)) &&
      !isLiteralKey(node.argumentExpression) &&
      !isOwnKeyGuarded(node)
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${fileName}:${line + 1}: ${node.getText()}`);
    }
    ts.forEachChild(node, check);
  };
  check(source);
  return found;
}

describe("lookup tables", () => {
  it("no plain object in src/ or web/src/ is indexed with a computed key (use a Map)", () => {
    const files = [...sourceFiles("src"), ...sourceFiles("web/src")].map((file) => ({
      file,
      text: readFileSync(join(ROOT, file), "utf8"),
    }));
    const exported = new Set(files.flatMap(({ file, text }) => [...objectTables(parse(file, text)).exported]));
    const found = files.flatMap(({ file, text }) => findObjectLookups(file, text, exported));
    assert.deepEqual(found, []);
  });

  it("catches the shapes that caused the bugs, and only those", () => {
    const bad = [
      'const CONTENT_TYPES: Record<string, string> = { png: "image/png" };\nexport const f = (t: string) => CONTENT_TYPES[t];',
      'const ALIASES = { finished: "COMPLETED" } as const;\nexport const f = (t: string) => ALIASES[t as never];',
      "export function f(items: { k: string }[]) { const groups: Record<string, string[]> = {}; for (const i of items) (groups[i.k] ??= []).push(i.k); return groups; }",
      'const T: Record<string, number> = {};\nexport const f = (k: string) => (Object.hasOwn(T, "x") ? T[k] : 0);',
    ];
    for (const text of bad) assert.equal(findObjectLookups("bad.ts", text).length, 1, text);
    assert.equal(
      findObjectLookups("importer.ts", "export const f = (t: string) => STATUS_ALIASES[t];", new Set(["STATUS_ALIASES"])).length,
      1,
    );
    const good = [
      'const CONTENT_TYPES = new Map([["png", "image/png"]]);\nexport const f = (t: string) => CONTENT_TYPES.get(t);',
      'const LABELS = { a: "A" };\nexport const f = () => LABELS["a"];',
      "export const f = (list: number[], i: number) => list[i];",
      'type K = "a" | "b";\nconst RANK: Record<K, number> = { a: 1, b: 2 };\nexport const f = (k: K) => RANK[k];',
      "const T: Record<string, number> = { x: 1 };\nexport const f = (k: string) => (Object.hasOwn(T, k) ? T[k] : 0);",
    ];
    for (const text of good) assert.deepEqual(findObjectLookups("good.ts", text), [], text);
  });
});
