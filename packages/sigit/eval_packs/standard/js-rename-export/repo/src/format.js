"use strict";

/** "1234.5" -> "1,234.50" */
function fmtMoney(amount) {
  return amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

module.exports = { fmtMoney };
