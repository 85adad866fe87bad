"use strict";

/** How many words `text` has: words are separated by any whitespace. */
function wordCount(text) {
  return text.split(/\s+/).filter((word) => word.length > 0).length;
}

module.exports = { wordCount };
