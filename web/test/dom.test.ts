// @vitest-environment happy-dom
/** Redrawing a panel in place (dom.ts): a field someone types in is never taken out of the page. */
import { describe, expect, it } from "vitest";
import { h, replaceKeeping } from "../src/dom";

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
