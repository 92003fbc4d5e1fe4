"""An OpenAI-compatible endpoint as both of its users see it: the client
(`openai_api.OpenAIGenerator`) and the launcher of a server on this machine
(`local_server.LocalServer`). Its URL checked (`check_base_url`), names checked
(`check_name`), the API key read from the environment into a bearer auth that never shows
it (`key_auth`, `Bearer`), server text quoted in errors scrubbed of the key (`quoted`), and
the wait until a server answers (`wait_until_ready`). It imports neither of its users, so
they import it, and no longer each other, inside functions.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from ...errors import ConfigurationError, ModelCallError
from ...runtime.optional import require
from ...runtime.printable import printable, unsafe
from ...runtime.secrets import Secret
from ...validation import check_number

if TYPE_CHECKING:
    import httpx

__all__ = ["Bearer", "check_base_url", "check_name", "key_auth", "quoted", "wait_until_ready"]

#: Characters of a server's message (error body) quoted in an error.
_QUOTED = 300
#: Characters read past a cut before scrubbing, so a key echoed across the cut is masked.
_SCRUB_MARGIN = 4096


class Bearer:
    """httpx auth (a callable request -> request) that writes the bearer header from a
    `Secret` as the request leaves: the key is revealed inside one expression, never
    held by a variable of any frame a traceback could show."""

    __slots__ = ("secret",)

    def __init__(self, secret: Secret) -> None:
        self.secret = secret

    def __call__(self, request: httpx.Request) -> httpx.Request:
        request.headers["Authorization"] = "Bearer " + self.secret.reveal()
        return request

    def __repr__(self) -> str:
        return f"Bearer({self.secret!r})"


def wait_until_ready(
    base_url: str,
    timeout: float,
    *,
    interval: float = 0.2,
    api_key_env: str | None = None,
    alive: Callable[[], bool] | None = None,
) -> str:
    """Wait until the server at `base_url` answers ``GET {base}/models`` or ``GET /health``
    with a 2xx; return the URL that answered. `alive` (e.g. ``lambda: proc.poll() is
    None``) stops the wait as soon as the server process has died. After `timeout`
    seconds (or a dead process) raise `ModelCallError` saying what was tried and the last
    answer or error seen."""
    httpx = require("httpx", "OpenAI-compatible models (wait_until_ready)")

    base = check_base_url(base_url)
    limit = check_number(timeout, "timeout", above=0.0)
    pause = check_number(interval, "interval", above=0.0)
    auth = None if api_key_env is None else key_auth(check_name(api_key_env, "api_key_env"),
                                                      required=False)
    parts = urlsplit(base)
    urls = [base + "/models", urlunsplit((parts.scheme, parts.netloc, "/health", "", ""))]
    deadline = time.monotonic() + limit
    last = "no answer yet"
    with httpx.Client(timeout=min(limit, 5.0), trust_env=False) as client:
        while True:
            for url in urls:
                status = 0
                try:
                    status = client.get(url, auth=auth).status_code
                except httpx.HTTPError as exc:
                    last = quoted(f"{type(exc).__name__}: {exc}", auth)
                    continue
                if 200 <= status < 300:
                    return url
                last = f"HTTP {status} from {url}"
            if alive is not None and not alive():
                raise ModelCallError(
                    f"the server at {base} exited before it was ready (last: {last}); see "
                    "its log"
                )
            left = deadline - time.monotonic()
            if left <= 0:
                raise ModelCallError(
                    f"the server at {base} was not ready after {limit:g} s (GET "
                    f"{' or '.join(urls)}; last: {last}); check that it started (its "
                    "log), or wait longer with a larger timeout"
                )
            time.sleep(min(pause, left))


# ---------------------------------------------------------------------- helpers


def check_base_url(url: object) -> str:
    """An http(s) URL without query, fragment or credentials, no trailing slash; ``/v1``
    added when it has no path."""
    if not isinstance(url, str) or not url.strip():
        raise ConfigurationError(
            f"base_url must be the API's URL as a string, got {type(url).__name__}; e.g. "
            "base_url='http://127.0.0.1:8000/v1'"
        )
    bad = next((ch for ch in url.strip() if unsafe(ch) or ch.isspace()), None)
    if bad is not None:
        raise ConfigurationError(
            f"base_url has the character {bad!r} in it ({printable(_strip_credentials(url))!r:.80}"
            "): a URL holds no space, newline or control character (a newline would "
            "write a header of its own); e.g. base_url='http://127.0.0.1:8000/v1'"
        )
    try:
        parts = urlsplit(url.strip())
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError as exc:
        reason = str(exc)
        parts = None
    if parts is None:
        raise ConfigurationError(
            f"base_url {printable(_strip_credentials(url))!r:.80} is not a valid URL "
            f"({reason}); e.g. base_url='http://127.0.0.1:8000/v1'")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ConfigurationError(
            f"base_url must be an http:// or https:// URL with a host, got "
            f"{_strip_credentials(url)!r:.80} (no scheme? write it out: http://...); e.g. "
            "base_url='http://127.0.0.1:8000/v1'"
        )
    if parts.username or parts.password:
        raise ConfigurationError(
            "base_url must not contain credentials (user:password@); put the key in an "
            "environment variable and pass its name as api_key_env="
        )
    if parts.query or parts.fragment:
        raise ConfigurationError(
            f"base_url must not have a query or fragment, got {_strip_credentials(url)!r:.80}"
        )
    path = parts.path.rstrip("/") or "/v1"
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def _strip_credentials(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an unreadable URL)"
    host = parts.netloc.rsplit("@", 1)[-1]
    return urlunsplit((parts.scheme, host, parts.path, "", ""))


def check_name(value: object, name: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ConfigurationError(
            f"{name} must be a non-empty string, got {type(value).__name__} {value!r:.40}"
            if name != "api_key_env" or not isinstance(value, str) else
            f"{name} must name an environment variable, got an empty string; pass e.g. "
            "api_key_env='OPENAI_API_KEY', or api_key_env=None for no authentication"
        )
    return value


def quoted(text: str, auth: Bearer | None, limit: int = _QUOTED) -> str:
    """`text` to quote in an error: scrubbed of the key first (its start, long enough
    that an echo crossing the cut is masked whole), then cut to `limit` characters, then
    made terminal-safe (`printable`)."""
    head = text[:limit + _SCRUB_MARGIN]
    if auth is not None:
        head = auth.secret.scrub(head)
    return printable(head[:limit] + ("..." if len(head) > limit else ""))


def key_auth(variable: str | None, *, required: bool = True) -> Bearer | None:
    """The bearer auth of the key held by the environment variable `variable`, read now;
    None when `variable` is None (or, not `required`, unset). A key that cannot go into
    a header is refused without being shown."""
    if variable is None:
        return None
    secret = Secret.from_env(variable)
    if secret is None:
        if not required:
            return None
        raise ConfigurationError(
            f"the API key environment variable {variable} is not set (or empty); export "
            f"{variable}=<your key>, or pass api_key_env=None for a server without "
            "authentication")
    if not secret.is_token():
        raise ConfigurationError(
            f"the API key in ${variable} has a space, a control or a non-ASCII character, "
            "which an HTTP header cannot carry; check the variable (a stray newline or "
            "quote when it was exported?)")
    return Bearer(secret)
