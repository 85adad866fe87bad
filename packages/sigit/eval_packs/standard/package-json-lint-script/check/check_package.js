"use strict";
const assert = require("node:assert/strict");
const fs = require("node:fs");

const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
assert.deepEqual(pkg.scripts, { test: "node --test test/", start: "node src/index.js", lint: "eslint src" });
assert.deepEqual(pkg.devDependencies, { prettier: "^3.3.0", eslint: "^9.9.0" });
assert.deepEqual(pkg.dependencies, { express: "^4.19.2" });
assert.deepEqual(
  [pkg.name, pkg.version, pkg.private, pkg.main, pkg.engines],
  ["@acme/widgets", "3.2.0", true, "src/index.js", { node: ">=20" }],
);
assert.deepEqual(Object.keys(pkg), ["name", "version", "private", "main", "scripts", "dependencies", "devDependencies", "engines"]);
