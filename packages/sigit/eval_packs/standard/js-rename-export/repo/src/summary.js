"use strict";

const fmt = require("./format.js");

function summary(amounts) {
  const total = amounts.reduce((a, b) => a + b, 0);
  return `total ${fmt.fmtMoney(total)}`;
}

module.exports = { summary };
