"use strict";

/**
 * Group `items` into an object keyed by `key(item)`; `key` may also be a property name.
 * Items keep their order inside each group.
 */
function groupBy(items, key) {
  throw new Error("not implemented");
}

module.exports = { groupBy };
