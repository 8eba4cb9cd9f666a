
const Module = require("module");
const { withTypeCaches } = require(process.argv[1]);
const kernel = require("fs").readFileSync(process.argv[2], "utf-8");
const cut = (from, to) => { const start = kernel.indexOf(from); return kernel.slice(start, kernel.indexOf(to, start) + to.length); };
const removeRedundantText = cut("function _ObjectTable_removeRedundant(", "class InterfaceCollection{");
const propertiesOfText = cut("function propertiesOf(", "return y}");
const [, get, table, fqns] = /new InterfaceCollection\(([\w$]+)\(this,([\w$]+),"f"\)\);\w+!==([\w$]+)\.EMPTY_OBJECT_FQN/.exec(removeRedundantText);
const [, spec] = /if\(!([\w$]+)\.isClassOrInterfaceType\(/.exec(propertiesOfText);
const removeRedundantName = /([\w$]+)=function _ObjectTable_removeRedundant/.exec(kernel)[1];
// As the kernel's InterfaceCollection (jsii's kernel/src/objects.ts) collects them.
const interfaceCollection = `
constructor(lookup) { this.lookup = lookup; this.found = new Set(); }
addFromClass(fqn) { const t = this.lookup(fqn); if (t.kind !== "class") throw new Error("Expected a class, but received " + fqn);
  if (t.base) this.addFromClass(t.base); this.addParents(t); }
addFromInterface(fqn) { const t = this.lookup(fqn); if (t.kind !== "interface") throw new Error("Expected an interface, but received " + fqn);
  this.addParents(t); }
addParents(t) { for (const i of t.interfaces || []) if (!this.found.has(i)) { this.found.add(i); this.addFromInterface(i); } }
[Symbol.iterator]() { return this.found[Symbol.iterator](); } }`;
const source = `let ${removeRedundantName};${removeRedundantName}=${removeRedundantText}${interfaceCollection}\n${propertiesOfText}`;
const harness = (text) => `
const ${fqns} = { EMPTY_OBJECT_FQN: "Object" };
const ${spec} = { isClassOrInterfaceType: (t) => t && (t.kind === "class" || t.kind === "interface"), isClassType: (t) => t && t.kind === "class" };
const ${table} = new WeakMap();
const ${get} = (self, map) => map.get(self);
${text}
module.exports = (lookup) => { const owner = {}; ${table}.set(owner, lookup);
  return { removeRedundant: (interfaces, fqn) => ${removeRedundantName}.call(owner, interfaces, fqn), propertiesOf }; };
`;
const types = {
  "I.Construct": { kind: "interface" }, "I.Dependable": { kind: "interface" }, "I.Extra": { kind: "interface" },
  "I.Resource": { kind: "interface", interfaces: ["I.Dependable"] },
  "C.Base": { kind: "class", interfaces: ["I.Construct"] },
  "C.Resource": { kind: "class", base: "C.Base", interfaces: ["I.Resource"] },
  "S.Meta": { kind: "interface", fqn: "S.Meta", properties: [{ name: "count" }, { name: "dependsOn", optional: true }] },
  "S.Config": { kind: "interface", fqn: "S.Config", interfaces: ["S.Meta"], properties: [{ name: "name" }, { name: "count", optional: true }] },
  "S.Cycle": { kind: "interface", fqn: "S.Cycle", interfaces: ["S.Cycle"], properties: [] },
};
const run = (text) => {
  const m = new Module("kernel"); m._compile(harness(text), "kernel.js");
  let lookups = 0;
  const lookup = (fqn) => { lookups += 1; if (!(fqn in types)) throw new Error("Type " + fqn + " not found"); return types[fqn]; };
  const { removeRedundant, propertiesOf } = m.exports(lookup);
  const ask = (f) => { try { const answer = f(); return answer === undefined ? "undefined" : answer; } catch (e) { return "error: " + e.message; } };
  const answers = {}; const repeatLookups = {};
  const cases = {
    "all redundant": () => removeRedundant(["I.Construct", "I.Resource", "I.Dependable"], "C.Resource"),
    "one extra": () => removeRedundant(["I.Extra", "I.Construct"], "C.Base"),
    "the empty object": () => removeRedundant(["I.Extra"], "Object"),
    "same list, a subclass": () => removeRedundant(["I.Dependable", "I.Extra"], "C.Resource"),
    "same list, its base": () => removeRedundant(["I.Dependable", "I.Extra"], "C.Base"),
    "none declared": () => removeRedundant([], "C.Base"),
    "unknown interface": () => removeRedundant(["I.Missing"], "C.Base"),
    "struct with a base": () => propertiesOf(types["S.Config"], lookup),
    "cyclic struct": () => propertiesOf(types["S.Cycle"], lookup),
    "not a type": () => propertiesOf(undefined, lookup),
  };
  for (const [name, f] of Object.entries(cases)) {
    const first = ask(f); const before = lookups; const second = ask(f); const third = ask(f);
    repeatLookups[name] = lookups - before;
    answers[name] = { first, second, sameArray: Array.isArray(first) && (first === second || second === third) };
  }
  return { answers: JSON.parse(JSON.stringify(answers)), repeatLookups };
};
console.log(JSON.stringify({
  published: run(source),
  rewritten: run(withTypeCaches(source)),
  real: withTypeCaches(kernel) !== null,
  twice: withTypeCaches(kernel + kernel),
  otherPropertiesOf: withTypeCaches(kernel.replace("function propertiesOf(e,p,m=new Set){", "function propertiesOf(e,p,m){")),
  otherRemoveRedundant: withTypeCaches(kernel.replace("return m.size>0?Array.from(m).sort():void 0};", "return m.size>0?Array.from(m):void 0};")),
}));
