
const fs = require("fs"), path = require("path"), Module = require("module");
function rewrittenTwin(file, rewrite) {
  const source = rewrite(fs.readFileSync(file, "utf8"));
  if (source === null) { console.log(JSON.stringify({ applied: false })); process.exit(0); }
  const twin = new Module(file, module);
  twin.filename = file;
  twin.paths = Module._nodeModulePaths(path.dirname(file));
  twin._compile(source, file);
  return twin.exports;
}
