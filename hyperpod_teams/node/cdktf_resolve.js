// Rewriter of the node preload (preload.js): cdktf's resolve() doing less per value.
//
// Why: cdktf resolves every value of every stack three times at synth (a preparing pass that
// finds cross-stack references, then each element, then the whole stack): hundreds of thousands
// of calls on a 100-team synth, a third of node's time. Three edits of resolve(), each giving
// the same answer as cdktf's own code:
//
//  - A string that holds no token returns at once: when its depth is allowed, it holds neither
//    token marker (${TfToken[, #{TfToken[), it is not one of the map-token placeholders resolve()
//    rejects, and cdktf's own number-token expression does not match it, resolve() returns the
//    string unchanged after building a context and three TokenString objects; now it does not
//    build them.
//  - The path shown in error messages ("/" + prefix.join("/")) is built when an error is thrown,
//    not on every call (the prefix is never changed in place).
//  - A nested call's options are built field by field instead of by object spread, which V8 does
//    about three times slower; the options of resolve() have these fields only (Token.resolve and
//    findTokens are its only other callers).
//
// When the module is not exactly the expected text (another cdktf version), nothing changes. The
// output is the same bytes (a test compares).
"use strict";

const RESOLVE_MODULE = /[\\/]cdktf[\\/](?:[^\\/]+[\\/]){0,2}lib[\\/]tokens[\\/]private[\\/]resolve\.js$/;

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
const UNTOKENIZED_STRING = `
    if (typeof obj === "string" &&
        !(options.prefix && options.prefix.length > 200) &&
        !obj.includes(encoding_1.BEGIN_STRING_TOKEN_MARKER) &&
        !obj.includes(encoding_1.BEGIN_LIST_TOKEN_MARKER) &&
        obj !== token_1.Token.STRING_MAP_TOKEN_VALUE &&
        obj !== token_1.Token.ANY_MAP_TOKEN_VALUE &&
        !encoding_1.TokenString.forNumbers(obj).test()) {
        return obj; // hyperpod-teams: a string with no token resolves to itself
    }`;

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

function count(source, text) {
  return source.split(text).length - 1;
}

/** cdktf's resolve module with the three edits, or null when it is not the expected one. */
function cheaperResolve(source) {
  const expected =
    count(source, DEFINITION) === 1 &&
    STRING_BRANCH.every((part) => source.includes(part)) &&
    count(source, PATH_NAME) === 1 &&
    count(source, "pathName") === 1 + PATH_NAME_USES &&
    count(source, "(pathName") === PATH_NAME_USES &&
    count(source, NESTED_OPTIONS) === 1 &&
    count(source, "...options") === 1 &&
    OPTIONS_MADE_BY.every((part) => source.includes(part));
  if (!expected) return null;
  return source
    .replace(DEFINITION, `${DEFINITION}${UNTOKENIZED_STRING}`)
    .replace(PATH_NAME, "")
    .replaceAll("(pathName", '("/" + prefix.join("/")')
    .replace(NESTED_OPTIONS, NESTED_OPTIONS_BY_FIELD);
}

module.exports = {
  name: "cdktf-resolve",
  rewrite: (source, filename) => (RESOLVE_MODULE.test(filename) ? cheaperResolve(source) : null),
  cheaperResolve,
};
