// Rewriter of the node preload (preload.js): lazy submodule exports in provider packages.
//
// Why: a prebuilt provider package's lib/index.js requires every one of its submodules when it
// loads (2,212 for AWS, 60 MB of JavaScript), which costs node about 800 MiB and 4 s, though a
// synth uses a few dozen. This rewrites such an index as node compiles it: each line
// `exports.x = require("./x");` becomes a getter that requires the submodule the first time jsii
// looks it up, then replaces itself with the module. An index with any other kind of line is
// compiled as it is. The synthesized output is byte for byte the same (a test compares).
"use strict";

const PROVIDER_INDEX = /[\\/]@cdktf[\\/]provider-[a-z0-9-]+[\\/](?:[^\\/]+[\\/]){0,2}lib[\\/]index\.js$/;
const REQUIRE_LINE = /^exports\.([A-Za-z_$][\w$]*) = require\(("\.\/[^"]+")\);$/;
const HARMLESS_LINE =
  /^(|"use strict";|\/\/.*|\/\*\*|\s*\*.*|\s*\*\/|Object\.defineProperty\(exports, "__esModule", \{ value: true \}\);|exports\.[\w$]+( = exports\.[\w$]+)* = void 0;)$/;

/** The index with lazy submodule exports, or null when it is not of the expected shape. */
function lazyIndex(source) {
  let lazy = 0;
  const lines = source.split("\n").map((line) => {
    const match = REQUIRE_LINE.exec(line);
    if (!match) return HARMLESS_LINE.test(line) ? line : null;
    lazy += 1;
    const [, name, target] = match;
    return (
      `Object.defineProperty(exports, "${name}", { enumerable: true, configurable: true, get() {` +
      ` const value = require(${target});` +
      ` Object.defineProperty(exports, "${name}", { value, enumerable: true, configurable: true, writable: true });` +
      ` return value; } });`
    );
  });
  return lazy > 0 && !lines.includes(null) ? lines.join("\n") : null;
}

module.exports = {
  name: "lazy-provider-exports",
  targets: [PROVIDER_INDEX],
  rewrite: (source, filename) => (PROVIDER_INDEX.test(filename) ? lazyIndex(source) : null),
  lazyIndex,
};
