"use strict";

function health() {
  return { status: 200, body: { ok: true, uptimeS: Math.floor(process.uptime()) } };
}

module.exports = { health };
