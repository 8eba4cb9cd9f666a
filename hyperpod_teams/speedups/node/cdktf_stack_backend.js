// Rewriter of the node preload (preload.js): a stack's backend found without walking its tree.
//
// Why: cdktf's TerraformStack.ensureBackendExists() lists every construct of the stack
// (findAll(isBackend), an async closure per construct) and takes the first. It runs for the
// origin stack of every cross-stack reference, so each team stack that reads an output of a
// shared stack walks that whole stack, which grows with the number of teams: the work grows with
// the square of the team count (65 ms at 100 teams, seconds at 500). This finds the same
// construct, the first backend in findAll's order (the construct itself, then its children in
// order, depth first), and stops there; every stack of this project adds its backend first. When
// the module is not exactly the expected text (another cdktf version), nothing changes. The
// output is the same bytes (a test compares).
"use strict";

const { occurrences, engineLibFile, fileRewriter } = require("./source_text");

const STACK_MODULE = engineLibFile(["terraform-stack.js"]);

// findAll as cdktf 0.21 has it: pre-order, every child in order, substacks included.
const FIND_ALL = `    findAll(predicate) {
        const items = [];
        const visit = async (node) => {
            if (predicate(node)) {
                items.push(node);
            }
            for (const child of node.node.children) {
                visit(child);
            }
        };
        visit(this);
        return items;
    }`;
const ENSURE_BACKEND = `
        const backends = this.findAll(terraform_backend_1.TerraformBackend.isBackend);
        return backends[0] || new local_backend_1.LocalBackend(this, {});`;
const FIRST_BACKEND = `
        return firstBackend(this) || new local_backend_1.LocalBackend(this, {});`;
const EXPORT = "exports.TerraformStack = TerraformStack;";
const HELPER = `
// hyperpod-teams: the first element of this.findAll(TerraformBackend.isBackend), or undefined.
function firstBackend(node) {
    if (terraform_backend_1.TerraformBackend.isBackend(node)) {
        return node;
    }
    for (const child of node.node.children) {
        const found = firstBackend(child);
        if (found !== undefined) {
            return found;
        }
    }
    return undefined;
}`;

/** The stack module with the early-exit backend lookup, or null when it is not the expected one. */
function withFirstBackendLookup(source) {
  if ([FIND_ALL, ENSURE_BACKEND, EXPORT].some((text) => occurrences(source, text) !== 1)) return null;
  return source.replace(ENSURE_BACKEND, () => FIRST_BACKEND).replace(EXPORT, () => `${EXPORT}${HELPER}`);
}

module.exports = fileRewriter("cdktf-stack-backend", STACK_MODULE, withFirstBackendLookup);
