const test = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
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
  for (const file of ["src/invoice.js", "src/summary.js", "src/format.js"]) {
    assert.ok(!fs.readFileSync(file, "utf8").includes("fmtMoney"), file);
  }
});
