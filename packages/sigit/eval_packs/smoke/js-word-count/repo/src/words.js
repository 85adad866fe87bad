"use strict";

/** How many words `text` has: words are separated by any whitespace. */
function wordCount(text) {
  return text.split(" ").length;
}

module.exports = { wordCount };
