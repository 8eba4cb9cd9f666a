// Rewriter of the node preload (preload.js): the jsii kernel works out two answers about a type
// once per type, not once per object or value.
//
// Why: for every object it creates, the kernel reduces the interfaces the client declared to
// those the class does not already implement (ObjectTable#removeRedundant: a walk of the class's
// whole hierarchy), and for every struct it receives (the configuration of every resource) it
// collects the struct's properties with those of all its bases (propertiesOf: a chain of object
// spreads). Both answers depend only on the types, which do not change once loaded: at 100 teams
// the two walks took about 0.1 s of node's time. This remembers each answer: removeRedundant's
// per class and interface list (each object still gets an array of its own), propertiesOf's per
// type. When an error is thrown nothing is remembered, so it is thrown again. Any other kernel is
// compiled as it is.
"use strict";

const { occurrences, JSII_KERNEL_FILE, fileRewriter } = require("./source_text");

// removeRedundant as jsii 1.x's minified kernel has it; the minifier's names differ between
// builds: match the shape, then require exactly one match of each part.
const REMOVE_REDUNDANT_START =
  /(function _ObjectTable_removeRedundant\(([\w$]+),([\w$]+)\)\{if\(!\2\|\|0===\2\.length\)return;)/g;
const REMOVE_REDUNDANT_END = /return ([\w$]+)\.size>0\?Array\.from\(\1\)\.sort\(\):void 0\};class InterfaceCollection\{/g;
const PROPERTIES_OF = "function propertiesOf(e,p,m=new Set){";
const CACHES = "hyperpodTeamsTypeCaches";

/** The kernel with both answers remembered, or null when it is not the expected one. */
function withTypeCaches(source) {
  const starts = source.match(REMOVE_REDUNDANT_START);
  const ends = source.match(REMOVE_REDUNDANT_END);
  if (!starts || starts.length !== 1 || !ends || ends.length !== 1) return null;
  if (occurrences(source, PROPERTIES_OF) !== 1 || occurrences(source, "propertiesOfUncached") !== 0) return null;
  if (occurrences(source, CACHES) !== 0) return null;
  return (
    // One line, so that the kernel's own lines keep their numbers.
    `const ${CACHES}={removeRedundant:new Map,propertiesOf:new WeakMap};` +
    source
      .replace(REMOVE_REDUNDANT_START, (start, _, interfaces, fqn) =>
        `${start}const hyperpodTeamsKey=${fqn}+"\\n"+${interfaces}.join("\\n"),` +
        `hyperpodTeamsKnown=${CACHES}.removeRedundant.get(hyperpodTeamsKey);` +
        "if(void 0!==hyperpodTeamsKnown)return null===hyperpodTeamsKnown?void 0:hyperpodTeamsKnown.slice();",
      )
      .replace(REMOVE_REDUNDANT_END, (_, set) =>
        `const hyperpodTeamsAnswer=${set}.size>0?Array.from(${set}).sort():void 0;` +
        `${CACHES}.removeRedundant.set(hyperpodTeamsKey,void 0===hyperpodTeamsAnswer?null:hyperpodTeamsAnswer);` +
        "return void 0===hyperpodTeamsAnswer?void 0:hyperpodTeamsAnswer.slice()};class InterfaceCollection{",
      )
      .replace(PROPERTIES_OF, () =>
        "function propertiesOf(e,p,m){if(null===e||\"object\"!=typeof e)return propertiesOfUncached(e,p,m);" +
        `let known=${CACHES}.propertiesOf.get(e);` +
        `if(void 0===known){known=propertiesOfUncached(e,p,m);${CACHES}.propertiesOf.set(e,known)}return known}` +
        "function propertiesOfUncached(e,p,m=new Set){",
      )
  );
}

module.exports = fileRewriter("kernel-type-caches", JSII_KERNEL_FILE, withTypeCaches);
