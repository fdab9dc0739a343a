// A form generated from a JSON Schema object: a tool's inputSchema, or an elicitation's requestedSchema.
// The browser does not validate (novalidate): the server's own messages are what the page shows.

import { el } from "./dom.js";

let formCount = 0;
const ORDERED_POSITIONS = 10; // the most positions an ordered choice list offers

export class SchemaForm {
  constructor(schema, label) {
    formCount += 1;
    const prefix = `f${formCount}`;
    const required = new Set(schema?.required ?? []);
    this.fields = new Map();
    this.general = el("p", { class: "field-message form-message", "aria-live": "polite" });
    const rows = Object.entries(schema?.properties ?? {}).map(([name, property], index) => {
      const field = buildField(name, property ?? {}, required.has(name), `${prefix}-${index}`);
      this.fields.set(name, field);
      return field.row;
    });
    this.element = el(
      "div",
      { class: "schema-form", role: "group", "aria-label": label },
      rows.length ? rows : el("p", { class: "muted", text: "No arguments." }),
      this.general,
    );
  }

  // The arguments to send (empty fields left out) and the page's own problems (text that is not JSON).
  read() {
    const values = {};
    const problems = [];
    for (const [name, field] of this.fields) {
      try {
        const value = field.read();
        if (value !== undefined) values[name] = value;
      } catch (error) {
        problems.push(name);
        field.show(`Not JSON: ${error.message}`, "page");
      }
    }
    return { values, problems };
  }

  clearMessages() {
    for (const field of this.fields.values()) field.show(null);
    this.general.textContent = "";
  }

  // "Invalid arguments for tool 'x': a: msg; b.c: msg" -> each clause next to its field (the rest above).
  showServerMessage(message) {
    const start = message.indexOf("': ");
    const clauses = (start >= 0 ? message.slice(start + 3) : message).split("; ");
    const unplaced = [];
    for (const clause of clauses) {
      const colon = clause.indexOf(": ");
      const path = colon >= 0 ? clause.slice(0, colon) : "";
      const field = this.fields.get(path.split(".")[0]);
      if (field) field.show(clause, "server");
      else unplaced.push(clause);
    }
    this.general.textContent = unplaced.length ? `Server: ${unplaced.join("; ")}` : "";
  }
}

function buildField(name, schema, required, id) {
  const type = typeOf(schema);
  const choices = choicesOf(schema);
  const hintId = `${id}-hint`;
  const messageId = `${id}-message`;
  const describedBy = `${hintId} ${messageId}`;
  const common = { id, name, "aria-describedby": describedBy, "aria-required": required ? "true" : undefined };
  let control;
  let read;
  if (choices) {
    control = el(
      "select",
      common,
      el("option", { value: "" }, required ? "— choose —" : "— leave out —"),
      choices.map((choice) => el("option", { value: JSON.stringify(choice.value) }, choiceLabel(choice))),
    );
    read = () => (control.value === "" ? undefined : JSON.parse(control.value));
  } else if (type === "array" && schema.uniqueItems !== true && choicesOf(schema.items ?? {})) {
    // An array that is not a set keeps its order (and may repeat a value): one choice per position, in order.
    const choicesHere = choicesOf({ description: schema.description, ...schema.items });
    const positions = Math.min(Math.max(schema.maxItems ?? 0, schema.minItems ?? 0, 3), ORDERED_POSITIONS);
    const selects = Array.from({ length: positions }, (_, index) =>
      el("select", { id: `${id}-${index}`, "aria-label": `${name} #${index + 1}` },
        el("option", { value: "" }, "— leave out —"),
        choicesHere.map((choice) => el("option", { value: JSON.stringify(choice.value) }, choiceLabel(choice)))),
    );
    control = el("ol", { ...common, class: "ordered-choices", "aria-labelledby": `${id}-label` },
      selects.map((select) => el("li", {}, select)));
    read = () => {
      const picked = selects.filter((select) => select.value !== "").map((select) => JSON.parse(select.value));
      return picked.length ? picked : undefined;
    };
  } else if (type === "array" && choicesOf(schema.items ?? {})) {
    const boxes = choicesOf({ description: schema.description, ...schema.items }).map((choice, index) =>
      el("label", { class: "choice" },
        el("input", { type: "checkbox", value: JSON.stringify(choice.value), id: `${id}-${index}` }),
        ` ${choiceLabel(choice)}`),
    );
    control = el("div", { ...common, role: "group", "aria-labelledby": `${id}-label` }, boxes);
    read = () => {
      const picked = [...control.querySelectorAll("input:checked")].map((box) => JSON.parse(box.value));
      return picked.length ? picked : undefined;
    };
  } else if (type === "boolean") {
    control = el(
      "select",
      common,
      el("option", { value: "" }, required ? "— choose —" : "— leave out —"),
      el("option", { value: "true" }, "true"),
      el("option", { value: "false" }, "false"),
    );
    read = () => (control.value === "" ? undefined : control.value === "true");
  } else if (type === "integer" || type === "number") {
    control = el("input", {
      ...common,
      type: "number",
      inputmode: type === "integer" ? "numeric" : "decimal",
      step: type === "integer" ? "1" : "any",
      min: schema.minimum,
      max: schema.maximum,
    });
    read = () => (control.value === "" ? undefined : Number(control.value));
  } else if (type === "string") {
    const inputType = { date: "date", email: "email", uri: "url" }[schema.format] ?? "text";
    control = el("input", { ...common, type: inputType, maxlength: schema.maxLength, autocomplete: "off" });
    read = () => (control.value === "" ? undefined : control.value);
  } else {
    control = el("textarea", { ...common, rows: 3, placeholder: "JSON", spellcheck: "false" });
    read = () => (control.value.trim() === "" ? undefined : JSON.parse(control.value));
  }
  const message = el("p", { id: messageId, class: "field-message", "aria-live": "polite" });
  const grouped = control.tagName === "DIV" || control.tagName === "OL";
  const labelNode = el(
    grouped ? "span" : "label",
    { for: grouped ? undefined : id, id: `${id}-label`, class: "field-name" },
    name,
    required ? el("span", { class: "required", title: "required" }, " *", el("span", { class: "sr-only" }, " (required)")) : null,
  );
  const row = el(
    "div",
    { class: "field" },
    labelNode,
    control,
    el("p", { id: hintId, class: "hint" }, hintOf(schema, type, required)),
    message,
  );
  const show = (text, source) => {
    message.textContent = text ? (source === "server" ? `Server: ${text}` : text) : "";
    row.classList.toggle("invalid", Boolean(text));
    if (text) control.setAttribute("aria-invalid", "true");
    else control.removeAttribute("aria-invalid");
  };
  return { row, read, show, control };
}

// The declared type, looking through nullable forms ({"type": ["string", "null"]}, anyOf with null).
function typeOf(schema) {
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== "null");
  if (schema.type) return schema.type;
  const branch = (schema.anyOf ?? schema.oneOf ?? []).find((option) => option.type && option.type !== "null");
  return branch ? typeOf(branch) : undefined;
}

// enum values, or oneOf/anyOf consts, each with the description the schema gives it.
function choicesOf(schema) {
  if (Array.isArray(schema.enum)) {
    const described = describedValues(schema.description ?? "");
    return schema.enum.map((value) => ({ value, description: described.get(String(value)) }));
  }
  const options = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(options) && options.length && options.every((option) => "const" in option)) {
    return options.map((option) => ({ value: option.const, description: option.title ?? option.description }));
  }
  return null;
}

// This template's descriptions spell out each choice as "'value' = meaning;" (see the demo business).
function describedValues(description) {
  const found = new Map();
  for (const match of description.matchAll(/'([^']+)'\s*=\s*(.+?)(?=;|\.\s|\.$|$)/g)) {
    found.set(match[1], match[2].trim());
  }
  return found;
}

function choiceLabel(choice) {
  return choice.description ? `${choice.value} — ${choice.description}` : String(choice.value);
}

function hintOf(schema, type, required) {
  const parts = [];
  if (schema.description) parts.push(schema.description);
  const facts = [type ?? "any JSON"];
  if (schema.format) facts.push(`format ${schema.format}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined) {
    facts.push(`${schema.minimum ?? "…"} to ${schema.maximum ?? "…"}`);
  }
  if (schema.minLength !== undefined || schema.maxLength !== undefined) {
    facts.push(`${schema.minLength ?? 0}–${schema.maxLength ?? "∞"} characters`);
  }
  if (schema.pattern) facts.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) facts.push(`default ${JSON.stringify(schema.default)}`);
  facts.push(required ? "required" : "optional");
  parts.push(`(${facts.join(", ")})`);
  return parts.join(" ");
}
