"use strict";

const { listUsers } = require("./handlers/users.js");
const { health } = require("./handlers/health.js");

/** Method + path -> handler(request) returning { status, body }. */
const routes = {
  "GET /users": listUsers,
  "GET /health": health,
};

function dispatch(method, path, request = {}) {
  const handler = routes[`${method} ${path}`];
  if (!handler) return { status: 404, body: { error: "not found" } };
  return handler(request);
}

module.exports = { routes, dispatch };
