// Rewriter of the node preload (preload.js): cdktf's resolve() doing less per value.
//
// Why: cdktf resolves every value of every stack three times at synth (a preparing pass that
// finds cross-stack references, then each element, then the whole stack; cdktf_stack_document.js
// skips the third for a stack without overrides, cdktf_prepared_blocks.js most of the second):
// hundreds of thousands of calls on a 100-team synth, which were half of node's time. These edits of resolve() give the same answers as
// cdktf's own code, with less work:
//
//  - A leaf that resolves to itself is answered without a nested call: undefined, null, a
//    boolean, or a string that holds neither token marker (${TfToken[, #{TfToken[), is not one of
//    the map-token placeholders resolve() rejects, and does not match cdktf's own number-token
//    expression. For these, resolve() returns the value unchanged, after building a resolution
//    context (two closures and a prefix array) and, for a string, three TokenString objects. The
//    depth limit (200) is checked first, as resolve() does. Applied at the top of resolve() and
//    where it resolves a map key, a map value or an array element.
//  - The path shown in error messages ("/" + prefix.join("/")) is built when an error is thrown,
//    not on every call (the prefix is never changed in place).
//  - A nested call's options are built field by field instead of by object spread, which V8 does
//    about three times slower; the options of resolve() have these fields only (its only other
//    callers, Token.resolve and findTokens, pass scope, resolver, preparing and prefix).
//
// When the module is not exactly the expected text (another cdktf version), nothing changes. The
// output is the same bytes (a test compares).
"use strict";

const { occurrences, engineLibFile, fileRewriter } = require("./source_text");

const RESOLVE_MODULE = engineLibFile(["tokens", "private", "resolve.js"]);

const DEFINITION = "function resolve(obj, options) {";
// What the inserted test relies on, as cdktf 0.21 has it: the names it uses, the depth limit,
// and a string branch that tests the same three token kinds and the same placeholders.
const STRING_BRANCH = [
  'const encoding_1 = require("./encoding");',
  'const token_1 = require("../token");',
  "if (prefix.length > 200) {",
  'if (typeof obj === "string") {',
  "if (encoding_1.TokenString.forListToken(obj).test()) {",
  "if (obj === token_1.Token.STRING_MAP_TOKEN_VALUE ||\n            obj === token_1.Token.ANY_MAP_TOKEN_VALUE) {",
  "const tokenStr = encoding_1.TokenString.forString(str, !context.ignoreEscapes, context.warnEscapes);",
  "const tokenNumberStr = encoding_1.TokenString.forNumbers(str);",
];
const LEAF_TEST = `
// hyperpod-teams: true for a value resolve() returns unchanged without resolving anything.
function resolvesToItself(x) {
    if (x === undefined || x === null || typeof x === "boolean") {
        return true;
    }
    return (typeof x === "string" &&
        !x.includes(encoding_1.BEGIN_STRING_TOKEN_MARKER) &&
        !x.includes(encoding_1.BEGIN_LIST_TOKEN_MARKER) &&
        x !== token_1.Token.STRING_MAP_TOKEN_VALUE &&
        x !== token_1.Token.ANY_MAP_TOKEN_VALUE &&
        !encoding_1.TokenString.forNumbers(x).test());
}
`;
const LEAF_FIRST = `
    if (!(options.prefix && options.prefix.length > 200) && resolvesToItself(obj)) {
        return obj;
    }`;
// The nested calls for one leaf, and the same with the leaf answered first. A key resolves at
// the depth of its map (already checked), a value or an element one deeper.
const NESTED_LEAVES = [
  [
    "const resolvedKey = makeContext()[0].resolve(key);",
    "const resolvedKey = resolvesToItself(key) ? key : makeContext()[0].resolve(key);",
  ],
  [
    "const value = makeContext(key)[0].resolve(obj[key]);",
    "const unresolvedValue = obj[key];\n        const value = prefix.length < 200 && resolvesToItself(unresolvedValue)\n            ? unresolvedValue\n            : makeContext(key)[0].resolve(unresolvedValue);",
  ],
  [
    ".map((x, i) => makeContext(`${i}`)[0].resolve(x))",
    ".map((x, i) => (prefix.length < 200 && resolvesToItself(x) ? x : makeContext(`${i}`)[0].resolve(x)))",
  ],
];

const PATH_NAME = 'const pathName = "/" + prefix.join("/");';
const PATH_NAME_USES = 4; // the four errors that show it
const NESTED_OPTIONS = `return resolve(x, {
                    ...options,
                    prefix: newPrefix,
                    previousContext: context,
                });`;
const NESTED_OPTIONS_BY_FIELD = `return resolve(x, {
                    scope: options.scope,
                    resolver: options.resolver,
                    preparing: options.preparing,
                    prefix: newPrefix,
                    previousContext: context,
                });`;
const OPTIONS_MADE_BY = [
  // the only callers: Token.resolve (token.js) passes scope, resolver and preparing
  "resolve(fn(), { scope, prefix: [], resolver, preparing: true });",
];

/** cdktf's resolve module with these edits, or null when it is not the expected one. */
function cheaperResolve(source) {
  const expected =
    occurrences(source, DEFINITION) === 1 &&
    STRING_BRANCH.every((part) => source.includes(part)) &&
    occurrences(source, PATH_NAME) === 1 &&
    occurrences(source, "pathName") === 1 + PATH_NAME_USES &&
    occurrences(source, "(pathName") === PATH_NAME_USES &&
    occurrences(source, NESTED_OPTIONS) === 1 &&
    NESTED_LEAVES.every(([nested]) => occurrences(source, nested) === 1) &&
    !source.includes("resolvesToItself") &&
    !source.includes("unresolvedValue") &&
    occurrences(source, "...options") === 1 &&
    OPTIONS_MADE_BY.every((part) => source.includes(part));
  if (!expected) return null;
  // Replacements by function: a replacement string would give "$" patterns a meaning.
  let rewritten = source
    .replace(DEFINITION, () => `${LEAF_TEST}${DEFINITION}${LEAF_FIRST}`)
    .replace(PATH_NAME, () => "")
    .replaceAll("(pathName", () => '("/" + prefix.join("/")')
    .replace(NESTED_OPTIONS, () => NESTED_OPTIONS_BY_FIELD);
  for (const [nested, leafFirst] of NESTED_LEAVES) rewritten = rewritten.replace(nested, () => leafFirst);
  return rewritten;
}

module.exports = fileRewriter("cdktf-resolve", RESOLVE_MODULE, cheaperResolve);
