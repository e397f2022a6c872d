// @vitest-environment happy-dom
/**
 * The guided first game says its answer to a move in the language chosen now: a language switch
 * loads the lesson again in the new language, and the answer shown follows it.  The board view is
 * replaced by a stand-in that plays the moves the test asks for; the server by a fetch that answers
 * a one-step lesson in each language.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Lang } from "../src/games/contract";
import { SHELL, translator } from "../src/i18n";
import { learnPage } from "../src/learn";
import type { AppContext } from "../src/match";

const board = vi.hoisted(() => ({ play: (_id: number): void => undefined }));

vi.mock("../src/match", () => ({
  seatLabel: () => "",
  ViewHost: class {
    readonly root = document.createElement("div");
    constructor(_app: unknown, _seatName: unknown, act: (id: number) => void) {
      board.play = act;
    }
    update(): void {}
    setLang(): void {}
    destroy(): void {}
  },
}));

const position = { match: { game: "masker" }, your_turn: true, legal: [{ id: 1 }, { id: 2 }], log: [] };

function lesson(lang: Lang) {
  const say = lang === "en" ? "EN" : "FR";
  return {
    game: "masker",
    lang,
    title: `Title ${say}`,
    intro: `Intro ${say}`,
    outro: `Outro ${say}`,
    steps: [{ text: `Step ${say}`, wrong: `Wrong ${say}`, done: `Done ${say}`, state: position, right: [1] }],
    play: { options: {}, seats: ["human", "easy"] },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

afterEach(() => {
  vi.unstubAllGlobals();
  document.body.replaceChildren();
});

describe("the guided first game", () => {
  it("says its answer in the language chosen after the move", async () => {
    vi.stubGlobal(
      "fetch",
      vi.fn(async (path: string) => {
        const lang = new URL(path, "http://x").searchParams.get("lang");
        const body = path.includes("/after") ? { right: true, state: position } : lesson(lang === "fr" ? "fr" : "en");
        return new Response(JSON.stringify(body), { status: 200 });
      }),
    );
    let lang: Lang = "en";
    const app = { lang: () => lang, t: translator(SHELL, () => lang) } as unknown as AppContext;
    const root = document.createElement("div");
    document.body.append(root);
    const page = learnPage(root, "masker", app);
    await settle();
    const feedback = () => root.querySelector("[data-testid=learn-feedback]")!.textContent;

    board.play(2); // a wrong move
    expect(feedback()).toBe("Not quite. Wrong EN");
    lang = "fr";
    page.setLang("fr");
    await settle();
    expect(feedback()).toBe("Pas tout à fait. Wrong FR");

    board.play(1); // the right one
    await settle();
    expect(feedback()).toBe("Bravo ! Done FR");
    lang = "en";
    page.setLang("en");
    await settle();
    expect(feedback()).toBe("Right! Done EN");
    page.destroy();
  });
});
