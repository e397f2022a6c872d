"""The OpenAPI schema says what the routes really answer.

Every refusal is ``{"code", "message"}`` (:class:`ErrorBody`; a 429 adds ``retry_after``) with 400,
401, 403, 404, 409, 413 or 429;
malformed input is a 400 (the app turns FastAPI's validation errors into it), so FastAPI's 422 and
its validation-error schemas are taken out.  Every ``/api`` route may answer 429 with a
``Retry-After`` header (the rate limits).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, Field


class ErrorBody(BaseModel):
    """Every refusal: a stable code for programs and a reason for people."""

    code: str = Field(description="stable, machine-readable, e.g. 'no_match', 'seat_taken'")
    message: str = Field(description="what was wrong, in words")


class RetryBody(ErrorBody):
    """A 429: the error, and when to try again."""

    retry_after: int = Field(description="seconds to wait before trying again (as Retry-After)")


WHY = {
    400: "Malformed request: a field, option, query or header is missing, of the wrong type or out of range",
    401: "Not signed in: wrong username or password, or the session cookie has ended or is forged",
    403: "Not allowed: no seat here, a missing CSRF token, a private match without its invite, a "
    "disabled account, or a seed chosen for a match with people",
    404: "No such match, game, seat or player",
    409: "Refused in the current state (a seat taken, the match started or not finished, a username "
    "taken, a rematch already answered)",
    413: "The request body is over the size limit",
    503: "Temporarily unavailable: the work could not be done now (an analysis or a hint failed); try again",
}

TOO_MANY = {
    "description": "Too many requests from this client: wait the number of seconds in Retry-After",
    "headers": {
        "Retry-After": {
            "description": "seconds to wait before trying again",
            "schema": {"type": "integer", "minimum": 0},
        }
    },
    "content": {"application/json": {"schema": {"$ref": "#/components/schemas/RetryBody"}}},
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route that can refuse with these statuses (429 is added to all)."""
    return {status: {"model": ErrorBody, "description": WHY[status]} for status in statuses}


def documented_openapi(app: FastAPI) -> Callable[[], dict[str, Any]]:
    """The app's ``openapi()``: FastAPI's schema without 422, with 429 on every ``/api`` route."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title,
            version=app.version,
            description=app.description,
            routes=app.routes,
        )
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schemas.setdefault("ErrorBody", ErrorBody.model_json_schema())
        schemas.setdefault("RetryBody", RetryBody.model_json_schema())
        for path, operations in schema.get("paths", {}).items():
            for operation in operations.values():
                responses = operation.setdefault("responses", {})
                responses.pop("422", None)
                if path.startswith("/api/"):
                    responses["429"] = TOO_MANY
        for unused in ("HTTPValidationError", "ValidationError"):
            schemas.pop(unused, None)
        app.openapi_schema = schema
        return schema

    return openapi
