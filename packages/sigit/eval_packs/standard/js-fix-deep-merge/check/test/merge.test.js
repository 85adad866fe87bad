const test = require("node:test");
const assert = require("node:assert/strict");
const { deepMerge } = require("../src/merge.js");

test("nested objects are merged, not replaced", () => {
  const base = { server: { host: "localhost", port: 80 }, debug: false };
  const merged = deepMerge(base, { server: { port: 8080 } });
  assert.deepEqual(merged, { server: { host: "localhost", port: 8080 }, debug: false });
});

test("inputs are not modified", () => {
  const base = { a: { b: 1 } };
  deepMerge(base, { a: { c: 2 } });
  assert.deepEqual(base, { a: { b: 1 } });
});

test("arrays and scalars from the override win", () => {
  assert.deepEqual(deepMerge({ tags: ["a"], n: 1 }, { tags: ["b"], n: null }), { tags: ["b"], n: null });
});
