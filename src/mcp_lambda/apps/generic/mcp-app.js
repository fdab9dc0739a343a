// McpApp: the app side of MCP Apps (SEP-1865, 2026-01-26) over postMessage, with no framework. The generic card
// view uses it, and a business view gets it by writing the `mcp-app-helper` HTML comment where the script goes.
//   const app = new McpApp({name: "my-card", version: "1.0.0"});
//   app.on("ui/notifications/tool-result", (result) => render(result));
//   await app.connect();                      // ui/initialize, then ui/notifications/initialized
//   const answer = await app.callTool("refresh_route", {route_id: "r-1"});
(function () {
  "use strict";
  var PROTOCOL_VERSION = "2026-01-26";

  function McpApp(appInfo, appCapabilities) {
    this.appInfo = appInfo;
    this.appCapabilities = appCapabilities || {availableDisplayModes: ["inline"]};
    this.hostContext = {};
    this.hostCapabilities = {};
    this.handlers = {};
    this.pending = new Map();
    this.nextId = 1;
    this.lastSize = "";
    window.addEventListener("message", this.receive.bind(this));
    var self = this;
    this.on("ui/notifications/host-context-changed", function (changed) {
      self.hostContext = Object.assign({}, self.hostContext, changed);
      self.applyHostContext(changed);
    });
  }

  // A handler for a notification from the host (tool-input, tool-result, tool-cancelled, ...).
  McpApp.prototype.on = function (method, handler) {
    var previous = this.handlers[method];
    this.handlers[method] = previous ? function (params) { previous(params); handler(params); } : handler;
  };

  McpApp.prototype.post = function (message) {
    window.parent.postMessage(Object.assign({jsonrpc: "2.0"}, message), "*");
  };

  McpApp.prototype.request = function (method, params) {
    var id = this.nextId++;
    var pending = this.pending;
    return new Promise(function (resolve, reject) {
      pending.set(id, {resolve: resolve, reject: reject});
      window.parent.postMessage({jsonrpc: "2.0", id: id, method: method, params: params || {}}, "*");
    });
  };

  McpApp.prototype.notify = function (method, params) {
    this.post({method: method, params: params || {}});
  };

  McpApp.prototype.receive = function (event) {
    var message = event.data;
    if (event.source !== window.parent || !message || message.jsonrpc !== "2.0") return;
    if (message.method === undefined) {
      var waiting = this.pending.get(message.id);
      if (!waiting) return;
      this.pending.delete(message.id);
      if (message.error) {
        var error = new Error(message.error.message || "request failed");
        error.code = message.error.code;
        waiting.reject(error);
      } else {
        waiting.resolve(message.result);
      }
      return;
    }
    if (message.id !== undefined) {  // a request from the host: ping and teardown need only an answer
      var known = message.method === "ping" || message.method === "ui/resource-teardown";
      var handler = this.handlers[message.method];
      if (handler) handler(message.params || {});
      this.post(known || handler ? {id: message.id, result: {}}
        : {id: message.id, error: {code: -32601, message: "Method not found: " + message.method}});
      return;
    }
    if (this.handlers[message.method]) this.handlers[message.method](message.params || {});
  };

  // The handshake: ui/initialize, the host's context applied, then ui/notifications/initialized.
  McpApp.prototype.connect = function () {
    var self = this;
    return this.request("ui/initialize", {
      appInfo: this.appInfo,
      appCapabilities: this.appCapabilities,
      protocolVersion: PROTOCOL_VERSION
    }).then(function (result) {
      self.hostContext = result.hostContext || {};
      self.hostCapabilities = result.hostCapabilities || {};
      self.applyHostContext(self.hostContext);
      self.notify("ui/notifications/initialized", {});
      self.watchSize();
      return result;
    });
  };

  McpApp.prototype.callTool = function (name, args) {
    return this.request("tools/call", {name: name, arguments: args || {}});
  };

  McpApp.prototype.openLink = function (url) {
    return this.request("ui/open-link", {url: url});
  };

  // The host's theme, CSS variables and fonts (HostContext.theme / styles), applied to the document.
  McpApp.prototype.applyHostContext = function (context) {
    var root = document.documentElement;
    if (context.theme === "light" || context.theme === "dark") root.setAttribute("data-theme", context.theme);
    var styles = context.styles || {};
    var variables = styles.variables || {};
    Object.keys(variables).forEach(function (name) {
      if (name.indexOf("--") === 0 && typeof variables[name] === "string") root.style.setProperty(name, variables[name]);
    });
    if (styles.css && typeof styles.css.fonts === "string") {
      var fonts = document.getElementById("mcp-app-host-fonts") || document.head.appendChild(document.createElement("style"));
      fonts.id = "mcp-app-host-fonts";
      fonts.textContent = styles.css.fonts;
    }
  };

  // ui/notifications/size-changed whenever the content's size changes (once per frame at most).
  McpApp.prototype.watchSize = function () {
    var self = this;
    var scheduled = false;
    function report() {
      scheduled = false;
      var box = document.documentElement.getBoundingClientRect();  // the content's size, not the frame's
      var width = Math.ceil(box.width);
      var height = Math.ceil(box.height);
      var size = width + "x" + height;
      if (size === self.lastSize) return;
      self.lastSize = size;
      self.notify("ui/notifications/size-changed", {width: width, height: height});
    }
    function schedule() {
      if (!scheduled) { scheduled = true; requestAnimationFrame(report); }
    }
    new ResizeObserver(schedule).observe(document.body);
    schedule();
  };

  window.McpApp = McpApp;
})();
