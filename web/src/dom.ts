/** Tiny DOM helpers: build elements (HTML and SVG) without a framework. */

type Child = Node | string | number | null | undefined | false;
type AttrValue = string | number | boolean | null | undefined | ((event: never) => void);

function apply(el: Element, attrs: Record<string, AttrValue> | undefined, children: Child[]): void {
  if (attrs) {
    for (const [key, value] of Object.entries(attrs)) {
      if (value === null || value === undefined || value === false) continue;
      if (typeof value === "function") {
        el.addEventListener(key.replace(/^on/, ""), value as EventListener);
      } else {
        el.setAttribute(key, value === true ? "" : String(value));
      }
    }
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "number" ? String(child) : child);
  }
}

/** An HTML element: `h("button", {class: "x", onclick: f}, "text")`. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs?: Record<string, AttrValue>,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, attrs, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** An SVG element: `s("circle", {cx: 1, cy: 2, r: 3})`. */
export function s<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs?: Record<string, AttrValue>,
  ...children: Child[]
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs, children);
  return el;
}

/** Replace all children of `el`. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  apply(el, undefined, children);
}

/** Replace the children of `el` with `children`, leaving in place each node that stays: an input
 * being typed in is never taken out of the page, so it keeps its focus and what is typed. */
export function replaceKeeping(el: Element, children: Node[]): void {
  const staying = new Set<Node>(children);
  for (const child of Array.from(el.childNodes)) if (!staying.has(child)) child.remove();
  let at: ChildNode | null = el.firstChild;
  for (const child of children) {
    if (child === at) at = at.nextSibling;
    else el.insertBefore(child, at);
  }
}

/**
 * Call before redrawing `el`; the function it returns, called once the redraw is done, gives the focus
 * back to what had it inside `el`: the same element if it was put back, else its new counterpart (a
 * link to the same address; or the same data-testid, and data-seat when it has one; or the form field
 * of the same name).  A redraw (a clock's tick, a presence message) then leaves a keyboard user where
 * they were.
 */
export function keepFocus(el: Element): () => void {
  const had = document.activeElement;
  if (!(had instanceof HTMLElement) || had === el || !el.contains(had)) return () => {};
  const key = focusKey(had);
  return () => {
    if (document.activeElement === had || !el.isConnected) return;
    if (had.isConnected && el.contains(had)) {
      had.focus({ preventScroll: true });
      return;
    }
    if (key === null) return;
    for (const next of el.querySelectorAll<HTMLElement>("[data-testid], a[href], [name]")) {
      if (focusKey(next) === key) {
        next.focus({ preventScroll: true });
        return;
      }
    }
  };
}

/** Run `draw`, which redraws `el`, keeping the focus where it was (see keepFocus). */
export function redrawKeepingFocus(el: Element, draw: () => void): void {
  const restoreFocus = keepFocus(el);
  draw();
  restoreFocus();
}

/** Focus the element of `el` with this data-testid, if it has one. */
export function focusTestId(el: Element, testid: string): void {
  el.querySelector<HTMLElement>(`[data-testid="${testid}"]`)?.focus();
}

/** What names a focusable element across redraws: a link's address, else its data-testid (and
 * data-seat), else a form field's name (and value, for a checkbox or radio button). */
function focusKey(el: HTMLElement): string | null {
  const href = el instanceof HTMLAnchorElement ? el.getAttribute("href") : null;
  if (href) return `a|${href}`;
  const id = el.dataset.testid;
  if (id !== undefined) return `${id}|${el.dataset.seat ?? ""}`;
  const name = el.getAttribute("name");
  if (!name) return null;
  const choice = el instanceof HTMLInputElement && (el.type === "checkbox" || el.type === "radio");
  return `name|${name}|${choice ? (el as HTMLInputElement).value : ""}`;
}

/** Copy `text` with the clipboard API where the page may use it ("clipboard"), else with the
 * browser's copy command on `input`'s selected text ("command"); "select" when neither worked and the
 * reader must press Ctrl+C (the caller leaves the text selected after redrawing). */
export async function copyText(
  text: string,
  input: HTMLInputElement,
): Promise<"clipboard" | "command" | "select"> {
  try {
    if (!navigator.clipboard) throw new Error("no clipboard");
    await navigator.clipboard.writeText(text);
    return "clipboard";
  } catch {
    input.focus();
    input.select();
    let done = false;
    try {
      done = document.execCommand("copy");
    } catch {
      done = false;
    }
    return done ? "command" : "select";
  }
}
