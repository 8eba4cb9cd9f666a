// Rewriter of the node preload (preload.js): a stack's document resolved once, not twice.
//
// Why: cdktf's TerraformStack.toTerraform() resolves each element's block, deep-merges the
// resolved blocks under the stack's metadata ("//") into one document, merges the stack's own
// overrides (addOverride on the stack) into it and then resolves the whole document again, since
// those overrides may hold tokens. Without stack overrides that second pass walks blocks that are
// resolved already, and resolve() gives a resolved value back as it is: some 7 % of node's synth
// time at 100 teams. So, when the stack has no overrides, only the metadata is resolved a second
// time, at the same path ("//") it has in the document; a stack with overrides is resolved as
// before. When the module is not exactly the expected text (another cdktf version), nothing
// changes. The output is the same bytes (a test compares).
"use strict";

const { occurrences, engineLibFile, fileRewriter } = require("./source_text");

const STACK_MODULE = engineLibFile(["terraform-stack.js"]);

// The end of toTerraform() as cdktf 0.21 has it: the document is the metadata, then the resolved
// blocks, then the stack's overrides, resolved again as a whole.
const RESOLVED_BLOCKS = `
        tf["//"] = { metadata, outputs };
        const fragments = elements.map((e) => (0, _tokens_1.resolve)(this, e.toTerraform()));
        for (const fragment of fragments) {
            (0, util_1.deepMerge)(tf, fragment);
        }`;
const SECOND_PASS = `
        (0, util_1.deepMerge)(tf, this.rawOverrides);
        return (0, _tokens_1.resolve)(this, tf);`;
const SECOND_PASS_ONLY_FOR_OVERRIDES = `
        if (Object.keys(this.rawOverrides).length === 0) {
            // hyperpod-teams: what resolve(this, tf) gives when tf holds no override: the blocks
            // as they are (resolved already) and the metadata resolved, at its path in tf.
            tf["//"] = (0, _tokens_1.resolve)(this, { "//": tf["//"] })["//"];
            return tf;
        }
        (0, util_1.deepMerge)(tf, this.rawOverrides);
        return (0, _tokens_1.resolve)(this, tf);`;
const DOCUMENT = "    toTerraform() {\n        const tf = {};\n";

/** The stack module resolving a document without stack overrides once, or null when not the expected one. */
function resolvedOnce(source) {
  if ([DOCUMENT, RESOLVED_BLOCKS + SECOND_PASS].some((text) => occurrences(source, text) !== 1)) return null;
  if (occurrences(source, SECOND_PASS) !== 1 || source.indexOf(DOCUMENT) > source.indexOf(RESOLVED_BLOCKS)) return null;
  return source.replace(SECOND_PASS, () => SECOND_PASS_ONLY_FOR_OVERRIDES);
}

module.exports = fileRewriter("cdktf-stack-document", STACK_MODULE, resolvedOnce);
