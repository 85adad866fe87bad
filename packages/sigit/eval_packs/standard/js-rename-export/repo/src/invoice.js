"use strict";

const { fmtMoney } = require("./format.js");

function invoiceLine(label, amount) {
  return `${label}: $${fmtMoney(amount)}`;
}

module.exports = { invoiceLine };
