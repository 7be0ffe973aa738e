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
import http.client
import json
import socket
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


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "flood":
        flood(int(sys.argv[2]), sys.argv[3], float(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "loris":
        loris(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    elif len(sys.argv) == 5 and sys.argv[1] == "chunked":
        chunked(int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
    elif len(sys.argv) == 4 and sys.argv[1] == "trickle":
        trickle(int(sys.argv[2]), int(sys.argv[3]))
    else:
        print("usage: hostile.py flood PORT PATH SECONDS | loris PORT N IDLE")
        sys.exit(2)


main()
