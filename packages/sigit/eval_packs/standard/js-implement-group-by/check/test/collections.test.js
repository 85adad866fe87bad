const test = require("node:test");
const assert = require("node:assert/strict");
const { groupBy } = require("../src/collections.js");

test("groups by a key function, keeping order", () => {
  const people = [{ n: "ann", team: "red" }, { n: "bob", team: "blue" }, { n: "cy", team: "red" }];
  assert.deepEqual(groupBy(people, (p) => p.team), {
    red: [{ n: "ann", team: "red" }, { n: "cy", team: "red" }],
    blue: [{ n: "bob", team: "blue" }],
  });
});

test("a property name works as the key", () => {
  assert.deepEqual(groupBy(["a", "bb", "cc"], "length"), { 1: ["a"], 2: ["bb", "cc"] });
});

test("empty input", () => {
  assert.deepEqual(groupBy([], (x) => x), {});
});
