const test = require("node:test");
const assert = require("node:assert/strict");
const labels = require("../src/labels.js");

test("six-digit sequence", () => {
  assert.equal(labels.formatInvoiceNumber(2024, 42), "INV-2024-000042");
  assert.equal(labels.formatInvoiceNumber(2025, 999999), "INV-2025-999999");
});

test("out of range sequences throw", () => {
  assert.throws(() => labels.formatInvoiceNumber(2024, 1000000), RangeError);
  assert.throws(() => labels.formatInvoiceNumber(2024, 0), RangeError);
});

test("the generated labels are untouched", () => {
  assert.equal(Object.keys(labels).length, 521);
  assert.equal(labels.label0001(2), "2.0 u1");
  assert.equal(labels.label0258(1.23456), "1.23 u6");
  assert.equal(labels.label0520(7), "7 u7");
});
