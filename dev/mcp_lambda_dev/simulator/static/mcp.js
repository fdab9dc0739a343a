// A small MCP client over fetch, as any client would talk to /mcp: 2026-07-28 stateless requests (per-request
// _meta, Mcp-Method / Mcp-Name headers) or a legacy session (initialize, then Mcp-Session-Id on every request).

export const MODERN = "2026-07-28";
const META = "io.modelcontextprotocol/";
const CLIENT_INFO = { name: "mcp-lambda-simulator", version: "1.0.0" };
const ACCEPT = "application/json, text/event-stream";
export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

// Unique per page load, so the server's log lines of one call can be found by their jsonrpc_id.
const ID_PREFIX = `sim-${Math.random().toString(36).slice(2, 8)}`;
let lastId = 0;

export function nextId() {
  lastId += 1;
  return `${ID_PREFIX}-${lastId}`;
}

export class RpcFailure extends Error {
  constructor(message, exchange) {
    super(message);
    this.exchange = exchange;
  }
}

export class McpClient {
  constructor(endpoint, mode, capabilities) {
    this.endpoint = endpoint;
    this.mode = mode;
    this.capabilities = capabilities;
    this.sessionId = null;
    this.serverInfo = null;
  }

  get modern() {
    return this.mode === MODERN;
  }

  // server/discover (2026-07-28) or initialize + notifications/initialized (legacy); returns the exchanges.
  async connect() {
    if (this.modern) {
      const discover = await this.request("server/discover", {});
      const result = resultOf(discover);
      this.serverInfo = result._meta?.[`${META}serverInfo`] ?? null;
      this.instructions = result.instructions ?? null;
      this.serverCapabilities = result.capabilities ?? {};
      return [discover];
    }
    const init = await this.request("initialize", {
      protocolVersion: this.mode,
      capabilities: this.capabilities,
      clientInfo: CLIENT_INFO,
    });
    const result = resultOf(init);
    this.serverInfo = result.serverInfo ?? null;
    this.instructions = result.instructions ?? null;
    this.serverCapabilities = result.capabilities ?? {};
    this.sessionId = init.response.headers["mcp-session-id"] ?? null;
    this.negotiated = result.protocolVersion;
    const initialized = await this.send({ jsonrpc: "2.0", method: "notifications/initialized" });
    return [init, initialized];
  }

  async close() {
    if (!this.modern && this.sessionId) {
      const headers = { "mcp-session-id": this.sessionId, "mcp-protocol-version": this.negotiated };
      await fetch(this.endpoint, { method: "DELETE", headers }).catch(() => undefined);
      this.sessionId = null;
    }
  }

  // Every page of tools/list.
  async listTools() {
    const tools = [];
    let cursor;
    do {
      const exchange = await this.request("tools/list", cursor ? { cursor } : {});
      const result = resultOf(exchange);
      tools.push(...(result.tools ?? []));
      cursor = result.nextCursor;
    } while (cursor);
    return tools;
  }

  // Every page of skills/list when the server declares the Skills extension (SEP-2640), else [].
  async listSkills() {
    if (!this.serverCapabilities?.extensions?.[SKILLS_EXTENSION]) return [];
    const skills = [];
    let cursor;
    do {
      const result = resultOf(await this.request("skills/list", cursor ? { cursor } : {}));
      skills.push(...(result.skills ?? []));
      cursor = result.nextCursor;
    } while (cursor);
    return skills;
  }

  // One JSON-RPC request; the exchange carries what went on the wire and the reply that answers it.
  request(method, params) {
    const body = { jsonrpc: "2.0", id: nextId(), method, params: { ...params } };
    if (this.modern) {
      body.params._meta = {
        [`${META}protocolVersion`]: MODERN,
        [`${META}clientCapabilities`]: this.capabilities,
        [`${META}clientInfo`]: CLIENT_INFO,
        ...(params._meta ?? {}),
      };
    }
    return this.send(body);
  }

  async send(body) {
    const headers = { "content-type": "application/json", accept: ACCEPT };
    if (this.modern) {
      headers["mcp-protocol-version"] = MODERN;
      headers["mcp-method"] = body.method;
      if (body.method === "tools/call" || body.method === "prompts/get") headers["mcp-name"] = body.params.name;
      if (body.method === "resources/read") headers["mcp-name"] = body.params.uri;
      if (body.method.startsWith("tasks/")) headers["mcp-name"] = body.params.taskId;
      if (body.method === "resources/read") headers["mcp-name"] = body.params.uri;
    } else if (this.sessionId) {
      headers["mcp-session-id"] = this.sessionId;
      headers["mcp-protocol-version"] = this.negotiated;
    }
    const response = await fetch(this.endpoint, { method: "POST", headers, body: JSON.stringify(body) });
    const text = await response.text();
    const seen = {};
    for (const name of ["content-type", "mcp-session-id", "allow"]) {
      const value = response.headers.get(name);
      if (value !== null) seen[name] = value;
    }
    const messages = parseMessages(text, seen["content-type"] ?? "");
    const exchange = {
      id: body.id,
      request: { method: "POST", url: this.endpoint, headers, body },
      response: { status: response.status, headers: seen, text },
      reply: messages.find((message) => body.id !== undefined && message.id === body.id) ?? null,
      notifications: messages.filter((message) => message.method !== undefined),
    };
    return exchange;
  }
}

// The JSON-RPC messages of a body: one JSON document, or the data lines of a text/event-stream.
export function parseMessages(text, contentType) {
  if (!text) return [];
  if (contentType.startsWith("text/event-stream")) {
    return text
      .split(/\r?\n\r?\n/)
      .map((block) => block.split(/\r?\n/).filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()))
      .filter((data) => data.length)
      .map((data) => JSON.parse(data.join("\n")));
  }
  try {
    const parsed = JSON.parse(text);
    return Array.isArray(parsed) ? parsed : [parsed];
  } catch {
    return [];
  }
}

export function resultOf(exchange) {
  if (exchange.reply && exchange.reply.result) return exchange.reply.result;
  const error = exchange.reply?.error;
  const what = error ? `JSON-RPC error ${error.code}: ${error.message}` : `HTTP ${exchange.response.status}`;
  throw new RpcFailure(`${exchange.request.body.method} failed: ${what}`, exchange);
}
