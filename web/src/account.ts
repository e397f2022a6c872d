/**
 * Who plays in this browser, in the top bar: the player's name (a link to their page), Log in / Sign up
 * for guests and newcomers, Change password / Log out for accounts; and the one form that does each,
 * in a panel under the bar.  The server's refusals are shown by their code, in the page's language.
 */
import { api, ApiError, session, type Me } from "./api";
import { h, redrawKeepingFocus } from "./dom";
import type { AppContext } from "./match";

export type AuthMode = "login" | "signup" | "password";

/**
 * The shell's key for a refusal's code: `err_<code>`, but for the codes whose `err_<code>` text speaks
 * of one place only (the chat's rate limit says "one message a second"; a request's has other limits).
 */
const KEYS: Record<string, string> = { rate_limited: "err_too_many_requests" };

export function errorKey(code: string): string {
  return KEYS[code] ?? `err_${code}`;
}

/**
 * An error as a person reads it: the shell's text for the server's code, else the server's message.
 * The texts take `{seconds}` only (a 429's Retry-After; 60 when the server gave none).
 */
export function errorText(app: AppContext, err: unknown): string {
  if (err instanceof ApiError) {
    const key = errorKey(err.code);
    const known = app.t(key, { seconds: err.retryAfter ?? 60 });
    return known === key ? err.message : known;
  }
  return err instanceof Error ? err.message : String(err);
}

export interface IdentityBar {
  /** The top bar's part: the name and the buttons. */
  bar: HTMLElement;
  /** The form's panel, under the top bar (empty while closed). */
  panel: HTMLElement;
  open(mode: AuthMode): void;
  close(): void;
  draw(): void;
}

/**
 * The top bar's identity part and its forms.  `changed` runs after a log-in, a sign-up or a log-out
 * (the pages then redraw for the new player: a match page reconnects to take the player's seat).
 */
export function identityBar(app: AppContext, changed: () => void): IdentityBar {
  const bar = h("div", { class: "identity", "data-testid": "identity" });
  const panel = h("section", { class: "auth-panel", "data-testid": "auth-panel", hidden: true });
  let mode: AuthMode | null = null;
  let failure: unknown = null; // the last refusal, put in words at each drawing (the language may change)
  let done = false;
  let busy = false;
  // Kept across redraws (a language switch), so what a person types survives them.
  const inputs = {
    username: h("input", { type: "text", name: "username", autocomplete: "username", maxlength: 20, required: true }),
    password: h("input", { type: "password", name: "password", required: true }),
    old: h("input", { type: "password", name: "old-password", autocomplete: "current-password", required: true }),
    fresh: h("input", { type: "password", name: "new-password", autocomplete: "new-password", required: true }),
  };

  function drawBar(): void {
    const player = session.current.player;
    const buttons: HTMLElement[] = [];
    if (player) {
      bar.dataset.kind = player.kind;
      buttons.push(
        h(
          "a",
          {
            href: `/player/${player.id}`,
            "data-link": true,
            class: "me",
            "data-testid": "me-link",
            title: app.t("my_page"),
          },
          h("span", { "data-testid": "me-name" }, player.name),
          player.kind === "guest" ? h("small", { class: "guest-tag" }, app.t("guest")) : null,
        ),
      );
    } else {
      delete bar.dataset.kind;
    }
    if (!player || player.kind === "guest") {
      buttons.push(
        h("button", { type: "button", "data-testid": "login-open", onclick: () => open("login") }, app.t("log_in")),
        h("button", { type: "button", "data-testid": "signup-open", onclick: () => open("signup") }, app.t("sign_up")),
      );
    } else {
      buttons.push(
        h(
          "button",
          { type: "button", "data-testid": "password-open", onclick: () => open("password") },
          app.t("change_password"),
        ),
        h("button", { type: "button", "data-testid": "logout", onclick: () => void logout() }, app.t("log_out")),
      );
    }
    bar.replaceChildren(...buttons);
  }

  /** Drawn again on submitting and on the answer: the field (or button) in use keeps the focus, so a
   * refused password can be typed again at once. */
  function drawPanel(): void {
    redrawKeepingFocus(panel, drawForm);
  }

  function drawForm(): void {
    panel.hidden = mode === null && !done;
    if (mode === null) {
      panel.replaceChildren(
        done ? h("p", { class: "done", role: "status", "data-testid": "auth-done" }, app.t("password_changed")) : "",
      );
      return;
    }
    const code = failure instanceof ApiError ? failure.code : "";
    const field = (label: string, input: HTMLInputElement) =>
      h("label", { class: "field" }, h("span", {}, label), input);
    inputs.password.autocomplete = mode === "signup" ? "new-password" : "current-password";
    const fields =
      mode === "password"
        ? [field(app.t("old_password"), inputs.old), field(app.t("new_password"), inputs.fresh)]
        : [field(app.t("username"), inputs.username), field(app.t("password"), inputs.password)];
    const guest = session.current.player?.kind === "guest";
    panel.replaceChildren(
      h(
        "form",
        {
          class: "auth-form",
          "data-testid": "auth-form",
          "data-mode": mode,
          onsubmit: (e: Event) => {
            e.preventDefault();
            void submit();
          },
        },
        h("h2", {}, app.t(`${mode}_title`)),
        mode === "signup" ? h("p", { class: "hint" }, app.t(guest ? "signup_keeps" : "signup_rules")) : null,
        mode === "login" && guest ? h("p", { class: "hint" }, app.t("login_keeps")) : null,
        h("div", { class: "fields" }, ...fields),
        failure !== null
          ? h(
              "p",
              { class: "error", role: "alert", "data-testid": "auth-error", "data-code": code },
              errorText(app, failure),
            )
          : null,
        h(
          "div",
          { class: "auth-actions" },
          h(
            "button",
            // aria-disabled while sending, not disabled: a disabled button could not keep the focus
            { type: "submit", class: "primary", "data-testid": "auth-submit", "aria-disabled": busy ? "true" : null },
            app.t(`${mode}_submit`),
          ),
          h("button", { type: "button", "data-testid": "auth-cancel", onclick: () => close() }, app.t("cancel")),
        ),
      ),
    );
  }

  function open(next: AuthMode): void {
    mode = next;
    failure = null;
    done = false;
    inputs.password.value = "";
    inputs.old.value = "";
    inputs.fresh.value = "";
    drawPanel();
    panel.querySelector<HTMLInputElement>("input")?.focus();
  }

  function close(): void {
    mode = null;
    failure = null;
    done = false;
    drawPanel();
  }

  async function submit(): Promise<void> {
    if (busy || mode === null) return;
    busy = true;
    failure = null;
    drawPanel();
    const was = mode;
    try {
      if (was === "password") {
        await api.password(inputs.old.value, inputs.fresh.value); // this browser's new session
        mode = null;
        done = true;
      } else {
        const username = inputs.username.value.trim();
        if (was === "signup") await api.signup(username, inputs.password.value);
        else await api.login(username, inputs.password.value);
        mode = null;
        changed();
      }
    } catch (err) {
      failure = err;
    } finally {
      busy = false;
      drawPanel();
    }
  }

  async function logout(): Promise<void> {
    try {
      await api.logout();
    } catch {
      await session.load(); // the session may be gone already: show what the server says
    }
    close();
    changed();
  }

  session.subscribe((_me: Me) => drawBar());
  drawBar();
  drawPanel();

  return {
    bar,
    panel,
    open,
    close,
    draw() {
      drawBar();
      drawPanel();
    },
  };
}
