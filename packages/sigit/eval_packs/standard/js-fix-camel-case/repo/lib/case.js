"use strict";

/** "user_name", "max-retry-count" or "Hello big world" in camelCase. */
function camelCase(text) {
  return text.replace(/[_\- ](\w)/, (_, c) => c.toUpperCase());
}

module.exports = { camelCase };
