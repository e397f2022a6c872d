"""The one error type the server refuses a request with."""

from __future__ import annotations

from typing import Any


class ServerError(Exception):
    """A refused request: an HTTP-like status, a stable code and a reason for the client.

    ``retry_after`` (seconds) goes with a 429: the HTTP layer sends it as ``Retry-After`` and the
    WebSocket error message carries it as ``retry_after``.
    """

    def __init__(self, status: int, code: str, message: str, *, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after

    def payload(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "error", "code": self.code, "message": self.message}
        if self.retry_after is not None:
            out["retry_after"] = self.retry_after
        return out

    def headers(self) -> dict[str, str] | None:
        return None if self.retry_after is None else {"Retry-After": str(self.retry_after)}
