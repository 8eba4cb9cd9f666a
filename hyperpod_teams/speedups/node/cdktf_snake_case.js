// Rewriter of the node preload (preload.js): cdktf's snakeCase() works out each name once.
//
// Why: every element's toTerraform() turns the keys of its meta-arguments, provisioners and
// nested blocks into snake_case with snakeCase(), three regular-expression replacements per key,
// and cdktf calls toTerraform() twice per element at synth (the preparing pass, then the
// document), for the same few hundred distinct keys over and over. The function depends on its
// argument alone, so this remembers the answer for each string it was
// given (other arguments are worked out as before). When the module is not exactly the expected
// text (another cdktf version), nothing changes. The output is the same bytes (a test compares).
"use strict";

const { occurrences, engineLibFile, fileRewriter } = require("./source_text");

const UTIL_MODULE = engineLibFile(["util.js"]);

// snakeCase as cdktf 0.21 has it: a function of its argument alone.
const SNAKE_CASE = `function snakeCase(str) {
    if (!str)
        return "";
    return String(str)
        .replace(/^[^A-Za-z0-9]*|[^A-Za-z0-9]*$/g, "")
        .replace(/([a-z0-9])([A-Z])/g, (_m, a, b) => a + "_" + b.toLowerCase())
        .replace(/[^A-Za-z0-9]+|_+/g, "_")
        .toLowerCase();
}`;
const REMEMBERED = `// hyperpod-teams: snakeCase's answer for each string it was given.
const snakeCaseOfString = new Map();
function snakeCase(str) {
    if (typeof str !== "string") {
        return snakeCaseWorkedOut(str);
    }
    let answer = snakeCaseOfString.get(str);
    if (answer === undefined) {
        answer = snakeCaseWorkedOut(str);
        snakeCaseOfString.set(str, answer);
    }
    return answer;
}
${SNAKE_CASE.replace("function snakeCase(", "function snakeCaseWorkedOut(")}`;

/** The util module with snakeCase remembering its answers, or null when it is not the expected one. */
function rememberedSnakeCase(source) {
  if (occurrences(source, SNAKE_CASE) !== 1 || /snakeCaseOfString|snakeCaseWorkedOut/.test(source)) return null;
  return source.replace(SNAKE_CASE, () => REMEMBERED);
}

module.exports = fileRewriter("cdktf-snake-case", UTIL_MODULE, rememberedSnakeCase);
