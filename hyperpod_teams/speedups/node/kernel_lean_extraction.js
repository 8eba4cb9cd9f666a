// Rewriter of the node preload (preload.js): the jsii kernel extracts a package into its package
// cache without the TypeScript declarations (`*.d.ts`).
//
// Why: on a machine with an empty cache (a fresh CI runner) the kernel unpacks every bindings
// package it loads; the AWS provider's holds 2,231 `.d.ts` files (40 MB) beside its 2,231 `.js`
// files, and nothing at run time reads a declaration: node requires `.js`, the kernel reads the
// assembly (`.jsii`). The rewrite passes a tar `filter` to the one unpacking of the cache path;
// the archive's digest, and so the cache entry's name, are computed from the archive as before.
// Any other kernel is compiled as it is.
"use strict";

const { occurrences, JSII_KERNEL_FILE, fileRewriter } = require("./source_text");

// The minified kernel's names differ between builds: match the shape, then require one match.
const CACHED_UNPACK = /new ([\w$]+)\.UnpackSync\(([\w$]+)\);/g;

/** The kernel unpacking without declarations, or null when it is not the expected shape. */
function withoutDeclarations(source) {
  const matches = source.match(CACHED_UNPACK);
  if (!matches || matches.length !== 1 || occurrences(source, "function extractViaCache(") !== 1) return null;
  return source.replace(
    CACHED_UNPACK,
    (_, tar, options) => `new ${tar}.UnpackSync({...${options},filter:(path)=>!path.endsWith(".d.ts")});`,
  );
}

module.exports = fileRewriter("kernel-lean-extraction", JSII_KERNEL_FILE, withoutDeclarations);
