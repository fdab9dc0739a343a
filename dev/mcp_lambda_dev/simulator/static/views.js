// How the report from /_sim/report is shown. Nothing here decides what the model sees or which card a result
// makes: the server computed that (mcp_lambda_dev.projection); this file only draws it.

import { el, json } from "./dom.js";

// The outcome in the words of `make simulate` (mcp_lambda_dev/verdicts.py), then the manifest check beside it.
const OUTCOMES = {
  error_result: ["error", "ERROR RESULT — the tool ran and answered an error"],
  not_run: ["invalid", "NOT RUN — the call failed before the tool ran"],
  failed: ["invalid", "FAILED — the tool ran and failed; see the log lines of this call"],
};

export function verdictView(report) {
  const verdict = report.verdict;
  const outcome = OUTCOMES[report.outcome];
  const headline = outcome ? el("p", { class: `verdict ${outcome[0]}`, "data-outcome": report.outcome }, outcome[1]) : null;
  const error = report.error ? errorView(report.error) : null;
  if (!verdict.checked) {
    return [headline, error, el("p", { class: "verdict unchecked" },
      `Not checked: business '${report.business}' has no manifest, so its results are served unchecked.`)];
  }
  const where = el("p", { class: "muted" }, "Manifest: ", el("code", {}, report.manifest));
  const what = report.error ? "the error object" : "the result";
  if (verdict.valid) {
    const check = outcome
      ? el("p", { class: "muted" }, `Manifest check: ${what} honours the manifest.`)
      : el("p", { class: "verdict valid", "data-outcome": "valid" }, "VALID — the result honours the manifest.");
    return [headline, error, check, where];
  }
  return [
    headline,
    error,
    el("p", { class: "verdict invalid", "data-outcome": "invalid" },
      `INVALID — ${what} breaks the manifest: ${verdict.violations.length} violation(s)`),
    verdict.rewritten
      ? el("p", {}, "The server did not send the tool's result: it answered error 50010 instead.")
      : null,
    el("ul", { class: "violations" }, verdict.violations.map((violation) => el("li", {}, violation))),
    where,
  ];
}

// An error result as an agent routes on it: code, family, retryable, suggested action (and the message), and
// the details it can act on as data (business_error(..., details={...})).
function errorView(error) {
  const row = (name, value) => [el("dt", {}, name), el("dd", {}, el("code", {}, String(value ?? "—")))];
  const details = "details" in error
    ? [el("dt", {}, "details"), el("dd", { class: "error-details" }, json(error.details))]
    : [];
  return el("dl", { class: "error-fields", "aria-label": "The error result" },
    row("code", error.code), row("family", error.family), row("retryable", error.retryable),
    row("suggested_action", error.suggested_action), row("message", error.message), ...details);
}

export function modelView(report, result) {
  const view = report.model_view;
  if (!view) {
    return [
      el("p", { class: "muted" }, "No manifest, so no projection: this is the result as the client received it."),
      json(result),
    ];
  }
  const parts = [];
  parts.push(el("h3", {}, "Text"));
  parts.push(el("p", { class: "model-text" }, view.text ?? "(no text content)"));
  if ("error" in view) {
    parts.push(el("h3", {}, "Error (the model reads it)"), json(view.error));
  } else if ("result" in view) {
    parts.push(el("h3", {}, "Execution result (the model reads it whole)"), json(view.result));
  } else {
    parts.push(el("h3", {}, "Entities"));
    for (const entry of report.entities ?? []) {
      parts.push(
        el("div", { class: "entity-view", "data-entity-index": entry.index },
          el("p", { class: "entity-title" }, `entities[${entry.index}] — ${entry.entity.entity_type}`),
          entry.visible === null
            ? el("p", { class: "hidden-field" }, "Undeclared entity type: the model sees none of it.")
            : tree(entry.entity, entry.visible)),
      );
    }
    parts.push(el("details", {}, el("summary", {}, "The model's view as JSON"), json(view, { id: "model-view-json" })));
  }
  return parts;
}

// The received value with the model's view laid over it: what the model does not see is greyed and labelled.
function tree(value, visible) {
  if (Array.isArray(value)) {
    return el("ol", { class: "tree", start: 0 }, value.map((item, index) =>
      el("li", {}, tree(item, Array.isArray(visible) ? visible[index] : visible))));
  }
  if (value !== null && typeof value === "object") {
    return el("ul", { class: "tree" }, Object.entries(value).map(([key, item]) => {
      const seen = visible !== null && typeof visible === "object" && key in visible;
      if (!seen) {
        return el("li", { class: "hidden-field", "data-field": key },
          el("span", { class: "key" }, key), ": ", el("code", {}, short(item)), el("span", { class: "badge" }, "hidden"));
      }
      const nested = item !== null && typeof item === "object";
      return el("li", { class: "visible-field", "data-field": key },
        el("span", { class: "key" }, key), nested ? "" : ": ", nested ? tree(item, visible[key]) : el("code", {}, short(item)));
    }));
  }
  return el("code", {}, short(value));
}

function short(value) {
  const text = JSON.stringify(value);
  return text && text.length > 160 ? `${text.slice(0, 157)}…` : String(text);
}

export function cardsView(report, tool) {
  const cards = report.cards ?? [];
  if (!report.model_view) return el("p", { class: "muted" }, "No manifest: no card bindings.");
  if (!cards.length) {
    let why = `no entity of this result has a tool_card_binding for ${tool}`;
    if (report.is_error) why = "an error result never makes a card";
    else if (report.output_kind !== "entities") why = `${tool} returns an ${report.output_kind}, which never makes a card`;
    return el("p", { class: "no-card" }, `No card: ${why}.`);
  }
  return cards.map((card) => {
    const history = card.history_card_refresh;
    const refresh = !history || !history.enabled ? "off" : `${history.scope}, ${history.refresh_to}`;
    return el("article", { class: "card", "data-widget-id": card.widget_id },
      el("header", {}, el("span", { class: "badge" }, "widget"), " ", el("strong", { class: "widget-id" }, card.widget_id)),
      el("dl", { class: "card-facts" },
        fact("entity", `entities[${card.entity_index}] ${card.entity_type}`),
        fact("entity id", card.entity_id ?? "—"),
        fact("refresh_key", card.refresh_key ?? "—"),
        fact("history refresh", refresh)),
      el("h4", {}, "The card receives"),
      cardBody(card.entity));
  });
}

function fact(name, value) {
  return [el("dt", {}, name), el("dd", {}, String(value))];
}

// A generic card: every field of the entity the card receives (card-only and hidden fields included).
function cardBody(entity) {
  return el("dl", { class: "card-fields" }, Object.entries(entity).map(([key, value]) => {
    if (Array.isArray(value) && value.length && value.every((item) => item && typeof item === "object" && !Array.isArray(item))) {
      return [el("dt", {}, `${key} (${value.length})`), el("dd", {}, el("ol", { class: "card-items", start: 0 },
        value.map((item) => el("li", {}, el("dl", {}, Object.entries(item).map(([name, field]) =>
          [el("dt", {}, name), el("dd", {}, short(field))])))))),
      ];
    }
    return [el("dt", {}, key), el("dd", {}, typeof value === "object" && value !== null ? json(value) : String(value))];
  }));
}

// One fieldset per llm_modifiable list: a checkbox per item (as the model sees it) and the narrowed entity.
export function listsView(report, onChange) {
  const lists = report.modifiable_lists ?? [];
  if (!report.model_view) return el("p", { class: "muted" }, "No manifest: no lists.");
  if (!lists.length) return el("p", { class: "muted" }, "No llm_modifiable list in this result.");
  return lists.map((listed) => {
    const name = `entities[${listed.entity_index}].${listed.field}`;
    const kept = new Set(listed.kept);
    const boxes = listed.items.map((entry) => {
      const box = el("input", { type: "checkbox", value: entry.index, checked: kept.has(entry.index) });
      box.addEventListener("change", () => onChange());
      return el("li", {}, el("label", { class: "choice" }, box, ` [${entry.index}] `, el("code", {}, short(entry.item))));
    });
    const setAll = (checked) => () => {
      for (const box of fieldset.querySelectorAll("input[type=checkbox]")) box.checked = checked;
      onChange();
    };
    const fieldset = el("fieldset", { class: "modifiable", "data-entity-index": listed.entity_index, "data-field": listed.field },
      el("legend", {}, `${name}: the model keeps a subset (never adds or edits items)`),
      el("div", { class: "actions" },
        el("button", { type: "button", onclick: setAll(true) }, "Keep all"),
        el("button", { type: "button", onclick: setAll(false) }, "Keep none")),
      el("ul", { class: "items" }, boxes),
      el("h4", {}, `The entity the card then receives (${listed.narrowed_entity[listed.field].length} of ${listed.items.length} kept)`),
      json(listed.narrowed_entity, { class: "json narrowed-entity" }));
    return fieldset;
  });
}

// What each list's checkboxes say now, for the next report.
export function selectionsOf(container) {
  return [...container.querySelectorAll("fieldset.modifiable")].map((fieldset) => ({
    entity_index: Number(fieldset.dataset.entityIndex),
    field: fieldset.dataset.field,
    keep: [...fieldset.querySelectorAll("input[type=checkbox]:checked")].map((box) => Number(box.value)),
  }));
}

export function rawView(exchanges) {
  return exchanges.map((exchange, index) => el("div", { class: "exchange" },
    el("h3", {}, `${index + 1}. ${exchange.request.body.method}`),
    el("p", { class: "muted" }, `→ ${exchange.request.method} ${exchange.request.url}`),
    json(exchange.request.headers, { class: "json headers" }),
    json(exchange.request.body, { class: "json request" }),
    el("p", { class: "muted" }, `← HTTP ${exchange.response.status}`),
    json(exchange.response.headers, { class: "json headers" }),
    el("pre", { class: "json response" }, pretty(exchange.response)),
  ));
}

function pretty(response) {
  if (!response.text) return "(empty body)";
  if ((response.headers["content-type"] ?? "").startsWith("application/json")) {
    try {
      return JSON.stringify(JSON.parse(response.text), null, 2);
    } catch {
      return response.text;
    }
  }
  return response.text;
}

export function logsView(lines) {
  if (!lines.length) return el("p", { class: "muted" }, "No log lines (POWERTOOLS_LOG_LEVEL may hide info lines).");
  return el("pre", { class: "log-lines" }, lines.map((line) => JSON.stringify(line)).join("\n"));
}
