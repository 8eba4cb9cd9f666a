
const [lib, rewriterPath] = process.argv.slice(1);
const cdktf = require(path.join(lib, "index.js"));
const twin = rewrittenTwin(path.join(lib, "terraform-stack.js"), require(rewriterPath).resolvedOnce);
const rewritten = twin.TerraformStack.prototype.toTerraform;
const { TerraformStack, TerraformResource, TerraformOutput, TerraformVariable, Lazy, Token, Fn } = cdktf;

const resource = (scope, id, config) => {
  const r = new TerraformResource(scope, id, { terraformResourceType: "null_resource" });
  r.addOverride("triggers", config);
  return r;
};
const apps = {
  "tokens, outputs and a variable": (app) => {
    const s = new TerraformStack(app, "s");
    const v = new TerraformVariable(s, "v", { type: "string", default: "x" });
    const a = resource(s, "a", { name: v.stringValue, list: ["1e5", null, 3], lazy: Lazy.stringValue({ produce: () => "late" }) });
    new TerraformOutput(s, "o", { value: a.getStringAttribute("id") });
    resource(s, "b", { fn: Fn.join(",", [v.stringValue, "y"]), escaped: "$${literal} ${var.x}" });
  },
  "a cross-stack reference": (app) => {
    const origin = new TerraformStack(app, "origin");
    const shared = resource(origin, "shared", { n: 1 });
    const user = new TerraformStack(app, "user");
    resource(user, "reader", { id: shared.getStringAttribute("id") });
  },
  "stack overrides, one a token": (app) => {
    const s = new TerraformStack(app, "s");
    const a = resource(s, "a", { n: 1 });
    s.addOverride("terraform.required_version", ">= 1.5");
    s.addOverride("locals.from_token", a.getStringAttribute("id"));
    s.addOverride("resource.null_resource.a.triggers.n", undefined);
  },
  "a cloud backend sets the metadata's cloud": (app) => {
    const s = new TerraformStack(app, "s");
    new cdktf.CloudBackend(s, { organization: "org", workspaces: new cdktf.NamedCloudWorkspace("w") });
    resource(s, "a", { n: 1 });
  },
  "a token in the metadata": (app) => {
    app.node.setContext("cdktfVersion", Token.asString(Lazy.stringValue({ produce: () => "9.9.9" })));
    resource(new TerraformStack(app, "s"), "a", { n: 1 });
  },
  "an empty stack": (app) => { new TerraformStack(app, "s"); },
};
const show = (value) => JSON.stringify(value, (_key, v) => (v === undefined ? "<undefined>" : v));
const answers = {};
for (const [name, build] of Object.entries(apps)) {
  const app = new cdktf.App({ outdir: fs.mkdtempSync("/tmp/app-"), skipValidation: true });
  build(app);
  const stacks = app.node.children.filter((c) => TerraformStack.isStack(c));
  stacks.forEach((s) => s.prepareStack());
  for (const s of stacks) {
    answers[`${name}: ${s.node.id}`] = { published: show(TerraformStack.prototype.toTerraform.call(s)), rewritten: show(rewritten.call(s)) };
  }
}
console.log(JSON.stringify({ applied: true, answers }));
