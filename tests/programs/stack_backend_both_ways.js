
const [lib, rewriterPath] = process.argv.slice(1);
const file = path.join(lib, "terraform-stack.js");
const cdktf = require(path.join(lib, "index.js"));
const { Construct } = require(require.resolve("constructs", { paths: [lib] })); // the one cdktf uses
const twin = rewrittenTwin(file, require(rewriterPath).withFirstBackendLookup);
const rewritten = twin.TerraformStack.prototype.ensureBackendExists;

const local = (scope) => new cdktf.LocalBackend(scope, { path: "x.tfstate" });
const trees = {
  "backend first": (s) => { local(s); new Construct(s, "a"); },
  "backend last, after constructs": (s) => { new Construct(new Construct(s, "a"), "b"); local(s); },
  "backend nested": (s) => { new Construct(s, "a"); local(new Construct(new Construct(s, "b"), "c")); },
  "two backends, the nested one first": (s) => { local(new Construct(s, "a")); local(s); },
  "numeric ids come first": (s) => { local(new Construct(s, "z")); local(new Construct(s, "10")); },
  "only a substack has one": (s) => { new Construct(s, "a"); local(new cdktf.TerraformStack(s, "sub")); },
  "none (a LocalBackend is added)": (s) => { new Construct(s, "a"); },
};
const answers = {};
for (const [name, build] of Object.entries(trees)) {
  const ask = (ensure) => {
    const stack = new cdktf.TerraformStack(new cdktf.App({ outdir: fs.mkdtempSync("/tmp/stack-") }), "s");
    build(stack);
    const backend = ensure.call(stack);
    return `${backend.constructor.name} ${backend.node.path} of ${stack.node.children.length}`;
  };
  answers[name] = { published: ask(cdktf.TerraformStack.prototype.ensureBackendExists), rewritten: ask(rewritten) };
}
console.log(JSON.stringify({ applied: true, answers }));
