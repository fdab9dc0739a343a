// Building DOM nodes without innerHTML: every value shown on the page is text, never markup.

export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") node.className = value;
    else if (name === "text") node.textContent = value;
    else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function json(value, attributes = {}) {
  return el("pre", { class: "json", ...attributes }, JSON.stringify(value, null, 2));
}

export function replace(container, ...children) {
  container.replaceChildren(...children.flat(Infinity).filter((child) => child !== undefined && child !== null));
}
