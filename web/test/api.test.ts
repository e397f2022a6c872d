// @vitest-environment happy-dom
/** Seat tokens in api.ts: a token the server has ended is forgotten and the request made with the session. */
import { describe, expect, it } from "vitest";
import { ApiError, seats, withSeatToken } from "../src/api";

describe("withSeatToken", () => {
  it("forgets an ended token and asks again with the session", async () => {
    seats.set("m1", { seat: 0, token: "old" });
    const sent: Array<string | null> = [];
    const answer = await withSeatToken("m1", "old", async (token) => {
      sent.push(token);
      if (token) throw new ApiError(403, "bad_token", "ended");
      return "by the session";
    });
    expect(answer).toBe("by the session");
    expect(sent).toEqual(["old", null]);
    expect(seats.get("m1")).toBeNull();
  });

  it("keeps the token through any other refusal", async () => {
    seats.set("m2", { seat: 1, token: "good" });
    const refused = withSeatToken("m2", "good", async () => {
      throw new ApiError(403, "account_disabled", "disabled");
    });
    await expect(refused).rejects.toMatchObject({ code: "account_disabled" });
    expect(seats.get("m2")).toEqual({ seat: 1, token: "good" });
  });

  it("asks once without a token", async () => {
    let calls = 0;
    const refused = withSeatToken("m3", null, async () => {
      calls += 1;
      throw new ApiError(403, "bad_token", "no");
    });
    await expect(refused).rejects.toBeInstanceOf(ApiError);
    expect(calls).toBe(1);
  });
});
