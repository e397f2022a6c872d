/**
 * Short move animations (about 300 ms) with the Web Animations API, skipped when the person asked
 * for reduced motion.  Each animation started counts in `data-move-animations` on <html>, a hook for
 * tests and nothing else.
 */

export const MOVE_MS = 300;

export function reducedMotion(): boolean {
  return typeof window.matchMedia === "function" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** Count one move animation started (the hook `data-move-animations` on <html>). */
export function countAnimation(): void {
  const root = document.documentElement;
  root.dataset.moveAnimations = String(Number(root.dataset.moveAnimations ?? "0") + 1);
}

/** Run `keyframes` on `el` (ending where the element already stands), unless motion is reduced. */
export function animate(el: Element, keyframes: Keyframe[], options: KeyframeAnimationOptions = {}): Animation | null {
  if (reducedMotion() || typeof el.animate !== "function") return null;
  const animation = el.animate(keyframes, { duration: MOVE_MS, easing: "ease-out", ...options });
  countAnimation();
  el.classList.add("animating");
  const done = () => el.classList.remove("animating");
  animation.addEventListener("finish", done);
  animation.addEventListener("cancel", done);
  return animation;
}

/** Whether `next` follows `prev` by exactly one move (then its change may be animated). */
export function oneMoveApart(prev: { version: number } | null, next: { version: number }): boolean {
  return prev !== null && next.version === prev.version + 1;
}
