"use strict";

/** "user_name", "max-retry-count" or "Hello big world" in camelCase. */
function camelCase(text) {
  const words = text.split(/[_\- ]+/).filter(Boolean);
  return words
    .map((word, i) => (i === 0 ? word[0].toLowerCase() + word.slice(1) : word[0].toUpperCase() + word.slice(1)))
    .join("");
}

module.exports = { camelCase };
