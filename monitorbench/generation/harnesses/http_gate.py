"""Strict reading of one HTTP/1.x request from the harness, and writing one reply to it.

The harness -- and the model that decides what it sends -- is untrusted, so the endpoint proxy
does not use ``http.server``'s lenient parser (which honours no deadline, reads any
``Content-Length`` into memory and passes ``Transfer-Encoding`` through). Here a connection
carries exactly one request, read within a byte cap and a deadline:

- the head (request line and headers) is at most :data:`MAX_HEAD_BYTES`, CRLF-terminated,
  with no duplicated framing headers and an origin-form target of printable ASCII;
- the body has a fixed ``Content-Length`` no larger than the caller's cap, checked *before* a
  byte of it is read (an oversize request costs the framework no memory); ``Transfer-Encoding``
  and a compressed ``Content-Encoding`` are refused, so what the proxy parses is exactly what it
  re-serialises and forwards (chunked framing is how a second request was smuggled past it);
- no byte may follow the body (a pipelined second request is never read as one).

Anything else raises :class:`Refused`, which names the status to answer and the reason the
trace records.
"""

from __future__ import annotations

import re
import socket
import time
from dataclasses import dataclass
from http import HTTPStatus
from typing import Iterable

MAX_HEAD_BYTES = 64 * 1024  # request line + headers; real API clients send under 4 KiB
MAX_HEADERS = 100
WRITE_SECONDS = 60.0  # a harness that does not read its reply for this long loses it
LINGER_SECONDS = 2.0  # how long a refused request's unread body is drained before closing
LINGER_BYTES = 16 << 20  # ... and how much of it at most
_TOKEN = re.compile(rb"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_LENGTH = re.compile(r"[0-9]{1,15}")
_FRAMING = ("content-length", "transfer-encoding", "content-encoding", "host")


class Refused(Exception):
    """A request the proxy will not serve: ``status`` is the HTTP answer (None: the peer is
    gone or never spoke, nothing to answer), ``reason`` what the trace records."""

    def __init__(self, status: int | None, reason: str) -> None:
        super().__init__(reason)
        self.status, self.reason = status, reason


@dataclass(frozen=True)
class Head:
    """The request line and headers (names lower-cased) of one request."""

    method: str
    target: str  # path and query as sent, e.g. /v1/messages?beta=true
    headers: dict[str, str]

    @property
    def path(self) -> str:
        return self.target.split("?", 1)[0]


def _recv(sock: socket.socket, deadline: float, size: int) -> bytes:
    left = deadline - time.monotonic()
    if left <= 0:
        raise Refused(408, "request not complete before the connection's read deadline")
    sock.settimeout(left)
    try:
        return sock.recv(size)
    except TimeoutError:
        raise Refused(408, "request not complete before the connection's read deadline")
    except OSError as e:
        raise Refused(None, f"connection failed while reading: {e}")


def read_head(sock: socket.socket, deadline: float) -> tuple[Head, bytes]:
    """The request's head, and the bytes already received after it."""
    buf = bytearray()
    while (end := buf.find(b"\r\n\r\n")) < 0:
        if len(buf) > MAX_HEAD_BYTES:
            raise Refused(431, f"request head over {MAX_HEAD_BYTES} bytes")
        chunk = _recv(sock, deadline, 65536)
        if not chunk:
            raise Refused(None if not buf else 400, "connection closed before the request "
                                                    "head ended")
        buf += chunk
    if end > MAX_HEAD_BYTES:
        raise Refused(431, f"request head over {MAX_HEAD_BYTES} bytes")
    return _parse_head(bytes(buf[:end])), bytes(buf[end + 4:])


def _parse_head(head: bytes) -> Head:
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ")
    if len(parts) != 3 or parts[2] not in (b"HTTP/1.1", b"HTTP/1.0") \
            or not parts[0].isalpha() or not parts[0].isupper():
        raise Refused(400, f"malformed request line {lines[0][:80]!r}")
    target = parts[1]
    if not target.startswith(b"/") or any(b < 0x21 or b > 0x7E for b in target):
        raise Refused(400, f"request target is not an origin-form path: {target[:80]!r}")
    if len(lines) - 1 > MAX_HEADERS:
        raise Refused(431, f"more than {MAX_HEADERS} headers")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(b":")
        if not sep or not _TOKEN.fullmatch(name) or b"\r" in value or b"\n" in value:
            raise Refused(400, f"malformed header line {line[:80]!r}")
        key, val = name.decode("ascii").lower(), value.strip(b" \t").decode("latin-1")
        if key in headers and key in _FRAMING:
            raise Refused(400, f"duplicate {key} header")
        headers[key] = f"{headers[key]}, {val}" if key in headers else val
    return Head(parts[0].decode("ascii"), target.decode("ascii"), headers)


def read_body(sock: socket.socket, head: Head, rest: bytes, max_bytes: int,
              deadline: float) -> bytes:
    """The body of ``head``'s request: exactly ``Content-Length`` bytes, refused unread when
    over ``max_bytes``; none for a GET."""
    h = head.headers
    if "transfer-encoding" in h:
        raise Refused(501, f"Transfer-Encoding {h['transfer-encoding']!r} is refused: send the "
                           "body with a fixed Content-Length")
    if h.get("content-encoding", "identity").strip().lower() != "identity":
        raise Refused(415, f"Content-Encoding {h['content-encoding']!r} is refused: send the "
                           "body uncompressed")
    length = h.get("content-length")
    if length is None:
        if head.method == "GET" and not rest:
            return b""
        raise Refused(411, "a fixed Content-Length is required")
    if not _LENGTH.fullmatch(length):
        raise Refused(400, f"malformed Content-Length {length[:40]!r}")
    n = int(length)
    if n > max_bytes:
        raise Refused(413, f"request body of {n} bytes is over the proxy's {max_bytes}-byte "
                           "limit (not read)")
    if len(rest) > n:
        raise Refused(400, f"{len(rest) - n} bytes follow the {n}-byte body (one request per "
                           "connection)")
    body = bytearray(rest)
    if len(body) < n and h.get("expect", "").lower() == "100-continue":
        try:  # the client waits for it before it sends the body
            sock.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
        except OSError as e:
            raise Refused(None, f"connection failed while reading: {e}")
    while len(body) < n:
        chunk = _recv(sock, deadline, min(1 << 20, n - len(body)))
        if not chunk:
            raise Refused(400, f"connection closed after {len(body)} of {n} body bytes")
        body += chunk
    _refuse_trailing(sock, n)
    return bytes(body)


def _refuse_trailing(sock: socket.socket, n: int) -> None:
    """Bytes already sent after the body (a pipelined or smuggled request) refuse it all."""
    sock.setblocking(False)  # with a timeout set, recv would first wait for data to arrive
    try:
        extra = sock.recv(1, socket.MSG_PEEK)
    except OSError:  # BlockingIOError: nothing more was sent
        return
    if extra:
        raise Refused(400, f"bytes follow the {n}-byte body (one request per connection)")


def write_reply(sock: socket.socket, status: int, headers: Iterable[tuple[str, str]],
                body: bytes, seconds: float = WRITE_SECONDS) -> bool:
    """Answer the request and end the connection; False when the harness hung up first (its
    own request timeout)."""
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = "Unknown"
    lines = [f"HTTP/1.1 {status} {phrase}"]
    lines += [f"{k}: {v}" for k, v in headers
              if k.lower() not in ("transfer-encoding", "content-length", "connection",
                                   "content-encoding", "keep-alive")]
    lines += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
    try:
        sock.settimeout(seconds)
        sock.sendall("\r\n".join(lines).encode("latin-1", errors="replace") + body)
        return True
    except OSError:  # broken pipe, reset, or a harness not reading for ``seconds``
        return False


def linger_close(sock: socket.socket, seconds: float = LINGER_SECONDS,
                 max_bytes: int = LINGER_BYTES) -> None:
    """After a reply to a request whose body was left unread: end our side, then read and drop
    what the client still sends, until it closes or ``seconds``/``max_bytes`` run out.

    Closing a Unix socket with unread bytes makes the client's next write fail (EPIPE), and a
    client still uploading then reports the failed send, not the refusal it was sent (curl
    printed status 000 for a chunked upload the proxy had answered 501). Draining lets it read
    the answer; the bounds keep a client that never stops from holding the slot."""
    deadline = time.monotonic() + seconds
    try:
        sock.shutdown(socket.SHUT_WR)
        while max_bytes > 0 and (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            chunk = sock.recv(min(65536, max_bytes))
            if not chunk:
                return
            max_bytes -= len(chunk)
    except OSError:  # TimeoutError included: the client went quiet or away
        return
