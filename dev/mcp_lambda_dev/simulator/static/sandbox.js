// The sandbox proxy of MCP Apps (SEP-1865 "Sandbox proxy"): on an origin other than the host's, it loads the
// view's HTML in an inner iframe under the CSP built from the resource's `_meta.ui.csp`, and relays every message
// between host and view but its own `ui/notifications/sandbox-*` ones.
(function () {
  "use strict";
  var host = new URLSearchParams(location.search).get("host");
  var inner = null;

  function list(domains) {
    return Array.isArray(domains) ? domains.filter(function (d) { return /^[\w*.:/-]+$/.test(d); }).join(" ") : "";
  }

  // The spec's construction ("Content Security Policy Enforcement"); no declared domains: the restrictive default.
  function policy(csp) {
    csp = csp || {};
    var resources = list(csp.resourceDomains);
    return [
      "default-src 'none'",
      "script-src 'self' 'unsafe-inline' " + resources,
      "style-src 'self' 'unsafe-inline' " + resources,
      "connect-src 'self' " + list(csp.connectDomains),
      "img-src 'self' data: " + resources,
      "font-src 'self' " + resources,
      "media-src 'self' data: " + resources,
      "frame-src " + (list(csp.frameDomains) || "'none'"),
      "object-src 'none'",
      "base-uri " + (list(csp.baseUriDomains) || "'self'"),
    ].map(function (d) { return d.trim(); }).join("; ");
  }

  function escapeAttribute(text) {
    return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  function load(params) {
    var meta = '<meta http-equiv="Content-Security-Policy" content="' + escapeAttribute(policy(params.csp)) + '">';
    var html = String(params.html);
    // The policy must come before anything it governs: first in <head>.
    html = /<head[^>]*>/i.test(html) ? html.replace(/<head[^>]*>/i, function (tag) { return tag + meta; }) : meta + html;
    inner = document.createElement("iframe");
    inner.id = "view";
    inner.title = "view";
    inner.setAttribute("sandbox", typeof params.sandbox === "string" ? params.sandbox : "allow-scripts allow-same-origin");
    document.body.replaceChildren(inner);
    inner.srcdoc = html;
    document.documentElement.dataset.csp = policy(params.csp);
  }

  window.addEventListener("message", function (event) {
    var message = event.data;
    if (!message || message.jsonrpc !== "2.0") return;
    if (event.source === window.parent && event.origin === host) {
      if (message.method === "ui/notifications/sandbox-resource-ready") load(message.params || {});
      else if (typeof message.method !== "string" || message.method.indexOf("ui/notifications/sandbox-") !== 0) {
        if (inner) inner.contentWindow.postMessage(message, "*");
      }
    } else if (inner && event.source === inner.contentWindow) {
      window.parent.postMessage(message, host);
    }
  });
  window.parent.postMessage({jsonrpc: "2.0", method: "ui/notifications/sandbox-proxy-ready", params: {}}, host);
})();
