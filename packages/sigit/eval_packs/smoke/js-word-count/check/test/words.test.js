const test = require("node:test");
const assert = require("node:assert/strict");
const { wordCount } = require("../src/words.js");

test("counts words separated by one space", () => {
  assert.equal(wordCount("the quick fox"), 3);
});

test("runs of spaces, tabs and newlines separate words", () => {
  assert.equal(wordCount("the  quick\tbrown\n\nfox "), 4);
});

test("empty and blank text has no words", () => {
  assert.equal(wordCount(""), 0);
  assert.equal(wordCount("   \n"), 0);
});
