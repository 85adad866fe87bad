"use strict";

function decode(text) {
  return decodeURIComponent(text.replace(/\+/g, " "));
}

/**
 * Parse "?a=1&b=x+y" into { a: "1", b: "x y" }: an optional leading "?", pairs split on "&",
 * percent-decoding and "+" as a space, a key without "=" has the value "", empty parts are
 * skipped, and a key given several times maps to an array of its values in order.
 */
function parseQuery(query) {
  const out = {};
  for (const part of query.replace(/^\?/, "").split("&")) {
    if (!part) continue;
    const at = part.indexOf("=");
    const key = decode(at < 0 ? part : part.slice(0, at));
    const value = at < 0 ? "" : decode(part.slice(at + 1));
    if (!(key in out)) out[key] = value;
    else if (Array.isArray(out[key])) out[key].push(value);
    else out[key] = [out[key], value];
  }
  return out;
}

module.exports = { parseQuery };
