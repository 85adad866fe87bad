"use strict";

/**
 * Parse "?a=1&b=x+y" into { a: "1", b: "x y" }: an optional leading "?", pairs split on "&",
 * percent-decoding and "+" as a space, a key without "=" has the value "", empty parts are
 * skipped, and a key given several times maps to an array of its values in order.
 */
function parseQuery(query) {
  throw new Error("TODO");
}

module.exports = { parseQuery };
