const test = require("node:test");
const assert = require("node:assert/strict");
const { camelCase } = require("../lib/case.js");

test("snake and kebab case", () => {
  assert.equal(camelCase("user_name"), "userName");
  assert.equal(camelCase("max-retry-count"), "maxRetryCount");
});

test("spaces and mixed separators", () => {
  assert.equal(camelCase("Hello big world"), "helloBigWorld");
  assert.equal(camelCase("__private__key"), "privateKey");
});

test("already camel case stays", () => {
  assert.equal(camelCase("alreadyCamel"), "alreadyCamel");
});
