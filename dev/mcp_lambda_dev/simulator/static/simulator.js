// The page: connect to /mcp, list the tools, call one, then ask the local server (/_sim/report, /_sim/logs)
// what the platform makes of the result and which log lines the call wrote.

import { el, json, replace } from "./dom.js";
import { SchemaForm } from "./forms.js";
import { inputRequestForms } from "./inputs.js";
import { AppHost } from "./apps-host.js";
import { McpClient, MODERN, RpcFailure, resultOf } from "./mcp.js";
import { cardsView, listsView, logsView, modelView, rawView, selectionsOf, verdictView } from "./views.js";

const INVALID_ARGUMENTS = 40000;
const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";
// The MCP Apps panel is a client of its own that declared the extension (2026-07-28), whatever the page declared.
const UI_CAPABILITIES = { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } };
const TASK_POLLS = 120; // how often a task is asked about before the page stops waiting
const $ = (id) => document.getElementById(id);

const state = { client: null, tools: [], skills: [], tool: null, form: null, call: null, info: null };

function status(text, kind = "info") {
  const node = $("status");
  node.textContent = text;
  node.dataset.kind = kind;
}

async function localJson(path, body) {
  const init = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  const response = await fetch(path, init);
  const payload = await response.json();
  if (!response.ok) throw new Error(payload.error ?? `HTTP ${response.status}`);
  return payload;
}

function capabilities() {
  const declared = {};
  for (const box of document.querySelectorAll("input[name=capability]:checked")) {
    // Tasks are an extension (SEP-2663): declared under `extensions`, not as a capability of their own.
    if (box.value === "tasks") declared.extensions = { ...declared.extensions, [TASKS_EXTENSION]: {} };
    // A client that renders cards gets the card's hidden values; one that does not gets what the model may see.
    else if (box.value === "ui") declared.extensions = { ...declared.extensions, ...UI_CAPABILITIES.extensions };
    else declared[box.value] = {};
  }
  return declared;
}

async function connect() {
  const mode = $("mode").value;
  $("capabilities").disabled = mode !== MODERN;
  status("Connecting…");
  await state.client?.close();
  const client = new McpClient("/mcp", mode, mode === MODERN ? capabilities() : {});
  state.client = client;
  // A newer connect (a mode change, then Reconnect) closes this client: stop here instead of asking on without it.
  const superseded = () => state.client !== client;
  try {
    await client.connect();
    if (superseded()) return;
    // An MCP Apps client (cards ticked) lists the app-only tools itself: they are still called as a view would.
    const listed = (await client.listTools()).map((tool) => (isAppOnly(tool) ? { ...tool, appOnly: true } : tool));
    const tools = [...listed, ...await appOnlyTools(listed)];
    if (superseded()) return;
    const skills = await client.listSkills();
    if (superseded()) return;
    state.tools = tools;
    state.skills = skills;
  } catch (error) {
    if (superseded()) return;
    status(`Could not connect: ${error.message}`, "error");
    if (error instanceof RpcFailure) showExchanges([error.exchange]);
    return;
  }
  const server = client.serverInfo ?? {};
  $("business-title").textContent = server.title ?? state.info?.title ?? "MCP simulator";
  const session = client.sessionId ? `, session ${client.sessionId.slice(0, 8)}…` : ", no session";
  replace($("business-meta"),
    `business ${state.info?.business ?? server.name} ${server.version ?? ""} · protocol ${client.negotiated ?? MODERN}${session} · caller scopes ${state.info?.scopes?.join(" ") || "none"} · manifest `,
    el("code", {}, state.info?.manifest ?? "none (results unchecked)"));
  renderToolList();
  renderSkillList(client);
  const again = state.tools.find((tool) => tool.name === state.tool?.name);
  if (again) selectTool(again.name, false);
  const skills = state.skills.length ? `, ${state.skills.length} skills` : "";
  status(`Connected at ${client.negotiated ?? MODERN}: ${state.tools.length} tools${skills}.`);
}

// The tools only a view may call (`_meta.ui.visibility: ["app"]`, a card's buttons): a model's list never holds
// them, so the page asks as an MCP Apps client too, and calls them as a view would (2026-07-28, the extension).
async function appOnlyTools(listed) {
  const viewClient = new McpClient("/mcp", MODERN, UI_CAPABILITIES);
  const names = new Set(listed.map((tool) => tool.name));
  const tools = await viewClient.listTools().catch(() => []);
  state.viewClient = viewClient;
  return tools
    .filter((tool) => !names.has(tool.name) && isAppOnly(tool))
    .map((tool) => ({ ...tool, appOnly: true }));
}

function isAppOnly(tool) {
  return !(tool._meta?.ui?.visibility ?? ["model"]).includes("model");
}

// Who sends a call of `tool`: the page's client, or for an app-only tool the view's.
function callerOf(tool) {
  return tool?.appOnly ? state.viewClient : state.client;
}

function renderToolList() {
  replace($("tool-list"), state.tools.map((tool) => el("li", {},
    el("button", {
      type: "button",
      class: "tool-button",
      "data-tool": tool.name,
      "aria-current": state.tool?.name === tool.name ? "true" : undefined,
      onclick: () => selectTool(tool.name, true),
    },
    el("span", { class: "tool-name" }, tool.name),
    titleOf(tool) ? el("span", { class: "tool-title" }, titleOf(tool)) : null,
    el("span", { class: "badges" }, hints(tool).map((hint) => el("span", { class: "badge" }, hint)))))));
}

// The business's skills (SEP-2640) beside its tools: name and description from skills/list; a click shows the
// SKILL.md as served, and each file with its digest and size (in a session too: initialize declares the extension).
function renderSkillList(client) {
  if (!state.skills.length) {
    // A session declares the extension in its initialize result too; a server that does not serves no skills.
    const why = "This business serves no skills.";
    replace($("skill-list"), el("li", { class: "muted" }, why));
    return;
  }
  replace($("skill-list"), state.skills.map((skill) => el("li", {},
    el("button", {
      type: "button",
      class: "tool-button",
      "data-skill": skill.frontmatter?.name,
      onclick: () => showSkill(skill),
    },
    el("span", { class: "tool-name" }, skill.frontmatter?.name ?? skill.uri),
    el("span", { class: "tool-title" }, skill.frontmatter?.description ?? "")))));
}

async function showSkill(skill) {
  state.tool = null;
  let text;
  try {
    const read = resultOf(await state.client.request("resources/read", { uri: skill.uri }));
    text = read.contents?.[0]?.text ?? "";
  } catch (error) {
    status(`Could not read ${skill.uri}: ${error.message}`, "error");
    return;
  }
  replace($("tool-details"),
    el("h2", { id: "tool-heading" }, "Skill ", el("code", { class: "tool-code" }, skill.frontmatter?.name ?? skill.uri)),
    el("p", { class: "description" }, skill.frontmatter?.description ?? ""),
    el("table", { class: "skill-files" },
      el("thead", {}, el("tr", {}, el("th", {}, "file"), el("th", {}, "bytes"), el("th", {}, "digest"))),
      el("tbody", {}, (skill.resources ?? []).map((file) => el("tr", {},
        el("td", {}, el("code", {}, file.uri)), el("td", {}, String(file.size)), el("td", {}, el("code", {}, file.digest)))))),
    el("h3", {}, "SKILL.md, as the model reads it"),
    el("pre", { class: "skill-text" }, text));
  $("input-requests").hidden = true;
  $("results").hidden = true;
  status(`Skill ${skill.frontmatter?.name}: ${(skill.resources ?? []).length} files.`);
}

function titleOf(tool) {
  return tool.title ?? tool.annotations?.title ?? null;
}

function hints(tool) {
  const a = tool.annotations ?? {};
  return [
    tool.appOnly ? "app-only (called as a view)" : null,
    a.readOnlyHint ? "read-only" : null,
    a.destructiveHint ? "destructive" : null,
    a.idempotentHint ? "idempotent" : null,
    a.openWorldHint === false ? "closed world" : a.openWorldHint ? "open world" : null,
  ].filter(Boolean);
}

function selectTool(name, moveFocus) {
  const tool = state.tools.find((candidate) => candidate.name === name);
  state.tool = tool;
  for (const button of document.querySelectorAll(".tool-button")) {
    if (button.dataset.tool === name) button.setAttribute("aria-current", "true");
    else button.removeAttribute("aria-current");
  }
  state.form = new SchemaForm(tool.inputSchema, `Arguments of ${tool.name}`);
  const form = el("form", { id: "call-form", novalidate: true, "aria-label": `Call ${tool.name}` },
    state.form.element,
    el("div", { class: "actions" }, el("button", { type: "submit", class: "primary" }, `Call ${tool.name}`)));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    callTool();
  });
  const annotations = Object.entries(tool.annotations ?? {});
  replace($("tool-details"),
    el("h2", { id: "tool-heading" }, titleOf(tool) ?? tool.name, " ", el("code", { class: "tool-code" }, tool.name)),
    el("p", { class: "description" }, tool.description ?? "(no description)"),
    annotations.length
      ? el("dl", { class: "annotations" }, annotations.map(([key, value]) => [el("dt", {}, key), el("dd", {}, JSON.stringify(value))]))
      : el("p", { class: "muted" }, "No annotations."),
    el("details", {}, el("summary", {}, "inputSchema"), json(tool.inputSchema)),
    tool.outputSchema ? el("details", {}, el("summary", {}, "outputSchema"), json(tool.outputSchema)) : null,
    form);
  $("input-requests").hidden = true;
  $("results").hidden = true;
  if (moveFocus) (form.querySelector("input, select, textarea") ?? form.querySelector("button")).focus();
}

async function callTool() {
  state.form.clearMessages();
  const { values, problems } = state.form.read();
  if (problems.length) {
    status(`Not sent: ${problems.join(", ")} is not JSON.`, "error");
    return;
  }
  state.call = { tool: state.tool.name, arguments: values, exchanges: [], report: null, result: null, task: null };
  await round({});
}

// One tools/call request of the current call (the first, or a retry carrying the answers).
async function round(extra) {
  const call = state.call;
  status(`Calling ${call.tool}…`);
  let exchange;
  try {
    exchange = await callerOf(state.tool).request("tools/call", { name: call.tool, arguments: call.arguments, ...extra });
  } catch (error) {
    status(`The request failed: ${error.message}`, "error");
    return;
  }
  call.exchanges.push(exchange);
  $("results").hidden = false;
  showExchanges(call.exchanges);
  await settle(exchange);
}

// What one answer of the call comes to: an error, a round of input, a task to follow, or the tool's result.
async function settle(exchange) {
  const call = state.call;
  const reply = exchange.reply;
  let said;
  if (!reply || reply.error) {
    const error = reply?.error;
    const what = error ? `JSON-RPC error ${error.code}: ${error.message}` : `HTTP ${exchange.response.status}`;
    state.form.showServerMessage(error?.message ?? what);
    $("input-requests").hidden = true;
    clearReport(`No tool result: ${what}.`);
    said = [`${call.tool}: ${what}`, "error"];
  } else if (reply.result.resultType === "task") {
    call.task = reply.result.taskId;
    await followTask();
    return;
  } else if (reply.result.resultType === "input_required") {
    showInputRequests(reply.result, (extra) => round(extra));
    clearReport("The call is not finished: answer the server's input requests above.");
    said = [`${call.tool} asks for input (round ${call.exchanges.length}).`, "info"];
  } else {
    said = await finish(reply.result);
  }
  await refreshLogs();
  status(...said);
}

// The tool's final result: the report beside it, and what the status line says.
async function finish(result) {
  const call = state.call;
  call.result = result;
  $("input-requests").hidden = true;
  if (result.isError && result.structuredContent?.code === INVALID_ARGUMENTS) {
    state.form.showServerMessage(result.structuredContent.message);
  }
  await report();
  const cards = call.report?.cards?.length ?? 0;
  const rounds = call.exchanges.length > 1 ? ` after ${call.exchanges.length} rounds` : "";
  return [`${call.tool} answered ${result.isError ? "an error result" : "a result"}${rounds}; ${cards} card candidate(s).`,
    result.isError ? "error" : "info"];
}

// A task (the tasks extension): tasks/get until it ends or asks for input, answered with tasks/update.
async function followTask() {
  const call = state.call;
  for (let poll = 0; poll < TASK_POLLS; poll += 1) {
    const exchange = await state.client.request("tasks/get", { taskId: call.task });
    call.exchanges.push(exchange);
    showExchanges(call.exchanges);
    const task = exchange.reply?.result;
    if (!task) {
      await settle(exchange); // the JSON-RPC error of tasks/get
      return;
    }
    status(`${call.tool} runs as task ${call.task.slice(0, 8)}…: ${task.status}${task.statusMessage ? ` (${task.statusMessage})` : ""}`);
    if (task.status === "completed") {
      const said = await finish(task.result);
      await refreshLogs();
      status(...said);
      return;
    }
    if (task.status === "input_required") {
      showInputRequests(task, (extra) => answerTask(extra.inputResponses));
      clearReport("The task waits for input: answer the server's input requests above.");
      await refreshLogs();
      status(`${call.tool}: the task asks for input.`, "info");
      return;
    }
    if (task.status === "failed" || task.status === "cancelled") {
      const what = task.error ? `JSON-RPC error ${task.error.code}: ${task.error.message}` : task.status;
      clearReport(`No tool result: the task ${task.status} (${what}).`);
      await refreshLogs();
      status(`${call.tool}: the task ${task.status} (${what}).`, "error");
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(task.pollIntervalMs ?? 1000, 2000)));
  }
  status(`${call.tool}: the task is still running; stopped waiting after ${TASK_POLLS} polls.`, "error");
}

async function answerTask(inputResponses) {
  const call = state.call;
  const exchange = await state.client.request("tasks/update", { taskId: call.task, inputResponses });
  call.exchanges.push(exchange);
  showExchanges(call.exchanges);
  if (!exchange.reply || exchange.reply.error) {
    await settle(exchange);
    return;
  }
  $("input-requests").hidden = true;
  await followTask();
}

function showInputRequests(result, send) {
  const forms = inputRequestForms(result.inputRequests);
  const submit = el("button", { type: "submit", class: "primary" }, `Send the answers (round ${state.call.exchanges.length + 1})`);
  const form = $("input-form");
  replace(form, forms.map((entry) => entry.node), el("div", { class: "actions" }, submit));
  form.onsubmit = (event) => {
    event.preventDefault();
    const inputResponses = {};
    try {
      for (const entry of forms) inputResponses[entry.key] = entry.answer();
    } catch (error) {
      status(`Not sent: ${error.message}`, "error");
      return;
    }
    const extra = { inputResponses };
    if (result.requestState !== undefined) extra.requestState = result.requestState;
    send(extra);
  };
  $("input-requests").hidden = false;
  (form.querySelector("input:not([type=radio]), textarea, select") ?? submit).focus();
}

function lastResult() {
  return state.call.result ?? state.call.exchanges.at(-1).reply.result;
}

async function report(selections = []) {
  const call = state.call;
  try {
    call.report = await localJson("/_sim/report", {
      tool: call.tool,
      result: lastResult(),
      ids: call.exchanges.map((exchange) => exchange.id),
      selections,
    });
  } catch (error) {
    clearReport(`The local report failed: ${error.message}`);
    return;
  }
  replace($("verdict").querySelector(".body"), verdictView(call.report));
  replace($("model-view").querySelector(".body"), modelView(call.report, lastResult()));
  replace($("cards").querySelector(".body"), cardsView(call.report, call.tool));
  replace($("lists").querySelector(".body"), listsView(call.report, narrow));
  // On request only: the view may load images from the business's image hosts (outside this machine).
  replace($("app-view").querySelector(".body"), el("button", { type: "button", onclick: () => appView(call) },
    "Render the MCP Apps view"));
}

// The MCP Apps rendering beside the Doubao projection: the tool's view (for a UI client) handed this result,
// in a sandbox proxy on the other loopback name (another origin), its tools/call going to /mcp as that client.
async function appView(call) {
  const body = $("app-view").querySelector(".body");
  const client = new McpClient("/mcp", MODERN, UI_CAPABILITIES);
  try {
    const tools = await client.listTools();
    const uri = tools.find((tool) => tool.name === call.tool)?._meta?.ui?.resourceUri;
    if (!uri) {
      replace(body, el("p", { class: "muted" }, `${call.tool} is bound to no card: MCP Apps hosts show its text.`));
      return;
    }
    const read = (await client.request("resources/read", { uri })).reply;
    if (!read?.result) throw new Error(read?.error?.message ?? "resources/read failed");
    const container = el("div", { class: "app-view", "data-uri": uri });
    replace(body, el("p", { class: "muted" }, el("code", {}, uri)), container);
    const other = location.hostname === "localhost" ? "127.0.0.1" : "localhost";
    const sandboxUrl = `${location.protocol}//${other}:${location.port}/_sim/static/sandbox.html`;
    const request = async (method, params) => (await client.request(method, params)).reply;
    state.appHost = new AppHost({ container, sandboxUrl, request, tools });
    await state.appHost.render({ view: read.result.contents[0], tool: call.tool, args: call.arguments ?? {}, result: lastResult() });
  } catch (error) {
    replace(body, el("p", { class: "muted" }, `No MCP Apps view: ${error.message}`));
  }
}

// A checkbox changed: ask for the narrowed entity and the cards again, leaving the checkboxes (and focus) alone.
async function narrow() {
  const call = state.call;
  const lists = $("lists").querySelector(".body");
  try {
    call.report = await localJson("/_sim/report", {
      tool: call.tool,
      result: lastResult(),
      ids: call.exchanges.map((exchange) => exchange.id),
      selections: selectionsOf(lists),
    });
  } catch (error) {
    status(`The local report failed: ${error.message}`, "error");
    return;
  }
  const fresh = listsView(call.report, narrow);
  for (const node of fresh) {
    const selector = `fieldset[data-entity-index="${node.dataset.entityIndex}"][data-field="${node.dataset.field}"]`;
    const current = lists.querySelector(selector);
    current.querySelector("h4").replaceWith(node.querySelector("h4"));
    current.querySelector(".narrowed-entity").replaceWith(node.querySelector(".narrowed-entity"));
  }
  replace($("cards").querySelector(".body"), cardsView(call.report, call.tool));
  const kept = call.report.modifiable_lists.map((listed) => listed.kept.length).join(", ");
  status(`Narrowed: the card now receives ${kept} item(s).`);
}

function clearReport(message) {
  for (const id of ["verdict", "model-view", "cards", "lists"]) {
    replace($(id).querySelector(".body"), el("p", { class: "muted" }, message));
  }
}

function showExchanges(exchanges) {
  $("results").hidden = false;
  replace($("raw").querySelector(".body"), rawView(exchanges));
}

async function refreshLogs() {
  const ids = state.call.exchanges.map((exchange) => `id=${encodeURIComponent(exchange.id)}`).join("&");
  try {
    const { lines } = await localJson(`/_sim/logs?${ids}`);
    replace($("logs").querySelector(".body"), logsView(lines));
  } catch (error) {
    replace($("logs").querySelector(".body"), el("p", { class: "muted" }, `No log lines: ${error.message}`));
  }
}

async function start() {
  $("connection").addEventListener("submit", (event) => {
    event.preventDefault();
    connect();
  });
  $("mode").addEventListener("change", () => connect());
  try {
    state.info = await localJson("/_sim/info");
  } catch (error) {
    status(`The local simulator routes did not answer: ${error.message}`, "error");
  }
  await connect();
  document.body.dataset.ready = "true";
}

start();
