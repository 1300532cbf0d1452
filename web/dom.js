// Building the page's pieces with the DOM, never with HTML strings: what the server or a file says is text, always.

/** An element with attributes (`class`, `href`, …) and children (strings become text nodes). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null && value !== false) node.setAttribute(name, value === true ? "" : value);
  }
  for (const child of children.flat()) {
    if (child !== undefined && child !== null && child !== false) {
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
  }
  return node;
}

export function clear(node) {
  node.replaceChildren();
}
