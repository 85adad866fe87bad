const test = require("node:test");
const assert = require("node:assert/strict");
const { dispatch, routes } = require("../src/routes.js");
const { health } = require("../src/handlers/health.js");

test("GET /health answers ok with whole seconds of uptime", () => {
  const reply = dispatch("GET", "/health");
  assert.equal(reply.status, 200);
  assert.equal(reply.body.ok, true);
  assert.ok(Number.isInteger(reply.body.uptimeS) && reply.body.uptimeS >= 0);
  assert.equal(routes["GET /health"], health);
});

test("other routes still work", () => {
  assert.equal(dispatch("GET", "/users").status, 200);
  assert.equal(dispatch("POST", "/health").status, 404);
});
