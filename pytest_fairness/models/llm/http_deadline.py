"""A whole-request deadline for httpx's synchronous client.

httpx's timeouts bound each network operation: a server sending one byte every half
second never trips a 30 s read timeout, and a request can last forever. Here every read,
write, connect and TLS handshake of a request is given at most what is left of the
request's deadline, set for the calling thread with `deadline(seconds)` around the request
(a synchronous httpx request runs in the thread that sends it): past the deadline the next
socket operation times out, so the request ends with httpx's own timeout error at the
deadline, in the headers or in the body alike.

The clamping lives in an httpcore network backend (`DeadlineBackend`, httpcore's public
extension point: an object with its methods, wrapping httpcore's `SyncBackend`) that
`install(transport, limits)` puts under an `httpx.HTTPTransport`. httpx and httpcore are
imported inside the functions that need them (httpx is an optional dependency).
"""

from __future__ import annotations

import ssl
import threading
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    import httpcore
    import httpx

__all__ = ["DeadlineBackend", "deadline", "expired", "install"]

_STATE = threading.local()
#: The shortest timeout a socket operation is given once the deadline is (nearly) past.
_FLOOR = 0.001


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Every socket operation of this thread inside the block ends by `seconds` from now."""
    previous = getattr(_STATE, "at", None)
    _STATE.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _STATE.at = previous


def expired() -> bool:
    """Whether this thread's current deadline has passed."""
    at: float | None = getattr(_STATE, "at", None)
    return at is not None and time.monotonic() >= at


def _clamp(timeout: float | None) -> float | None:
    at: float | None = getattr(_STATE, "at", None)
    if at is None:
        return timeout
    left = max(at - time.monotonic(), _FLOOR)
    return left if timeout is None else min(timeout, left)


class _DeadlineStream:
    """An httpcore network stream whose operations end by the thread's deadline."""

    def __init__(self, stream: httpcore.NetworkStream) -> None:
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _clamp(timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _clamp(timeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: ssl.SSLContext, server_hostname: str | None = None,
                  timeout: float | None = None) -> httpcore.NetworkStream:
        return cast("httpcore.NetworkStream", _DeadlineStream(
            self._stream.start_tls(ssl_context, server_hostname, _clamp(timeout))))

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class DeadlineBackend:
    """httpcore's synchronous socket backend with each operation's timeout cut to what is
    left of the thread's `deadline`."""

    def __init__(self) -> None:
        import httpcore

        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host: str, port: int, timeout: float | None = None,
                    local_address: str | None = None,
                    socket_options: Iterable[Any] | None = None) -> httpcore.NetworkStream:
        return cast("httpcore.NetworkStream", _DeadlineStream(self._backend.connect_tcp(
            host, port, _clamp(timeout), local_address, socket_options)))

    def connect_unix_socket(self, path: str, timeout: float | None = None,
                            socket_options: Iterable[Any] | None = None,
                            ) -> httpcore.NetworkStream:
        return cast("httpcore.NetworkStream", _DeadlineStream(
            self._backend.connect_unix_socket(path, _clamp(timeout), socket_options)))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def install(transport: httpx.HTTPTransport, limits: httpx.Limits) -> bool:
    """Give `transport` (without a proxy) a connection pool on `DeadlineBackend`; False
    (the transport unchanged) when this httpx keeps its pool elsewhere, in which case
    the caller checks `expired()` between the chunks it reads."""
    import httpcore
    import httpx

    pool = getattr(transport, "_pool", None)
    if type(pool) is not httpcore.ConnectionPool:
        return False
    transport._pool = httpcore.ConnectionPool(
        ssl_context=httpx.create_ssl_context(trust_env=False),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=cast("httpcore.NetworkBackend", DeadlineBackend()),
    )
    return True
