#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Hostile HTTP clients of uie-verifierd for fleet.sh, from a loopback
# address of their own (127.0.0.2), so the verifier tells them from the
# well-behaved client on 127.0.0.1.  Each check prints one line and exits 1
# when the verifier did not behave.
#
#   hostile.py flood PORT PATH SECONDS
#       POSTs PATH as fast as it can for SECONDS; every answer must be 201
#       or 429 rate_limited with a Retry-After; after waiting that long it is
#       served again.  Prints "served N limited M".
#   hostile.py loris PORT N IDLE
#       N connections that send part of a request and stop, one that sends a
#       whole header and half its body; one more is refused (the per-address
#       limit); all are closed by the verifier within IDLE + 3 seconds.
#   hostile.py chunked PORT PATH MIB
#       POSTs a chunked body of MIB MiB: a JSON 413 too_large, then the
#       verifier closes the connection.
#   hostile.py trickle PORT DEADLINE
#       Sends one header line a second: the verifier closes the connection
#       within DEADLINE + 5 seconds (a whole-request deadline, not only idle).
#   hostile.py heads PORT [CA]
#       Requests the HTTP library rejects while reading their head (a bad
#       Content-Length, no HTTP version, a header line without a colon, a head
#       over the size limit, HTTP/1.1 without Host, HTTP/9.9, a Transfer-Encoding
#       other than chunked, ...): each is
#       answered with one response, JSON {"error", "reason"} of type
#       application/json, and the connection is closed; a good request on a
#       new connection is still served.  Then several good requests on one
#       connection (bodies, Expect: 100-continue, a HEAD last): each answered
#       in turn.  With CA (the server's certificate), over TLS.
import http.client
import json
import socket
import ssl
import sys
import time

SRC = ("127.0.0.2", 0)


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


def flood(port, path, seconds):
    served = limited = 0
    retry = None
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=SRC)
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        c.request("POST", path, body=b"", headers={"Content-Length": "0"})
        r = c.getresponse()
        body = r.read()
        if r.status == 201:
            served += 1
        elif r.status == 429:
            err = json.loads(body).get("error")
            if err != "rate_limited":
                fail("429 %s, not rate_limited" % err)
            retry = r.getheader("Retry-After")
            if not retry or int(retry) < 1:
                fail("429 without a Retry-After of a second or more: %r" % retry)
            limited += 1
        else:
            fail("flood answered %d %s" % (r.status, body[:200]))
        if r.will_close:
            c.close()
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=SRC)
    if not limited:
        fail("%d requests in %ss, none limited" % (served, seconds))
    time.sleep(int(retry))
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=SRC)
    c.request("POST", path, body=b"", headers={"Content-Length": "0"})
    r = c.getresponse()
    if r.status != 201:
        fail("after Retry-After %s s: %d %s" % (retry, r.status, r.read()[:200]))
    print("served %d limited %d" % (served + 1, limited))


def connect(port):
    return socket.create_connection(("127.0.0.1", port), timeout=10, source_address=SRC)


def closed_by_peer(s, within):
    """Whether the verifier closes s within that many seconds (after an answer, if any)."""
    deadline = time.monotonic() + within
    try:
        while True:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            if not s.recv(4096):
                return True
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def loris(port, n, idle):
    held = []
    for i in range(n - 1):
        s = connect(port)
        s.sendall(b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Ty")
        held.append(s)
    s = connect(port)
    s.sendall(b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100\r\n\r\n{\"id\": \"half")
    held.append(s)
    time.sleep(0.5)
    extra = connect(port)
    extra.sendall(b"GET /v1/machines HTTP/1.1\r\nHost: x\r\n\r\n")
    if not closed_by_peer(extra, 2):
        fail("connection %d from one address was not refused" % (n + 1))
    start = time.monotonic()
    for i, s in enumerate(held):
        if not closed_by_peer(s, max(0.1, idle + 3 - (time.monotonic() - start))):
            fail("half-open connection %d still open after %d s" % (i, idle + 3))
    print("held %d, refused the next, all closed after %.1f s" % (n, time.monotonic() - start))


def chunked(port, path, mib):
    """A chunked body of that many MiB: a 413 as JSON, then the connection is closed."""
    s = connect(port)
    s.sendall(("POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               "Transfer-Encoding: chunked\r\n\r\n" % path).encode())
    piece = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    sent = 0
    try:
        for _ in range(mib * 16):
            s.sendall(piece)
            sent += 65536
        s.sendall(b"0\r\n\r\n")
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply, closed, deadline = b"", False, time.monotonic() + 5
    try:
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            got = s.recv(4096)
            if not got:
                closed = True
                break
            reply += got
    except ConnectionResetError:
        closed = True
    except socket.timeout:
        pass
    if not reply.startswith(b"HTTP/1.1 413") or b'"error":"too_large"' not in reply:
        fail("chunked %d MiB: no JSON 413: %r" % (mib, reply[:300]))
    if not closed:
        fail("chunked %d MiB: the connection stays open after the 413" % mib)
    print("413 after %d KiB sent, connection closed" % (sent >> 10))


def trickle(port, deadline):
    """One header line a second: the connection is closed by the whole-request deadline."""
    s = connect(port)
    s.sendall(b"GET /v1/machines HTTP/1.1\r\n")
    start = time.monotonic()
    try:
        while time.monotonic() - start < deadline + 5:
            s.sendall(b"X-Slow: 1\r\n")
            if closed_by_peer(s, 1):
                print("closed after %.1f s" % (time.monotonic() - start))
                return
    except (BrokenPipeError, ConnectionResetError):
        print("closed after %.1f s" % (time.monotonic() - start))
        return
    fail("a client sending a header line a second is still connected after %d s" % (deadline + 5))


BAD_HEADS = [
    ("a Content-Length that is no number",
     b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: abc\r\n\r\n{}"),
    ("a request line without an HTTP version", b"GET /v1/machines\r\nHost: x\r\n\r\n"),
    ("a header line without a colon", b"GET /v1/machines HTTP/1.1\r\nHost: x\r\nNo colon here\r\n\r\n"),
    ("a head over the size limit", b"GET /v1/machines HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n"),
    ("a request line over the size limit", b"GET /v1/" + b"a" * 70000 + b" HTTP/1.1\r\nHost: x\r\n\r\n"),
    ("HTTP/1.1 without Host", b"GET /v1/machines HTTP/1.1\r\n\r\n"),
    ("HTTP/9.9", b"GET /v1/machines HTTP/9.9\r\nHost: x\r\n\r\n"),
    ("both Content-Length and chunked",
     b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n"
     b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
    ("a Transfer-Encoding other than chunked",
     b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: gzip\r\n\r\n{}"),
    ("a chunk size that is no number",
     b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
     b"Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
]


def connect_to(port, ca):
    s = connect(port)
    if not ca:
        return s
    ctx = ssl.create_default_context(cafile=ca)
    return ctx.wrap_socket(s, server_hostname="127.0.0.1")


def read_to_close(s, within):
    """What the verifier sends on s until it closes it; None if it stays open that long."""
    got, deadline = b"", time.monotonic() + within
    try:
        while time.monotonic() < deadline:
            s.settimeout(max(0.01, deadline - time.monotonic()))
            piece = s.recv(65536)
            if not piece:
                return got
            got += piece
    except (ConnectionResetError, BrokenPipeError, ssl.SSLError):
        return got
    except socket.timeout:
        pass
    return None


def take_reply(data, head_only=False):
    """One response off the front of data: (status, headers, body, rest), or None while it is not
    whole; fails on what is no response."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    if not sep:
        return None
    lines = head.decode("latin-1").split("\r\n")
    words = lines[0].split(" ", 2)
    if len(words) < 2 or words[0] not in ("HTTP/1.1", "HTTP/1.0") or not words[1].isdigit():
        fail("not a status line: %r" % lines[0])
    headers = {}
    for line in lines[1:]:
        name, colon, value = line.partition(":")
        if not colon:
            fail("a response header line without a colon: %r" % line)
        headers[name.strip().lower()] = value.strip()
    n = 0 if head_only or int(words[1]) in (100, 204, 304) else int(headers.get("content-length", "-1"))
    if n < 0:
        fail("a response without a Content-Length: %r" % data[:300])
    if len(rest) < n:
        return None
    return int(words[1]), headers, rest[:n], rest[n:]


def split_reply(data, head_only=False):
    """The response data starts with, which must be whole."""
    reply = take_reply(data, head_only)
    if not reply:
        fail("no whole response: %r" % data[:300])
    return reply


def json_error(status, headers, body, what):
    if not headers.get("content-type", "").startswith("application/json"):
        fail("%s: %d of type %r: %r" % (what, status, headers.get("content-type"), body[:200]))
    try:
        doc = json.loads(body)
    except ValueError:
        fail("%s: %d with a body that is not JSON: %r" % (what, status, body[:200]))
    if not isinstance(doc, dict) or not isinstance(doc.get("error"), str) or not isinstance(doc.get("reason"), str):
        fail("%s: %d without error and reason: %r" % (what, status, body[:200]))
    return doc


def heads(port, ca):
    for what, request in BAD_HEADS:
        s = connect_to(port, ca)
        try:
            s.sendall(request)
        except (ConnectionResetError, BrokenPipeError):
            pass  # answered and closed before the whole head was sent
        data = read_to_close(s, 5)
        s.close()
        if data is None:
            fail("%s: the connection stays open" % what)
        status, headers, body, rest = split_reply(data)
        if status < 400:
            fail("%s: answered %d" % (what, status))
        doc = json_error(status, headers, body, what)
        if rest:
            fail("%s: more than one response: %r" % (what, rest[:200]))
        if headers.get("connection", "").lower() != "close":
            fail("%s: no Connection: close" % what)
        s = connect_to(port, ca)
        s.sendall(b"GET /v1/machines/nobody HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        status, headers, body, _ = split_reply(read_to_close(s, 5) or b"")
        s.close()
        if status != 404 or json_error(status, headers, body, "after " + what)["error"] != "unknown_machine":
            fail("after %s: a good request answered %d %r" % (what, status, body[:200]))
        print("%s: %d %s" % (what, status_of(data), doc["error"]))
    keep_alive(port, ca)


def status_of(data):
    return int(data.split(b" ", 2)[1])


def keep_alive(port, ca):
    """Good requests in turn on one connection, then a HEAD; the relay keeps their framing."""
    s = connect_to(port, ca)
    s.settimeout(5)
    body = b'{"id": "x"}'
    steps = [
        (b"GET /v1/machines/nobody HTTP/1.1\r\nHost: x\r\n\r\n", 404, None),
        (b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
         % (len(body), body), 400, None),
        (b"POST /v1/machines HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
         b"Expect: 100-continue\r\n\r\n" % len(body), 400, body),
        (b"GET /v1/machines/nobody/verdicts HTTP/1.1\r\nHost: x\r\n\r\n", 404, None),
    ]
    pending = b""
    for i, (request, want, after_continue) in enumerate(steps):
        s.sendall(request)
        if after_continue:
            while b"\r\n\r\n" not in pending:
                pending += s.recv(65536)
            status, _, _, pending = split_reply(pending)
            if status != 100:
                fail("keep-alive request %d: %d, not 100 Continue" % (i, status))
            s.sendall(after_continue)
        while not take_reply(pending):
            piece = s.recv(65536)
            if not piece:
                fail("keep-alive request %d: closed after %r" % (i, pending[:200]))
            pending += piece
        status, headers, got, pending = split_reply(pending)
        if status != want:
            fail("keep-alive request %d: %d, want %d: %r" % (i, status, want, got[:200]))
        json_error(status, headers, got, "keep-alive request %d" % i)
    # A HEAD's answer announces a body it does not carry: the verifier closes the connection after it,
    # so a request after it is not taken for that body.
    s.sendall(b"HEAD /v1/machines/nobody HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/machines/nobody HTTP/1.1\r\nHost: x\r\n\r\n")
    data = read_to_close(s, 5)
    if data is None:
        fail("the connection stays open after the answer to a HEAD")
    status, headers, _, rest = split_reply(pending + data, head_only=True)
    if status != 405 or headers.get("connection", "").lower() != "close":
        fail("HEAD: %d %r" % (status, headers))
    if rest:
        fail("bytes after the answer to a HEAD: %r" % rest[:200])
    print("keep-alive: %d requests answered in turn, the connection closed after a HEAD" % len(steps))


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "flood":
        flood(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "loris":
        loris(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "chunked":
        chunked(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "trickle":
        trickle(int(sys.argv[2]), int(sys.argv[3]))
    elif len(sys.argv) in (3, 4) and sys.argv[1] == "heads":
        heads(int(sys.argv[2]), sys.argv[3] if len(sys.argv) == 4 else None)
    else:
        print("usage: hostile.py flood PORT PATH SECONDS | loris PORT N IDLE | chunked PORT PATH MIB | "
              "trickle PORT DEADLINE | heads PORT [CA]")
        sys.exit(2)


main()
