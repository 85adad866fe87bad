const test = require("node:test");
const assert = require("node:assert/strict");
const { parseQuery } = require("../src/query.js");

test("pairs, decoding and plus as space", () => {
  assert.deepEqual(parseQuery("?q=hello+world&lang=en"), { q: "hello world", lang: "en" });
  assert.deepEqual(parseQuery("name=J%C3%BCrgen"), { name: "Jürgen" });
});

test("repeated keys collect into an array", () => {
  assert.deepEqual(parseQuery("tag=a&tag=b&tag=c"), { tag: ["a", "b", "c"] });
});

test("keys without a value and empty parts", () => {
  assert.deepEqual(parseQuery("debug&&x="), { debug: "", x: "" });
  assert.deepEqual(parseQuery(""), {});
});
