// What the node rewriters (preload.js) share to recognize the files they rewrite and check their
// shape.
"use strict";

/** How many times `text` occurs in `source` (without overlaps). */
function occurrences(source, text) {
  return source.split(text).length - 1;
}

/**
 * The path of a file in an engine's lib folder (`parts` below it), wherever the engine lies: in a
 * node_modules folder (cdktn/lib/...) or in jsii's package cache (cdktn/<version>/<hash>/lib/...).
 * `engines`: the package names, by default both: CDK Terrain (cdktn) kept CDKTF's files.
 */
function engineLibFile(parts, engines = ["cdktn", "cdktf"]) {
  const escaped = parts.map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  // Not a package of the engine's own node_modules (core-util-is/lib/util.js is no cdktf file).
  return new RegExp(
    `[\\\\/](?:${engines.join("|")})[\\\\/](?:(?!node_modules[\\\\/])[^\\\\/]+[\\\\/]){0,2}lib[\\\\/]${escaped.join("[\\\\/]")}$`,
  );
}

/** The jsii kernel's bundle (lib/program.js of jsii's runtime), as the launcher starts it. */
const JSII_KERNEL_FILE = /[\\/]lib[\\/]program\.js$/;

/**
 * A rewriter of the files `target` matches (preload.js's contract: name, targets, rewrite): `rewrite`
 * takes a file's source and answers it rewritten, or null when it is not of the expected shape. The
 * function is exported under its own name too, for the tests that run it on the published files.
 */
function fileRewriter(name, target, rewrite) {
  return {
    name,
    targets: [target],
    rewrite: (source, filename) => (target.test(filename) ? rewrite(source) : null),
    [rewrite.name]: rewrite,
  };
}

module.exports = { occurrences, engineLibFile, fileRewriter, JSII_KERNEL_FILE };
