// Multi round-trip results (2026-07-28 input_required): one form per input request, playing the client's user
// (elicitation), its model (sampling) or its roots; the answers go back with the echoed requestState.

import { el, json } from "./dom.js";
import { SchemaForm } from "./forms.js";

export function inputRequestForms(inputRequests) {
  return Object.entries(inputRequests ?? {}).map(([key, request]) => {
    const build = BUILDERS[request.method] ?? rawAnswer;
    return build(key, request);
  });
}

const BUILDERS = {
  "elicitation/create": elicitation,
  "sampling/createMessage": sampling,
  "roots/list": roots,
};

function panel(key, request, ...children) {
  return el(
    "fieldset",
    { class: "input-request", "data-key": key },
    el("legend", {}, `${key}: ${request.method}`),
    ...children,
  );
}

function elicitation(key, request) {
  const params = request.params ?? {};
  const form = new SchemaForm(params.requestedSchema ?? { type: "object", properties: {} }, `Answer to ${key}`);
  const name = `action-${key}`;
  const actions = ["accept", "decline", "cancel"].map((action, index) =>
    el("label", { class: "choice" },
      el("input", { type: "radio", name, value: action, checked: index === 0 }), ` ${action}`),
  );
  const node = panel(
    key,
    request,
    el("p", { class: "ask" }, params.message ?? ""),
    params.url ? el("p", {}, "URL: ", el("code", {}, params.url)) : null,
    form.element,
    el("div", { class: "actions", role: "radiogroup", "aria-label": `What the user does with ${key}` }, actions),
  );
  return {
    key,
    node,
    answer() {
      const action = node.querySelector(`input[name="${name}"]:checked`)?.value ?? "accept";
      if (action !== "accept") return { action };
      const { values, problems } = form.read();
      if (problems.length) throw new Error(`${key}: ${problems.join(", ")} is not JSON`);
      return { action, content: values };
    },
  };
}

function sampling(key, request) {
  const params = request.params ?? {};
  const id = `sampling-${key}`;
  const reply = el("textarea", { id, rows: 3 });
  const node = panel(
    key,
    request,
    el("p", { class: "muted" }, `The server asks the client's model (at most ${params.maxTokens ?? "?"} tokens):`),
    el("ul", {}, (params.messages ?? []).map((message) =>
      el("li", {}, el("strong", {}, `${message.role}: `), message.content?.text ?? JSON.stringify(message.content)))),
    params.systemPrompt ? el("p", {}, `System prompt: ${params.systemPrompt}`) : null,
    el("label", { for: id }, "The model's reply"),
    reply,
  );
  return {
    key,
    node,
    answer: () => ({
      role: "assistant",
      content: { type: "text", text: reply.value },
      model: "simulator",
      stopReason: "endTurn",
    }),
  };
}

function roots(key, request) {
  const id = `roots-${key}`;
  const list = el("textarea", { id, rows: 2 }, "file:///home/user/project");
  const node = panel(key, request, el("label", { for: id }, "The client's roots, one URI per line"), list);
  return {
    key,
    node,
    answer: () => ({
      roots: list.value.split("\n").map((line) => line.trim()).filter(Boolean).map((uri) => ({ uri })),
    }),
  };
}

function rawAnswer(key, request) {
  const id = `raw-${key}`;
  const text = el("textarea", { id, rows: 4, spellcheck: "false" }, "{}");
  const node = panel(
    key,
    request,
    json(request.params ?? {}),
    el("label", { for: id }, "The answer, as JSON"),
    text,
  );
  return { key, node, answer: () => JSON.parse(text.value) };
}
