// Rewriter of the node preload (preload.js): no JavaScript stack trace per cdktf token.
//
// Why: cdktf records a full stack trace (Error.captureStackTrace with no depth limit) each time
// it creates a token, a reference or a resource's nested-attribute object: a SageMaker domain
// alone makes dozens. The traces appear only in the text of resolution errors, and in a Python
// app they show jsii kernel frames, not the Python line at fault. Capturing them was a fifth of
// node's time on a 100-team synth. This makes cdktf's captureStackTrace return no frames; the
// errors keep their message, and the synthesized output is the same bytes (a test compares).
"use strict";

const { occurrences, engineLibFile, fileRewriter } = require("./source_text");

const STACK_TRACE_MODULE = engineLibFile(["tokens", "private", "stack-trace.js"], ["cdktf"]);
const DEFINITION = "function captureStackTrace(below) {";

/** cdktf's stack-trace module made to capture nothing, or null when it is not the expected one. */
function withoutCreationStacks(source) {
  if (occurrences(source, DEFINITION) !== 1 || !source.includes("exports.captureStackTrace = captureStackTrace;")) {
    return null;
  }
  return source.replace(DEFINITION, `${DEFINITION} return [];`);
}

module.exports = fileRewriter("no-creation-stacks", STACK_TRACE_MODULE, withoutCreationStacks);
