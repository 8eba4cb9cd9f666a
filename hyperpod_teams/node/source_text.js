// What the node rewriters (preload.js) share to check that a file has the shape they expect.
"use strict";

/** How many times `text` occurs in `source` (without overlaps). */
function occurrences(source, text) {
  return source.split(text).length - 1;
}

module.exports = { occurrences };
