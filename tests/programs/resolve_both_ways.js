
const [lib, rewriterPath] = process.argv.slice(1);
const file = path.join(lib, "tokens", "private", "resolve.js");
const published = require(file);
const rewritten = rewrittenTwin(file, require(rewriterPath).cheaperResolve);
const { Token } = require(path.join(lib, "tokens", "token.js"));
const { Lazy } = require(path.join(lib, "tokens", "lazy.js"));
const { DefaultTokenResolver, StringConcat } = require(path.join(lib, "tokens", "resolvable.js"));

const str = Token.asString(Lazy.stringValue({ produce: () => "from-lazy" }));
const num = Token.asNumber(Lazy.numberValue({ produce: () => 42 }));
const list = Token.asList(Lazy.listValue({ produce: () => ["a", "b"] }));
const any = Lazy.anyValue({ produce: () => ({ nested: [1, "x", null, undefined, str] }) });
const nested = (depth, leaf, inArray) => {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = inArray ? [value] : { k: value };
  return value;
};
const cases = {
  plain: { name: "team-a", n: 3, on: true, off: false, none: null, missing: undefined,
           list: ["x", undefined, false, null, 0, ""], map: { "key-e1": "1.5e+3", "": "empty key" } },
  policy: '{"Statement":[{"Resource":"arn:aws:s3:::b/${aws:username}/*"}]}',
  escapes: ["${var.x}", "$${literal}", "a ${ b } c", "}{", "${TfToken[", "#{TfToken[x]}"],
  numberLike: ["1e5", "-e1", "abc1e2", "1.0E+5", ".e.", "e", "2e", "sha-1e0", "v1.2.3"],
  tokens: { s: str, inString: `prefix-${str}-suffix`, num, numInString: `n=${num}`, list, any,
            [str]: "a token as a key", listOfTokens: [str, num, any] },
  listTokenAsScalar: { value: list[0] },
  stringMapPlaceholder: { value: Token.STRING_MAP_TOKEN_VALUE },
  anyMapPlaceholder: [Token.ANY_MAP_TOKEN_VALUE],
  numberMapPlaceholder: { value: Token.NUMBER_MAP_TOKEN_VALUE },
  fn: { value: () => 1 },
  date: { value: new Date(0) },
};
for (const depth of [198, 199, 200, 201, 202]) {
  for (const leaf of [undefined, null, true, "leaf", "1e5", 7, str]) {
    cases[`map ${depth} ${String(leaf)}`] = nested(depth, leaf, false);
    cases[`array ${depth} ${String(leaf)}`] = nested(depth, leaf, true);
  }
}
const answer = (resolve, value, preparing) => {
  try {
    const result = resolve(value, { scope: {}, resolver: new DefaultTokenResolver(new StringConcat()), preparing });
    return `= ${JSON.stringify(result)}`;
  } catch (error) {
    return `! ${error.message}`;
  }
};
const differences = [];
let compared = 0;
for (const [name, value] of Object.entries(cases)) {
  for (const preparing of [false, true]) {
    const expected = answer(published.resolve, value, preparing);
    const actual = answer(rewritten.resolve, value, preparing);
    compared += 1;
    if (expected !== actual) differences.push({ name, preparing, expected, actual });
  }
}
const errors = Object.keys(cases).filter((name) => answer(published.resolve, cases[name], false).startsWith("!"));
console.log(JSON.stringify({ applied: true, compared, differences, errors }));
