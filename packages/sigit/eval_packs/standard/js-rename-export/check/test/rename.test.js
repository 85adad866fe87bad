const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const path = require("node:path");
const format = require("../src/format.js");
const { invoiceLine } = require("../src/invoice.js");
const { summary } = require("../src/summary.js");

test("the new name is exported and the old one is gone", () => {
  assert.equal(format.formatMoney(1234.5), "1,234.50");
  assert.equal(format.fmtMoney, undefined);
});

test("users call the new name", () => {
  assert.equal(invoiceLine("Tea", 3), "Tea: $3.00");
  assert.equal(summary([1000, 0.5]), "total 1,000.50");
  // every module that uses it: every file of the project but this test
  const skip = new Set([".git", "node_modules"]);
  const files = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!skip.has(entry.name)) walk(full);
      } else if (entry.isFile() && path.resolve(full) !== __filename) {
        files.push(full);
      }
    }
  };
  walk(".");
  assert.ok(files.length >= 3, files.join(" "));
  for (const file of files) {
    assert.ok(!fs.readFileSync(file, "utf8").includes("fmtMoney"), file);
  }
});
