// Rewriter of the node preload (preload.js): lazy submodule exports in provider packages.
//
// Why: a prebuilt provider package's lib/index.js requires every one of its submodules when it
// loads (2,212 for AWS, 60 MB of JavaScript), which costs node about 800 MiB and 4 s, though a
// synth uses a few dozen. This rewrites such an index as node compiles it: each line
// `exports.x = require("./x");` (CDKTF's packages, @cdktf/provider-*) or
// `exports.x = __importStar(require("./x/index"));` (CDK Terrain's, @cdktn/provider-*, compiled by
// TypeScript 5.9, which puts its import helpers above) becomes a getter that requires the
// submodule the first time jsii looks it up, then replaces itself with the module. An index with
// any other kind of line, or other helpers, is compiled as it is. The synthesized output is byte
// for byte the same (a test compares).
"use strict";

const { fileRewriter } = require("./source_text");

const PROVIDER_INDEX = /[\\/]@cdk(?:tf|tn)[\\/]provider-[a-z0-9-]+[\\/](?:[^\\/]+[\\/]){0,2}lib[\\/]index\.js$/;
const REQUIRE_LINE = /^exports\.([A-Za-z_$][\w$]*) = (__importStar\()?require\(("\.\/[^"]+")\)(\))?;$/;
// The import helpers TypeScript 5.9 writes above such an index (tsc's emitted text, verbatim);
// kept as they are, ahead of the getters that call __importStar.
const TYPESCRIPT_IMPORT_HELPERS = "var __createBinding = (this && this.__createBinding) || (Object.create ? (function(o, m, k, k2) {\n    if (k2 === undefined) k2 = k;\n    var desc = Object.getOwnPropertyDescriptor(m, k);\n    if (!desc || (\"get\" in desc ? !m.__esModule : desc.writable || desc.configurable)) {\n      desc = { enumerable: true, get: function() { return m[k]; } };\n    }\n    Object.defineProperty(o, k2, desc);\n}) : (function(o, m, k, k2) {\n    if (k2 === undefined) k2 = k;\n    o[k2] = m[k];\n}));\nvar __setModuleDefault = (this && this.__setModuleDefault) || (Object.create ? (function(o, v) {\n    Object.defineProperty(o, \"default\", { enumerable: true, value: v });\n}) : function(o, v) {\n    o[\"default\"] = v;\n});\nvar __importStar = (this && this.__importStar) || (function () {\n    var ownKeys = function(o) {\n        ownKeys = Object.getOwnPropertyNames || function (o) {\n            var ar = [];\n            for (var k in o) if (Object.prototype.hasOwnProperty.call(o, k)) ar[ar.length] = k;\n            return ar;\n        };\n        return ownKeys(o);\n    };\n    return function (mod) {\n        if (mod && mod.__esModule) return mod;\n        var result = {};\n        if (mod != null) for (var k = ownKeys(mod), i = 0; i < k.length; i++) if (k[i] !== \"default\") __createBinding(result, mod, k[i]);\n        __setModuleDefault(result, mod);\n        return result;\n    };\n})();";
const HARMLESS_LINE =
  /^(|"use strict";|\/\/.*|\/\*\*|\s*\*.*|\s*\*\/|Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);|exports\.[\w$]+( = exports\.[\w$]+)* = void 0;)$/;

/** The index with lazy submodule exports, or null when it is not of the expected shape. */
function lazyIndex(source) {
  // The helpers stay where they are ("use strict" and the licence comment come first); the text
  // around them is rewritten line by line.
  const parts = source.split(TYPESCRIPT_IMPORT_HELPERS);
  if (parts.length > 2) return null;
  const withHelpers = parts.length === 2;
  let lazy = 0;
  const lazyLine = (line) => {
    const match = REQUIRE_LINE.exec(line);
    if (!match) return HARMLESS_LINE.test(line) ? line : null;
    const [, name, importStar, target, closing] = match;
    if (Boolean(importStar) !== Boolean(closing) || (importStar && !withHelpers)) return null;
    lazy += 1;
    const load = importStar ? `__importStar(require(${target}))` : `require(${target})`;
    return (
      `Object.defineProperty(exports, "${name}", { enumerable: true, configurable: true, get() {` +
      ` const value = ${load};` +
      ` Object.defineProperty(exports, "${name}", { value, enumerable: true, configurable: true, writable: true });` +
      ` return value; } });`
    );
  };
  const rewritten = parts.map((part) => part.split("\n").map(lazyLine));
  if (lazy === 0 || rewritten.some((lines) => lines.includes(null))) return null;
  return rewritten.map((lines) => lines.join("\n")).join(TYPESCRIPT_IMPORT_HELPERS);
}

module.exports = fileRewriter("lazy-provider-exports", PROVIDER_INDEX, lazyIndex);
