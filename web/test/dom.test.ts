// @vitest-environment happy-dom
/** Redrawing a panel in place (dom.ts): a field someone types in is never taken out of the page. */
import { describe, expect, it } from "vitest";
import { focusTestId, h, keepFocus, replaceKeeping } from "../src/dom";

/** Every node taken out of `el` while `fn` runs. */
function removedDuring(el: Element, fn: () => void): Node[] {
  const observer = new MutationObserver(() => {});
  observer.observe(el, { childList: true });
  fn();
  return observer.takeRecords().flatMap((record) => Array.from(record.removedNodes));
}

describe("replaceKeeping", () => {
  it("keeps a focused field in place, with its text and focus, while the buttons around it change", () => {
    const panel = h("div");
    document.body.append(panel);
    const name = h("input", { type: "text" });
    replaceKeeping(panel, [name, h("button", {}, "Join as 2")]);
    name.focus();
    name.value = "Be";
    const removed = removedDuring(panel, () =>
      replaceKeeping(panel, [name, h("button", {}, "Join as 2"), h("button", {}, "Join as 3")]),
    );
    expect(removed).not.toContain(name);
    expect(removed).toHaveLength(1); // the old button
    expect(document.activeElement).toBe(name);
    expect(name.value).toBe("Be");
    expect(Array.from(panel.children).map((el) => el.textContent)).toEqual(["", "Join as 2", "Join as 3"]);
    panel.remove();
  });

  it("puts new nodes in the given order and drops the ones left out", () => {
    const panel = h("div");
    const [a, b, c] = [h("p", {}, "a"), h("p", {}, "b"), h("p", {}, "c")];
    replaceKeeping(panel, [a, b]);
    replaceKeeping(panel, [c, b]);
    expect(Array.from(panel.children)).toEqual([c, b]);
    replaceKeeping(panel, []);
    expect(panel.childNodes).toHaveLength(0);
  });
});

describe("keepFocus", () => {
  function panel(...children: Node[]): HTMLElement {
    const el = h("div", {}, ...children);
    document.body.append(el);
    return el;
  }

  it("gives the focus to the new button of the same test id and seat after a redraw", () => {
    const el = panel(
      h("button", { "data-testid": "seat-bot", "data-seat": 1 }, "1"),
      h("button", { "data-testid": "seat-bot", "data-seat": 2 }, "2"),
    );
    (el.children[1] as HTMLElement).focus();
    const restore = keepFocus(el);
    el.replaceChildren(
      h("button", { "data-testid": "seat-bot", "data-seat": 1 }, "1"),
      h("button", { "data-testid": "seat-bot", "data-seat": 2 }, "2"),
    );
    expect(document.activeElement).toBe(document.body);
    restore();
    expect(document.activeElement).toBe(el.children[1]);
    el.remove();
  });

  it("puts the focus back on an element taken out and put back", () => {
    const input = h("input", { type: "text" });
    const el = panel(input);
    input.focus();
    const restore = keepFocus(el);
    el.replaceChildren(h("span", {}, "label"), input);
    restore();
    expect(document.activeElement).toBe(input);
    el.remove();
  });

  it("leaves the focus alone when it was elsewhere, or when nothing matches", () => {
    const outside = h("button", { "data-testid": "elsewhere" });
    document.body.append(outside);
    const el = panel(h("button", { "data-testid": "resign" }));
    outside.focus();
    keepFocus(el)();
    expect(document.activeElement).toBe(outside);
    (el.firstChild as HTMLElement).focus();
    const restore = keepFocus(el);
    el.replaceChildren(h("button", { "data-testid": "abort" }));
    restore();
    expect(document.activeElement).toBe(document.body);
    focusTestId(el, "abort");
    expect(document.activeElement).toBe(el.firstChild);
    el.remove();
    outside.remove();
  });

  it("follows a link to the same address when a list is drawn anew", () => {
    const list = () => [h("a", { href: "/match/a" }, "Join"), h("a", { href: "/match/b" }, "Watch")];
    const el = panel(...list());
    (el.children[1] as HTMLElement).focus();
    const restore = keepFocus(el);
    el.replaceChildren(...list().reverse());
    restore();
    expect((document.activeElement as HTMLAnchorElement).getAttribute("href")).toBe("/match/b");
    el.remove();
  });

  it("tells links of one test id apart by their address", () => {
    const links = () =>
      [1, 2, 3].map((ply) => h("a", { href: `/replay?step=${ply}`, "data-testid": "moment-link" }, String(ply)));
    const el = panel(...links());
    (el.children[2] as HTMLElement).focus();
    const restore = keepFocus(el);
    el.replaceChildren(...links());
    restore();
    expect((document.activeElement as HTMLAnchorElement).getAttribute("href")).toBe("/replay?step=3");
    el.remove();
  });

  it("finds a form field by its name, and a checkbox by its value too", () => {
    const fields = () => [
      h("select", { name: "players" }, h("option", { value: "2" }, "2")),
      h("input", { type: "checkbox", name: "flags", value: "a" }),
      h("input", { type: "checkbox", name: "flags", value: "b" }),
    ];
    const el = panel(...fields());
    for (const at of [0, 2]) {
      (el.children[at] as HTMLElement).focus();
      const restore = keepFocus(el);
      el.replaceChildren(...fields());
      restore();
      expect(document.activeElement).toBe(el.children[at]);
    }
    el.remove();
  });
});
