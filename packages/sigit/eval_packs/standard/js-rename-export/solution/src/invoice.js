"use strict";

const { formatMoney } = require("./format.js");

function invoiceLine(label, amount) {
  return `${label}: $${formatMoney(amount)}`;
}

module.exports = { invoiceLine };
