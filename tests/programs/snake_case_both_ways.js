
const [lib, rewriterPath] = process.argv.slice(1);
const file = path.join(lib, "util.js");
const published = require(file);
const rewritten = rewrittenTwin(file, require(rewriterPath).rememberedSnakeCase);
const args = ["", "camelCase", "PascalCase", "already_snake", "HTTPServer", "a1B2", "__x__", "with space",
  "dots.and-dashes", "ÄÖ", "x".repeat(300), undefined, null, 0, 12, true, ["a", "B"], { toString: () => "fromToString" }];
const answers = [];
for (const round of [1, 2]) {
  for (const arg of args) answers.push({ arg: String(arg), published: published.snakeCase(arg), rewritten: rewritten.snakeCase(arg) });
}
const nested = { someKey: { innerKey: [{ deepKey: 1 }] }, tags: { KeepMe: "x" } };
console.log(JSON.stringify({
  applied: true, answers,
  keys: { published: published.keysToSnakeCase(nested), rewritten: rewritten.keysToSnakeCase(nested) },
}));
