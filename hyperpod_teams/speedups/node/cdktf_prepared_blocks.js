// Rewriter of the node preload (preload.js): the document of a stack reuses each block that
// cdktf's preparing pass resolved, when nothing can have changed it since.
//
// Why: App.synth() resolves every element's block twice. First a preparing pass over all stacks
// (prepareStack: resolve(stack, element.toTerraform(), true), result thrown away), which finds the
// cross-stack references and adds their outputs and remote-state data sources; then each stack's
// document, which builds and resolves every block again: about a tenth of node's time at 100
// teams. This keeps the preparing pass's block and puts it in the document instead, when the
// second resolution could not give anything else:
//
// - between the two passes cdktf runs other stacks' preparing passes, which add new elements and
//   stack dependencies but change no existing element (a new element has no kept block and is
//   resolved as before); aspects, which may change elements: once any aspect has been added
//   anywhere, nothing is reused; validations, which only read; custom synthesis hooks
//   (addCustomSynthesis, a JavaScript-only function cdktf does not export); and Python code
//   through jsii callbacks: once the kernel holds any object Python overrides, nothing is reused;
// - a block is kept only when every token its resolution met was one of cdktf's own intrinsic
//   expressions (references, attribute and function-call expressions, conditionals...), whose
//   answer depends only on the stack it is resolved in and, for a cross-stack reference, on what
//   the preparing pass itself recorded. A Lazy, or any other token, may answer differently the
//   second time: that element's block is resolved again, as before;
// - a kept block is used only in the kernel request that kept it (App.synth() is one request),
//   so no Python code can have changed an element in between: a stack prepared by one call and
//   written by another (prepareStack(), then toTerraform()) is resolved again; and it is used
//   once (the document merges blocks into one object).
//
// It rewrites four files, each only when it has exactly the expected text: the jsii kernel
// (counts the lines it reads, notes a create with Python overrides), cdktf's aspect.js (notes an
// added aspect), tokens/resolvable.js (counts the tokens that are not intrinsic expressions) and
// terraform-stack.js (keeps and reuses blocks). The three guards register as their files load;
// blocks are reused only when all three are in place. The output is the same bytes (tests
// compare, among them one with a Lazy that answers differently each time, one with an aspect
// that changes a resource, and one with a Python class that jsii calls back).
"use strict";

const { occurrences, engineLibFile, JSII_KERNEL_FILE } = require("./source_text");

const ASPECT_MODULE = engineLibFile(["aspect.js"]);
const RESOLVABLE_MODULE = engineLibFile(["tokens", "resolvable.js"]);
const STACK_MODULE = engineLibFile(["terraform-stack.js"]);
const THIS_MODULE = JSON.stringify(__filename);

/** What the rewritten files share (one instance per process: they require this module). */
const state = {
  guards: new Set(), // "kernel", "aspects", "tokens": the guards compiled in
  overridesSeen: false, // the kernel created an object with Python overrides
  aspectsAdded: false, // an aspect was added to some construct
  foreignTokens: 0, // tokens resolved that are not cdktf intrinsic expressions
  requests: 0, // lines the kernel has read: requests, and answers to its callbacks
  blocks: new WeakMap(), // element -> { block its stack's preparing pass resolved, request }
  reused: 0, // blocks put in a document without resolving them again
};

function reuseAllowed() {
  return state.guards.size === 3 && !state.overridesSeen && !state.aspectsAdded;
}

/** The preparing pass's resolution of one element's block, kept when nothing can change it. */
function prepare(element, resolveBlock) {
  const foreignBefore = state.foreignTokens;
  const block = resolveBlock();
  if (reuseAllowed() && state.foreignTokens === foreignBefore && block !== undefined) {
    state.blocks.set(element, { block, request: state.requests });
  } else {
    state.blocks.delete(element);
  }
  return block;
}

/** The block kept for `element` (then forgotten), or undefined to resolve it as cdktf does. */
function take(element) {
  const kept = state.blocks.get(element);
  if (kept === undefined) return undefined;
  state.blocks.delete(element);
  if (!reuseAllowed() || kept.request !== state.requests) return undefined;
  state.reused += 1;
  return kept.block;
}

// --- the jsii kernel: lines read, a create with overrides ---------------------------------------

// `if(overrides){debug("overrides",overrides);` in the minified #create; names differ per build.
const KERNEL_OVERRIDES = /if\(([\w$]+)\)\{([\w$]+)\(this,([\w$]+),"m",([\w$]+)\)\.call\(this,"overrides",\1\);/g;
// SyncStdio.readLine(), which reads every request and every answer to a callback.
const KERNEL_READ_LINE = "readLine(){";
const KERNEL_STATE = "hyperpodTeamsPreparedBlocks";

function kernelNotingRequestsAndOverrides(source) {
  const matches = source.match(KERNEL_OVERRIDES);
  if (!matches || matches.length !== 1 || occurrences(source, KERNEL_READ_LINE) !== 1) return null;
  if (occurrences(source, KERNEL_STATE) !== 0) return null;
  const noted = source
    .replace(KERNEL_OVERRIDES, (found, overrides) => `${found}${overrides}.length>0&&(${KERNEL_STATE}.overridesSeen=true);`)
    .replace(KERNEL_READ_LINE, () => `${KERNEL_READ_LINE}${KERNEL_STATE}.requests+=1;`);
  // One line, so that the kernel's own lines keep their numbers.
  return `const ${KERNEL_STATE}=require(${THIS_MODULE}).state;${KERNEL_STATE}.guards.add("kernel");${noted}`;
}

// --- cdktf's aspect.js: an aspect added ---------------------------------------------------------

const ADD_ASPECT = `
    add(aspect) {
        this._aspects.push(aspect);
    }`;
const ASPECTS_EXPORT = "exports.Aspects = Aspects;";

function aspectsNotingAdditions(source) {
  if ([ADD_ASPECT, ASPECTS_EXPORT].some((text) => occurrences(source, text) !== 1)) return null;
  return source
    .replace(ADD_ASPECT, () => `
    add(aspect) {
        require(${THIS_MODULE}).state.aspectsAdded = true; // hyperpod-teams: no block reused
        this._aspects.push(aspect);
    }`)
    .replace(ASPECTS_EXPORT, () => `${ASPECTS_EXPORT}\nrequire(${THIS_MODULE}).state.guards.add("aspects");`);
}

// --- cdktf's tokens/resolvable.js: tokens that are not intrinsic expressions -------------------

const RESOLVE_TOKEN = `
    resolveToken(t, context, postProcessor) {
        try {
            let resolved = t.resolve(context);`;
const RESOLVABLE_EXPORT = "exports.DefaultTokenResolver = DefaultTokenResolver;";

function resolverCountingForeignTokens(source) {
  if ([RESOLVE_TOKEN, RESOLVABLE_EXPORT].some((text) => occurrences(source, text) !== 1)) return null;
  if (/hyperpodTeams(PreparedBlocks|Intrinsic)/.test(source)) return null;
  // Both looked up once, not per token: this module's state when the file loads, Intrinsic at the
  // first token (intrinsic.js requires the token modules, which require this file).
  return source
    .replace(RESOLVE_TOKEN, () => `
    resolveToken(t, context, postProcessor) {
        try {
            // hyperpod-teams: the block of a stack's preparing pass is kept only without these.
            hyperpodTeamsIntrinsic ??= require("./private/intrinsic").Intrinsic;
            if (!(t instanceof hyperpodTeamsIntrinsic)) hyperpodTeamsPreparedBlocks.foreignTokens += 1;
            let resolved = t.resolve(context);`)
    .replace(
      RESOLVABLE_EXPORT,
      () =>
        `${RESOLVABLE_EXPORT}\nconst hyperpodTeamsPreparedBlocks = require(${THIS_MODULE}).state;\n` +
        'let hyperpodTeamsIntrinsic;\nhyperpodTeamsPreparedBlocks.guards.add("tokens");',
    );
}

// --- cdktf's terraform-stack.js: blocks kept and reused ------------------------------------------

const PREPARING_PASS = `
        terraformElements(this).forEach((e) => (0, _tokens_1.resolve)(this, e.toTerraform(), true));`;
const KEEPING_PREPARING_PASS = `
        // hyperpod-teams: each block is kept for the document when nothing can change it.
        const preparedBlocks = require(${THIS_MODULE});
        terraformElements(this).forEach((e) => preparedBlocks.prepare(e, () => (0, _tokens_1.resolve)(this, e.toTerraform(), true)));`;
const DOCUMENT_BLOCKS = `
        const fragments = elements.map((e) => (0, _tokens_1.resolve)(this, e.toTerraform()));`;
const REUSING_DOCUMENT_BLOCKS = `
        const preparedBlocks = require(${THIS_MODULE}); // hyperpod-teams: the kept blocks, once
        const fragments = elements.map((e) => preparedBlocks.take(e) ?? (0, _tokens_1.resolve)(this, e.toTerraform()));`;

function stackReusingBlocks(source) {
  if ([PREPARING_PASS, DOCUMENT_BLOCKS].some((text) => occurrences(source, text) !== 1)) return null;
  return source.replace(PREPARING_PASS, () => KEEPING_PREPARING_PASS).replace(DOCUMENT_BLOCKS, () => REUSING_DOCUMENT_BLOCKS);
}

function rewrite(source, filename) {
  if (JSII_KERNEL_FILE.test(filename)) return kernelNotingRequestsAndOverrides(source);
  if (ASPECT_MODULE.test(filename)) return aspectsNotingAdditions(source);
  if (RESOLVABLE_MODULE.test(filename)) return resolverCountingForeignTokens(source);
  if (STACK_MODULE.test(filename)) return stackReusingBlocks(source);
  return null;
}

module.exports = {
  name: "cdktf-prepared-blocks",
  targets: [JSII_KERNEL_FILE, ASPECT_MODULE, RESOLVABLE_MODULE, STACK_MODULE],
  rewrite,
  state,
  prepare,
  take,
  kernelNotingRequestsAndOverrides,
  aspectsNotingAdditions,
  resolverCountingForeignTokens,
  stackReusingBlocks,
};
