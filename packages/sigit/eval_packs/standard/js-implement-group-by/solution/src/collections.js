"use strict";

/**
 * Group `items` into an object keyed by `key(item)`; `key` may also be a property name.
 * Items keep their order inside each group.
 */
function groupBy(items, key) {
  const keyOf = typeof key === "function" ? key : (item) => item[key];
  const groups = {};
  for (const item of items) {
    const k = keyOf(item);
    (groups[k] ??= []).push(item);
  }
  return groups;
}

module.exports = { groupBy };
