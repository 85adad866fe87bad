const test = require("node:test");
const assert = require("node:assert/strict");
const { extractCalls } = require("../src/extract.js");

test("one call", () => {
  assert.deepEqual(extractCalls("<function=ls>\n<parameter=dir>\n.\n</parameter>\n</function>"), [
    { name: "ls", body: "\n<parameter=dir>\n.\n</parameter>\n" },
  ]);
});

test("two calls stay two", () => {
  const text = "<tool_call><function=a>1</function></tool_call> and <tool_call><function=b>2</function></tool_call>";
  assert.deepEqual(extractCalls(text), [{ name: "a", body: "1" }, { name: "b", body: "2" }]);
});

test("names may hold dots and dashes", () => {
  assert.deepEqual(extractCalls("<function=mcp.git-log></function>"), [{ name: "mcp.git-log", body: "" }]);
});
