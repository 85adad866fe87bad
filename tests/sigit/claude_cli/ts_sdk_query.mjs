// Runs one query() of the TypeScript Claude Agent SDK against `sigit` and prints what the app sees.
// argv: SDK_DIR SIGIT CWD MODEL PROMPT
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [sdkDir, sigit, cwd, model, prompt] = process.argv.slice(2);
const require = createRequire(path.join(sdkDir, "package.json"));
const entry = require.resolve("@anthropic-ai/claude-agent-sdk");
const { query } = await import(pathToFileURL(entry).href);

const asked = [];
const seen = [];
for await (const message of query({
  prompt,
  options: {
    pathToClaudeCodeExecutable: sigit,
    cwd,
    model,
    canUseTool: async (toolName, input) => {
      asked.push({ toolName, input });
      return { behavior: "deny", message: "not from TypeScript" };
    },
  },
})) {
  seen.push(message);
}
console.log(JSON.stringify({ asked, seen }));
