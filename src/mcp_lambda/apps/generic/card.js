// The generic card view: renders every entity of a tool result from the widget's manifest schema (#card-config),
// and runs the card's actions (app-visible tools) through the host.
(function () {
  "use strict";
  var config = JSON.parse(document.getElementById("card-config").textContent);
  var card = document.getElementById("card");
  var status = document.getElementById("status");
  var app = new window.McpApp({name: "mcp-lambda-generic-card", version: "1.0.0"});
  var TITLE_FIELDS = ["title", "name", "product_name"];
  var UNITS = [["_minutes", " min"], ["_km", " km"], ["_yuan", ""], ["_url", ""]];

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function isUrl(value) {
    return typeof value === "string" && /^https?:\/\//.test(value);
  }

  function isImageField(name) {
    return /(^|_)image(_url)?$/.test(name);
  }

  function isLinkField(name, value) {
    return isUrl(value) && !isImageField(name);
  }

  // An app's own deep link (`deeplink`, `detail_url: "page/..."`) means nothing in a browser: not shown.
  function isAppLink(name, value) {
    return /(^|_)(url|deeplink)$/.test(name) && !isUrl(value);
  }

  // "duration_minutes" -> "Duration", "price_yuan" -> "Price", "in_stock" -> "In stock"
  function label(name) {
    var base = name;
    UNITS.forEach(function (unit) { if (base.endsWith(unit[0])) base = base.slice(0, -unit[0].length); });
    var words = base.replace(/_/g, " ");
    return words.charAt(0).toUpperCase() + words.slice(1);
  }

  function shown(name, value) {
    if (typeof value === "boolean") return value ? "Yes" : "No";
    if (name.endsWith("_yuan") && typeof value === "number") return "¥" + value.toLocaleString("en-US");
    for (var i = 0; i < UNITS.length; i++) {
      if (name.endsWith(UNITS[i][0]) && UNITS[i][1]) return value + UNITS[i][1];
    }
    return String(value);
  }

  function picture(url, alt) {
    var image = element("img", "picture");
    image.src = url;
    image.alt = alt;
    image.loading = "lazy";
    image.addEventListener("error", function () { image.hidden = true; });
    return image;
  }

  function link(url, text) {
    var anchor = element("a", "", text);
    anchor.href = url;
    anchor.rel = "noopener noreferrer";
    anchor.target = "_blank";
    anchor.addEventListener("click", function (event) {  // the host opens links (ui/open-link)
      event.preventDefault();
      app.openLink(url).catch(function () { status.textContent = "The host did not open the link."; });
    });
    return anchor;
  }

  // Ids are for actions, not for people: never shown.
  function isId(name, spec) {
    return !!(spec && spec.id) || /(^|_)id$/.test(name);
  }

  function titleOf(record, fields) {
    for (var i = 0; i < TITLE_FIELDS.length; i++) {
      if (typeof record[TITLE_FIELDS[i]] === "string") return TITLE_FIELDS[i];
    }
    var names = Object.keys(fields || {});  // else the first text field the schema declares
    for (var j = 0; j < names.length; j++) {
      var value = record[names[j]];
      if (typeof value === "string" && !isId(names[j], fields[names[j]]) && !isUrl(value)) return names[j];
    }
    return null;
  }

  function fact(list, name, value) {
    var pair = element("div");
    pair.appendChild(element("dt", "", label(name)));
    pair.appendChild(element("dd", "", shown(name, value)));
    list.appendChild(pair);
  }

  function row(item, fields) {
    var entry = element("li");
    var title = titleOf(item, fields);
    Object.keys(item).forEach(function (name) {
      if (isImageField(name) && isUrl(item[name])) entry.appendChild(picture(item[name], title ? item[title] : ""));
    });
    var main = entry.appendChild(element("div", "row-main"));
    if (title) main.appendChild(element("div", "row-title", item[title]));
    var facts = main.appendChild(element("div", "row-facts"));
    Object.keys(fields).forEach(function (name) {
      var value = item[name];
      if (name === title || isId(name, fields[name]) || value === undefined || value === null) return;
      if (isAppLink(name, value)) return;
      if (isLinkField(name, value)) facts.appendChild(link(value, label(name)));
      else if (typeof value !== "object") facts.appendChild(element("span", "", label(name) + ": " + shown(name, value)));
    });
    return entry;
  }

  function actions(entity, section) {
    if (!config.actions.length) return;
    var bar = section.appendChild(element("div", "actions"));
    config.actions.forEach(function (action) {
      var button = bar.appendChild(element("button", "", action.label));
      button.type = "button";
      button.dataset.tool = action.tool;
      button.addEventListener("click", function () { run(action, entity, button); });
    });
  }

  function run(action, entity, button) {
    var args = {};
    Object.keys(action.arguments).forEach(function (argument) { args[argument] = entity[action.arguments[argument]]; });
    button.disabled = true;
    status.textContent = action.label + "…";
    app.callTool(action.tool, args).then(function (result) {
      status.textContent = sentenceOf(result);
      status.classList.toggle("error", !!result.isError);
      if (!result.isError) render(result, true);
    }).catch(function (error) {
      status.textContent = action.label + " failed: " + error.message;
      status.classList.add("error");
    }).finally(function () { button.disabled = false; });
  }

  function entitySection(entity) {
    var schema = (config.entities[entity.entity_type] || {fields: {}}).fields;
    var fields = Object.keys(schema).length ? schema : Object.fromEntries(Object.keys(entity).map(function (k) { return [k, {}]; }));
    var section = element("article", "entity");
    section.dataset.entityType = entity.entity_type || "";
    var title = titleOf(entity, fields);
    if (title) section.appendChild(element("h2", "", entity[title]));
    if (typeof entity.summary === "string") section.appendChild(element("p", "summary", entity.summary));
    Object.keys(entity).forEach(function (name) {
      if (isImageField(name) && isUrl(entity[name])) section.appendChild(picture(entity[name], title ? entity[title] : label(name)));
    });
    var facts = element("dl", "facts");
    var lists = [];
    Object.keys(fields).forEach(function (name) {
      var value = entity[name];
      if (name === title || name === "summary" || name === "entity_type" || isId(name, fields[name])) return;
      if (value === undefined || value === null || isAppLink(name, value)) return;
      if (Array.isArray(value)) lists.push(name);
      else if (isLinkField(name, value)) facts.appendChild(link(value, label(name)));
      else if (typeof value !== "object") fact(facts, name, value);
    });
    if (facts.childNodes.length) section.appendChild(facts);
    lists.forEach(function (name) {
      section.appendChild(element("h3", "", label(name)));
      var rows = section.appendChild(element("ul", "rows"));
      rows.dataset.field = name;
      entity[name].forEach(function (item) {
        if (item && typeof item === "object") rows.appendChild(row(item, fields[name].items || item));
        else rows.appendChild(element("li", "", String(item)));
      });
    });
    actions(entity, section);
    return section;
  }

  function textOf(result) {
    return (result.content || []).filter(function (block) { return block.type === "text"; })
      .map(function (block) { return block.text; }).join("\n");
  }

  // The business's sentence: the text's first line (what follows it is the model's JSON view of the entities).
  function sentenceOf(result) {
    return textOf(result).split("\n")[0];
  }

  // A tools/call result: its entities as cards; an error result or one without entities as its text.
  function render(result, keepStatus) {
    card.replaceChildren();
    var entities = result.structuredContent && result.structuredContent.entities;
    if (result.isError || !Array.isArray(entities)) {
      card.appendChild(element("p", result.isError ? "error" : "", result.isError ? sentenceOf(result) : textOf(result)));
      card.dataset.state = result.isError ? "error" : "text";
      return;
    }
    entities.forEach(function (entity) { card.appendChild(entitySection(entity)); });
    card.dataset.state = "rendered";
    if (!keepStatus) status.textContent = "";
  }

  app.on("ui/notifications/tool-input", function () {
    card.dataset.state = "input";
  });
  app.on("ui/notifications/tool-result", function (result) { render(result, false); });
  app.on("ui/notifications/tool-cancelled", function (params) {
    card.replaceChildren(element("p", "muted", "Cancelled" + (params.reason ? ": " + params.reason : ".")));
    card.dataset.state = "cancelled";
  });
  app.connect().catch(function (error) {
    card.replaceChildren(element("p", "error", "The host did not connect: " + error.message));
  });
})();
