// One official TypeScript SDK client (1.x: @modelcontextprotocol/sdk, 2.x: @modelcontextprotocol/client) driving the
// demo the way a host does, and printing one JSON report on stdout of what its model would read: a host hands the
// model a tool result's content[].text blocks, so that is what the scripted model reads the product_id from.
//
//   AGENTS_NODE_PREFIX=DIR node ts_client.mjs v1|v2 http URL
//   AGENTS_NODE_PREFIX=DIR node ts_client.mjs v1|v2 stdio COMMAND [ARGS...]   (a desktop config entry: make stdio,
//                                                                              mcp-remote)
// DIR is the npm prefix `make agents-install` installed the pinned packages into (its node_modules/).

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const prefix = process.env.AGENTS_NODE_PREFIX;
const require = createRequire(join(prefix ?? ".", "package.json"));

function versionOf(name) {
  // Not require.resolve: a package's `exports` need not include its package.json.
  return JSON.parse(readFileSync(join(prefix, "node_modules", name, "package.json"), "utf8")).version;
}

function stdioParams([command, ...args]) {
  // A desktop client's config entry: the command, its arguments, and the environment it is given.
  return { command, args, env: { ...process.env }, stderr: "ignore" };
}

const SDKS = {
  v1: () => {
    const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
    const { StdioClientTransport } = require("@modelcontextprotocol/sdk/client/stdio.js");
    return {
      PACKAGE: "@modelcontextprotocol/sdk",
      VERSION: versionOf("@modelcontextprotocol/sdk"),
      makeClient: () => new Client({ name: "agents-suite", version: "1.0.0" }),
      makeTransport: (kind, target) =>
        kind === "http"
          ? new StreamableHTTPClientTransport(new URL(target[0]))
          : new StdioClientTransport(stdioParams(target)),
      protocolVersion: (client) => client.transport?.protocolVersion ?? null,
      callTool: (client, params, options) => client.callTool(params, undefined, options),
    };
  },
  v2: () => {
    const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
    const { StdioClientTransport } = require("@modelcontextprotocol/client/stdio");
    return {
      PACKAGE: "@modelcontextprotocol/client",
      VERSION: versionOf("@modelcontextprotocol/client"),
      // "auto": probe for 2026-07-28 and fall back to initialize (the default, "legacy", always initializes).
      makeClient: () =>
        new Client({ name: "agents-suite", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } }),
      makeTransport: (kind, target) =>
        kind === "http"
          ? new StreamableHTTPClientTransport(new URL(target[0]))
          : new StdioClientTransport(stdioParams(target)),
      protocolVersion: (client) => client.getNegotiatedProtocolVersion() ?? null,
      callTool: (client, params, options) => client.callTool(params, options),
    };
  },
};

const [sdkName, transportKind, ...target] = process.argv.slice(2);
const sdk = SDKS[sdkName]?.();
if (!sdk || !["http", "stdio"].includes(transportKind) || target.length === 0) {
  console.error("usage: ts_client.mjs v1|v2 http URL | stdio COMMAND [ARGS...]");
  process.exit(2);
}

const ROUTE = { origin: "guomao", destination: "sanlitun" };
// search_routes declares an outputSchema: its error result must survive a client that validates against it.
const SAME_PLACE = { origin: "guomao", destination: "guomao" };
const TRIP = { stops: ["guomao", "forbidden_city", "sanlitun"], file_format: "ics" };

function modelText(result) {
  return (result.content ?? []).filter((block) => block.type === "text").map((block) => block.text).join("\n");
}

const report = { versions: { [sdk.PACKAGE]: sdk.VERSION }, progress: [], reads: {}, product_id: null };

// One step of the scripted model: call the tool, and read what the host hands the model (the text, or the error
// the SDK threw instead of a result).
async function step(client, key, name, args, options = {}) {
  try {
    const result = await sdk.callTool(client, { name, arguments: args }, options);
    report.reads[key] = modelText(result);
    return result;
  } catch (error) {
    report.reads[key] = `${error.constructor?.name ?? "Error"}: ${error.message}`;
    return null;
  }
}

const client = sdk.makeClient();
// What the SDK reports beside the calls (e.g. a progress notification for a request already answered).
report.client_errors = [];
client.onerror = (error) => report.client_errors.push(error.message);
try {
  await client.connect(sdk.makeTransport(transportKind, target));
  report.protocol_version = sdk.protocolVersion(client);
  const { tools } = await client.listTools();
  report.tools = tools.map((tool) => tool.name);
  await step(client, "call", "search_routes", ROUTE);
  const failed = await step(client, "error", "search_routes", SAME_PLACE);
  report.error_surfaced = failed
    ? { is_error: Boolean(failed.isError), ...(failed.structuredContent ?? {}) }
    : { thrown: report.reads.error };
  await step(client, "search", "search_products", { keyword: "cup" });
  // The scripted model: the first product id in the text it was given (never the structured content).
  const found = /\bp-\d{4}\b/.exec(report.reads.search ?? "");
  if (found) {
    report.product_id = found[0];
    const args = { product_id: found[0], alert: "price_drop", target_price_yuan: 1 };
    await step(client, "subscribe", "subscribe_product", args);
  }
  const onprogress = (value) => report.progress.push([value.progress, value.total]);
  await step(client, "task", "export_trip_plan", TRIP, { onprogress, timeout: 60000 });
  report.task_support = "none: the call is answered synchronously, with progress notifications";
} catch (error) {
  report.failed = `${error.constructor?.name ?? "Error"}: ${error.message}`;
} finally {
  await client.close().catch(() => {});
}
process.stdout.write(JSON.stringify(report) + "\n");
process.exit(0);
