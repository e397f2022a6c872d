/** Log lines for the viewer's own moves: the shell writes "You" / "Vous" first, so the verb agrees. */
import type { Messages } from "./contract";

/** `key`, or its `_you` form ("You step", "Vous avancez") when the viewer made the move and it exists. */
export function youKey(messages: Messages, key: string, mine: boolean): string {
  return mine && messages.en[`${key}_you`] !== undefined ? `${key}_you` : key;
}
