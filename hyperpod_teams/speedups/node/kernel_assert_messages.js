// Rewriter of the node preload (preload.js): the jsii kernel formats an assertion's message only
// when the assertion fails.
//
// Why: before it (de)serializes a value, the kernel asserts that it has the value's type, with a
// message built eagerly by util.inspect of that type, on every call: for a union type (most
// resource arguments) the answer is not cached, so a 100-team synth inspected some 100,000 type
// references for messages never shown. This makes that one assertion `ok || assert(false, same
// message)`: same check, same error, same message. Any other kernel is compiled as it is.
"use strict";

const { JSII_KERNEL_FILE, fileRewriter } = require("./source_text");

// The minified kernel's names differ between builds: match the shape, then require one match.
const EAGER_ASSERTION =
  /\(0,([\w$]+)\.default\)\(null!=([\w$]+),(`Kernel error: expected type information, got \$\{\(0,[\w$]+\.inspect\)\(\2\)\}`)\)/g;

/** The kernel with that assertion's message made lazy, or null when it is not the expected one. */
function withLazyAssertMessage(source) {
  const matches = source.match(EAGER_ASSERTION);
  if (!matches || matches.length !== 1) return null;
  return source.replace(EAGER_ASSERTION, (_, assert, value, message) => `(null!=${value}||(0,${assert}.default)(!1,${message}))`);
}

module.exports = fileRewriter("kernel-assert-messages", JSII_KERNEL_FILE, withLazyAssertMessage);
