
const fs = require("fs"), path = require("path"), Module = require("module");
const [lib, rewriterPath, mode, out] = process.argv.slice(1);
const rewriter = require(rewriterPath);
const rewritten = [];
if (mode === "rewritten") {
  // By path below the packaged lib (the rewriter's own patterns expect a folder named cdktf).
  const rewrites = {
    "aspect.js": rewriter.aspectsNotingAdditions,
    "tokens/resolvable.js": rewriter.resolverCountingForeignTokens,
    "terraform-stack.js": rewriter.stackReusingBlocks,
  };
  const compile = Module.prototype._compile;
  Module.prototype._compile = function (content, filename) {
    const rewrite = rewrites[path.relative(lib, filename)];
    const source = rewrite ? rewrite(content) : null;
    if (source !== null) rewritten.push(path.relative(lib, filename));
    return compile.call(this, source === null ? content : source, filename);
  };
  rewriter.state.guards.add("kernel"); // no jsii kernel here, so no object Python overrides
}
const cdktf = require(path.join(lib, "index.js"));
const { App, TerraformStack, TerraformResource, TerraformOutput, Lazy, Fn, Aspects, Token } = cdktf;
const resource = (scope, id, config) => {
  const r = new TerraformResource(scope, id, { terraformResourceType: "null_resource" });
  r.addOverride("triggers", config);
  return r;
};
const shared = (app) => {
  const origin = new TerraformStack(app, "origin");
  const a = resource(origin, "a", { n: 1, list: ["1e5", null, 3] });
  new TerraformOutput(origin, "id", { value: a.getStringAttribute("id") });
  const user = new TerraformStack(app, "user");
  const b = resource(user, "b", {
    from_origin: a.getStringAttribute("id"),
    joined: Fn.join(",", [a.getStringAttribute("id"), "x"]),
    either: Fn.conditional(a.getBooleanAttribute("enabled"), "on", "off"),
  });
  b.addOverride("lifecycle.create_before_destroy", true);
  user.addOverride("terraform.required_version", ">= 1.5");
  return { origin, user, a, b };
};
let answers = 0;
const apps = {
  "cross-stack references, functions and overrides": (app) => { shared(app); },
  "a Lazy that answers differently each time": (app) => {
    const { user } = shared(app);
    resource(user, "counted", { answer: Lazy.stringValue({ produce: () => `answer ${++answers}` }) });
  },
  "an aspect that changes a resource": (app) => {
    const { user } = shared(app);
    Aspects.of(user).add({ visit: (node) => { if (node instanceof TerraformResource) node.addOverride("triggers.by_aspect", "yes"); } });
  },
};
fs.mkdirSync(out, { recursive: true });
// First (an aspect, once added, turns reuse off for the process):
// A stack prepared by one call and written by another, an element changed in between.
const later = "prepared by one call, written by another";
const { user, b } = shared(new App({ outdir: fs.mkdtempSync(path.join(out, "scratch-")) }));
user.prepareStack();
if (mode === "rewritten") rewriter.state.requests += 1; // as the kernel counts a new request
b.addOverride("triggers.later", "yes");
fs.mkdirSync(path.join(out, later), { recursive: true });
fs.writeFileSync(path.join(out, later, "user.json"), JSON.stringify(user.toTerraform(), null, 1));
fs.rmSync(fs.realpathSync(user.node.scope.outdir), { recursive: true });
const report = { rewritten, reused: {} };
for (const [name, build] of Object.entries(apps)) {
  const before = rewriter.state.reused;
  fs.mkdirSync(path.join(out, name), { recursive: true });
  const app = new App({ outdir: path.join(out, name) });
  build(app);
  app.synth();
  report.reused[name] = rewriter.state.reused - before;
}
console.log(JSON.stringify(report));
