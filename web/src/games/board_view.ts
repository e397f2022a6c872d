/**
 * What the Masker and Mascarade views share: the latest view and its observation, a redraw on a
 * language change, and a page-wide key handler that ignores keys typed into form fields.
 */
import type { GameView, MatchView, ViewContext } from "./contract";

export abstract class BoardView<Observation> implements GameView {
  protected view: MatchView | null = null;
  private readonly onKey = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (!this.view || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
    this.key(event);
  };

  constructor(protected readonly ctx: ViewContext) {
    document.addEventListener("keydown", this.onKey);
  }

  protected get obs(): Observation {
    return this.view!.observation as Observation;
  }

  abstract update(view: MatchView): void;

  /** Redraw everything from `this.view`. */
  protected abstract draw(): void;

  /** A key pressed anywhere on the page (not in a form field), while a view is shown. */
  protected abstract key(event: KeyboardEvent): void;

  setLang(): void {
    if (this.view) this.draw();
  }

  destroy(): void {
    document.removeEventListener("keydown", this.onKey);
    this.ctx.root.replaceChildren();
  }
}
