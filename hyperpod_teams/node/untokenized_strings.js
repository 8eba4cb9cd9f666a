// Rewriter of the node preload (preload.js): cdktf resolves a string that holds no token at once.
//
// Why: cdktf resolves every value of every stack three times at synth (a preparing pass that
// finds cross-stack references, then each element, then the whole stack), and for each string it
// builds a resolution context and three TokenString objects and runs their regular expressions,
// though nearly every string (names, tags, policy JSON, references already resolved) holds no
// token. This puts at the top of cdktf's resolve() the answer resolve() itself gives for such a
// string: the string, when its depth is allowed, it holds neither token marker (${TfToken[,
// #{TfToken[), it is not one of the map-token placeholders resolve() rejects, and cdktf's own
// number-token expression does not match it. Every other value goes the usual way. About a tenth
// of a 100-team synth; the output is the same bytes (a test compares).
"use strict";

const RESOLVE_MODULE = /[\\/]cdktf[\\/](?:[^\\/]+[\\/]){0,2}lib[\\/]tokens[\\/]private[\\/]resolve\.js$/;
const DEFINITION = "function resolve(obj, options) {";
// What the inserted test relies on, as cdktf 0.21 has it: the names it uses, the depth limit,
// and a string branch that tests the same three token kinds and the same placeholders.
const EXPECTED = [
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

/** cdktf's resolve module answering untokenized strings first, or null when not the expected one. */
function withUntokenizedStringsFirst(source) {
  if (source.split(DEFINITION).length !== 2 || !EXPECTED.every((part) => source.includes(part))) {
    return null;
  }
  return source.replace(DEFINITION, `${DEFINITION}${UNTOKENIZED_STRING}`);
}

module.exports = {
  name: "untokenized-strings",
  rewrite: (source, filename) => (RESOLVE_MODULE.test(filename) ? withUntokenizedStringsFirst(source) : null),
  withUntokenizedStringsFirst,
};
