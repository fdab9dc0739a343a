// The host side of MCP Apps (SEP-1865, 2026-01-26) as a web host does it: the view in a sandbox proxy on another
// origin, which loads the view's HTML under the CSP its resource declares; JSON-RPC over postMessage with the view
// (ui/initialize, tool-input, tool-result, size changes, tools/call of app-visible tools). Used by the test host
// page (apps-host.html) and the simulator page. `request(method, params)` reaches the MCP server.
const PROTOCOL_VERSION = "2026-01-26";
// A light theme with a few of the spec's standard variables, so a view's theming is exercised.
const HOST_STYLES = {
  "--color-background-primary": "#ffffff",
  "--color-text-primary": "#1f2937",
  "--color-text-secondary": "#4b5563",
  "--font-sans": "system-ui, sans-serif",
  "--border-radius-md": "10px",
};

export class AppHost {
  // container: where the sandbox iframe goes; sandboxUrl: sandbox.html on an origin other than this page's;
  // request(method, params) -> Promise of the server's JSON-RPC answer body; tools: tools/list entries.
  constructor({container, sandboxUrl, request, tools}) {
    this.container = container;
    this.sandboxUrl = new URL(sandboxUrl, location.href);
    this.request = request;
    this.tools = new Map(tools.map((entry) => [entry.name, entry]));
    this.log = [];  // every message from the view, for tests and for the simulator's panel
    this.frame = null;
    this.onMessage = this.onMessage.bind(this);
    window.addEventListener("message", this.onMessage);
  }

  // Render `view` (resources/read's content) for a call of `tool` with `args`, and hand it `result`.
  render({view, tool, args, result}) {
    this.view = view;
    this.call = {tool, args, result};
    this.initialized = false;
    if (this.frame) this.frame.remove();
    const frame = document.createElement("iframe");
    frame.className = "app-frame";
    frame.title = `${tool} card`;
    frame.setAttribute("sandbox", "allow-scripts allow-same-origin");  // the spec's sandbox proxy permissions
    const url = new URL(this.sandboxUrl);
    url.searchParams.set("host", location.origin);
    frame.src = url.href;
    frame.style.width = "100%";
    frame.style.height = "80px";
    frame.style.border = "0";
    this.frame = frame;
    this.container.replaceChildren(frame);
    return new Promise((resolve) => { this.rendered = resolve; });
  }

  post(message) {
    this.frame.contentWindow.postMessage({jsonrpc: "2.0", ...message}, this.sandboxUrl.origin);
  }

  onMessage(event) {
    if (!this.frame || event.source !== this.frame.contentWindow || event.origin !== this.sandboxUrl.origin) return;
    const message = event.data;
    if (!message || message.jsonrpc !== "2.0" || typeof message.method !== "string") return;
    this.log.push(message);
    if (message.id !== undefined) {
      this.answer(message).then(
        (result) => this.post({id: message.id, result}),
        (error) => this.post({id: message.id, error: {code: error.code ?? -32000, message: error.message}}),
      );
    } else {
      this.notified(message.method, message.params || {});
    }
  }

  notified(method, params) {
    if (method === "ui/notifications/sandbox-proxy-ready") {
      const meta = this.view._meta?.ui || {};
      this.post({
        method: "ui/notifications/sandbox-resource-ready",
        params: {html: this.view.text, csp: meta.csp || {}, permissions: meta.permissions || {}},
      });
    } else if (method === "ui/notifications/initialized") {
      // Nothing goes to the view before this; then the call's input and its result.
      this.initialized = true;
      this.post({method: "ui/notifications/tool-input", params: {arguments: this.call.args}});
      this.post({method: "ui/notifications/tool-result", params: this.call.result});
      this.rendered?.();
    } else if (method === "ui/notifications/size-changed") {
      if (typeof params.height === "number") this.frame.style.height = `${Math.ceil(params.height)}px`;
    }
  }

  async answer(message) {
    const params = message.params || {};
    switch (message.method) {
      case "ui/initialize":
        return {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: {name: "mcp-lambda-test-host", version: "1.0.0"},
          hostCapabilities: {
            serverTools: {}, serverResources: {}, openLinks: {}, logging: {},
            sandbox: {csp: this.view._meta?.ui?.csp || {}},
          },
          hostContext: {
            toolInfo: {tool: this.tools.get(this.call.tool)},
            theme: "light",
            styles: {variables: HOST_STYLES},
            displayMode: "inline",
            availableDisplayModes: ["inline"],
            containerDimensions: {maxHeight: 4000},
            platform: "web",
            locale: "en-US",
          },
        };
      case "ping":
        return {};
      case "tools/call": {
        const entry = this.tools.get(params.name);
        const visibility = entry?._meta?.ui?.visibility || ["model", "app"];
        if (!entry || !visibility.includes("app")) {
          throw Object.assign(new Error(`Tool ${params.name} is not callable by apps`), {code: -32602});
        }
        return this.forward("tools/call", params);
      }
      case "resources/read":
        return this.forward("resources/read", params);
      case "ui/open-link":
        return {};  // recorded in this.log; a test host opens nothing
      default:
        throw Object.assign(new Error(`Method not found: ${message.method}`), {code: -32601});
    }
  }

  async forward(method, params) {
    const body = await this.request(method, params);
    if (body.error) throw Object.assign(new Error(body.error.message), {code: body.error.code});
    return body.result;
  }
}
