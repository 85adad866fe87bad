"use strict";

function listUsers() {
  return { status: 200, body: [{ id: 1, name: "ann" }] };
}

module.exports = { listUsers };
