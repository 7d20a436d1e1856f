"""What `rulespec serve` does about hostile requests (docs/web.md, "Security").

- ``Guard``, an ASGI middleware around the whole app: every response gets a
  Content-Security-Policy and the usual hardening headers; a request with an unexpected Host
  (DNS rebinding), a cross-origin POST, or a declared body over the limit is refused before any
  route runs; an exception that escapes a route becomes a short JSON 500 and one line on the
  server's terminal, never a traceback.
- ``read_json`` / ``read_form``: a request body of the right content type, within the size limit,
  parsed without a traceback.
- The client key: a game or replay belongs to the client that made it.  The key is a random
  secret, kept by a browser as an HttpOnly, SameSite=Strict cookie and sent by scripts as
  ``Authorization: Bearer KEY``; the store keeps only its SHA-256 digest.
"""
from __future__ import annotations

import base64
import hashlib
import ipaddress
import json
import re
import secrets
import sys
from typing import Optional
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from .sessions import WebError

MAX_BODY = 8 * 1024 * 1024   # bytes of a request body: a replay or a play log is the largest

CLIENT_COOKIE = "rulespec_client"
KEY_PATTERN = re.compile(r"[A-Za-z0-9_-]{32,128}")  # the shape of a key this server hands out

# No inline script (the pages load theirs from /static), nothing from elsewhere, no framing.
# A <script type="application/json"> data block is not run, so it needs no hash.
PAGE_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
               "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")
# Referrer-Policy no-referrer would make a browser send "Origin: null" with its own form posts.
HARDENING_HEADERS = {"x-content-type-options": "nosniff", "x-frame-options": "DENY",
                     "referrer-policy": "same-origin", "cross-origin-opener-policy": "same-origin"}
NOTHING = "'none'"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}
SAME_ORIGIN_FETCH_SITES = {"same-origin", "none"}  # "none": the user typed the address


# ---------------------------------------------------------------------- content security policy
def inline_script_policy(page: str) -> str:
    """The policy for a page with inline scripts of its own (the rulebook's Mermaid): each
    script allowed by its SHA-256 hash; inline styles allowed (Mermaid styles its SVG inline)."""
    hashes = [f"'sha256-{base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()}'"
              for s in re.findall(r"<script>(.*?)</script>", page, flags=re.S)]
    return (f"default-src 'none'; script-src {' '.join(hashes) or NOTHING}; "
            f"style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
            f"base-uri 'none'; form-action 'self'; frame-ancestors 'none'")


# ---------------------------------------------------------------------- hosts and origins
def is_loopback_name(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """The name in a Host header, without its port: '[::1]:8000' -> '::1'."""
    if host_header.startswith("["):
        return host_header[1:].split("]", 1)[0]
    return host_header.rsplit(":", 1)[0] if host_header.count(":") == 1 else host_header


def allowed_hosts_for(listen_host: str) -> Optional[frozenset]:
    """The Host names a server listening on `listen_host` answers to (None: any).  A loopback
    server answers to loopback names only, so a page of another site whose name was re-bound to
    127.0.0.1 (DNS rebinding) gets nothing; a server on all addresses answers to any name."""
    if listen_host in ("", "0.0.0.0", "::"):
        return None
    return frozenset({"localhost", listen_host.lower()})


def host_refusal(host_header: Optional[str], allowed: Optional[frozenset]) -> Optional[str]:
    if allowed is None:
        return None
    name = host_name(host_header or "").lower()
    if name in allowed or is_loopback_name(name):
        return None
    return f"this server does not answer to the host name {name!r}"


def cross_origin_refusal(method: str, headers, scheme: str) -> Optional[str]:
    """Why a request that changes something is refused as coming from another site's page, or
    None.  Browsers say where a request comes from (Sec-Fetch-Site, Origin); a client that sends
    neither (curl, a script) is not a browser page and is let through."""
    if method in SAFE_METHODS:
        return None
    site = headers.get("sec-fetch-site")
    if site is not None and site not in SAME_ORIGIN_FETCH_SITES:
        return f"a {site} request is refused: only this server's own pages may post to it"
    origin = headers.get("origin")
    if origin is not None and origin != f"{scheme}://{headers.get('host', '')}":
        return f"a request from {origin} is refused: only this server's own pages may post to it"
    return None


def declared_size_refusal(headers, limit: int) -> Optional[str]:
    length = headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > limit):
        return too_large(limit)
    return None


def too_large(limit: int) -> str:
    return f"the request's body is larger than this server takes ({limit // 1024} KiB)"


# ---------------------------------------------------------------------- the middleware
class Guard:
    """The ASGI middleware: refusals before routing, headers on every response, no traceback."""

    def __init__(self, app, allowed_hosts: Optional[frozenset], max_body: int):
        self.app, self.allowed_hosts, self.max_body = app, allowed_hosts, max_body

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        refusal = self.refusal(request)
        if refusal is not None:
            refusal.raw_headers = _hardened(refusal.raw_headers)  # it does not go through the app
            await refusal(scope, receive, send)
            return
        started = False

        async def send_hardened(message):
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message = dict(message, headers=_hardened(message.get("headers", [])))
            await send(message)

        try:
            await self.app(scope, receive, send_hardened)
        except Exception as e:  # a bug of ours: one line on the terminal, a short answer to the client
            print(f"rulespec serve: internal error on {request.method} {request.url.path}: "
                  f"{type(e).__name__}: {e}", file=sys.stderr)
            if not started:
                await internal_error(request, e)(scope, receive, send_hardened)

    def refusal(self, request: Request) -> Optional[Response]:
        why = host_refusal(request.headers.get("host"), self.allowed_hosts)
        if why is not None:
            return error_response(why, 400)
        why = cross_origin_refusal(request.method, request.headers, request.url.scheme)
        if why is not None:
            return error_response(why, 403)
        why = declared_size_refusal(request.headers, self.max_body)
        if why is not None:
            return error_response(why, 413)
        return None


def _hardened(headers: list) -> list:
    names = {k.lower() for k, _ in headers}
    extra = [(k.encode(), v.encode()) for k, v in HARDENING_HEADERS.items() if k.encode() not in names]
    if b"content-security-policy" not in names:
        extra.append((b"content-security-policy", PAGE_POLICY.encode()))
    return list(headers) + extra


def internal_error(request: Request, e: Exception) -> JSONResponse:
    """The answer to an exception that escaped a route (Starlette's handler for a 500 too)."""
    return error_response(f"internal error ({type(e).__name__}); the details are in the terminal that runs "
                          f"rulespec serve", 500)


def error_response(message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


# ---------------------------------------------------------------------- request bodies
async def read_body(request: Request, limit: int) -> bytes:
    """The body, read no further than `limit` bytes (a body sent without a declared length is
    counted as it comes)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise WebError(too_large(limit), 413)
    return bytes(body)


def _require_type(request: Request, expected: str) -> None:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if kind != expected:
        raise WebError(f"the request's body must be {expected}, not {kind or 'untyped'}", 415)


async def read_json(request: Request, limit: int) -> dict:
    _require_type(request, "application/json")
    body = await read_body(request, limit)
    try:
        data = json.loads(body or b"{}")
    except (ValueError, RecursionError):  # bad JSON, bad UTF-8, or nested too deep to parse
        raise WebError("the request's body is not JSON (or is nested too deep)") from None
    if not isinstance(data, dict):
        raise WebError("the request's body is a JSON object")
    return data


async def read_form(request: Request, limit: int) -> dict:
    """An HTML form's fields (the last value of a repeated name)."""
    _require_type(request, "application/x-www-form-urlencoded")
    body = (await read_body(request, limit)).decode("utf-8", "replace")
    return {k: v[-1] for k, v in parse_qs(body, keep_blank_values=True).items()}


# ---------------------------------------------------------------------- the client key
def presented_key(request: Request) -> Optional[str]:
    """The client key a request carries (bearer header first, then the cookie), if well formed."""
    auth = request.headers.get("authorization", "")
    key = auth[7:].strip() if auth[:7].lower() == "bearer " else request.cookies.get(CLIENT_COOKIE)
    return key if key and KEY_PATTERN.fullmatch(key) else None


def new_key() -> str:
    return secrets.token_urlsafe(32)


def key_digest(key: Optional[str]) -> str:
    return hashlib.sha256((key or "").encode()).hexdigest()


def remember_key(response: Response, request: Request, key: str) -> Response:
    """Set the browser's cookie to `key` unless it holds it already."""
    if request.cookies.get(CLIENT_COOKIE) != key:
        response.set_cookie(CLIENT_COOKIE, key, httponly=True, samesite="strict", path="/")
    return response
