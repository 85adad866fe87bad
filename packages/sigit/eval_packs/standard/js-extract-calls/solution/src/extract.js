"use strict";

/** Every <function=NAME>...</function> block in `text`, as { name, body } in order. */
function extractCalls(text) {
  const calls = [];
  const pattern = /<function=([\w.-]+)>([\s\S]*?)<\/function>/g;
  let match;
  while ((match = pattern.exec(text)) !== null) {
    calls.push({ name: match[1], body: match[2] });
  }
  return calls;
}

module.exports = { extractCalls };
