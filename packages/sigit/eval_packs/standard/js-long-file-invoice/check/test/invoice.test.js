const test = require("node:test");
const assert = require("node:assert/strict");
const crypto = require("node:crypto");
const fs = require("node:fs");
const path = require("node:path");
const labels = require("../src/labels.js");

// every line of src/labels.js outside formatInvoiceNumber (and its doc comment), blank lines left out, as the task started
const REST_SHA256 = "65733397930156c2c14871dfd9e6abb94d872f4fa7fa896ff4771fe97955a53e";

function restOfFile(text) {
  const lines = text.split("\n");
  const start = lines.findIndex((l) => /^(async\s+)?function formatInvoiceNumber\b|^(const|let|var) formatInvoiceNumber\b/.test(l));
  assert.notEqual(start, -1, "formatInvoiceNumber is no longer defined at the top level of src/labels.js");
  let from = start;
  while (from > 0 && (lines[from - 1].startsWith(" *") || lines[from - 1].startsWith("/**"))) from--;
  let end = start;
  while (end < lines.length && lines[end] !== "}" && lines[end] !== "};") end++;
  return lines.slice(0, from).concat(lines.slice(end + 1)).filter((l) => l.trim()).join("\n");
}

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

test("every other line of the file is as it was", () => {
  const text = fs.readFileSync(path.join(__dirname, "..", "src", "labels.js"), "utf8");
  const digest = crypto.createHash("sha256").update(restOfFile(text)).digest("hex");
  assert.equal(digest, REST_SHA256, "a line outside formatInvoiceNumber was changed");
});
