#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Listeners and probes for tests/network (#14).

  net_tool.py serve TOKEN READY TCP_PORT UDP_PORT ABSTRACT_NAME
      on the host: a TCP server on 127.0.0.1:TCP_PORT and on 0.0.0.0:TCP_PORT+1,
      a UDP server on 127.0.0.1:UDP_PORT, an abstract unix socket @ABSTRACT_NAME;
      each answers TOKEN.  Writes READY once all listen; runs until killed.
  net_tool.py tcp HOST PORT | udp HOST PORT | abstract NAME | http URL
      one probe: prints "LABEL=OK:<answer>" or "LABEL=ERR:<reason>".
  net_tool.py tcp-serve PORT TOKEN READY
      a TCP server on 127.0.0.1:PORT answering TOKEN (inside a sandbox);
      writes READY once it listens.
"""
import socket, sys, threading, urllib.request

TIMEOUT = 3.0


def answer_tcp(srv, token):
    while True:
        c, _ = srv.accept()
        try:
            c.sendall(token)
        finally:
            c.close()


def answer_udp(srv, token):
    while True:
        _, peer = srv.recvfrom(512)
        srv.sendto(token, peer)


def tcp_listener(host, port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((host, port))
    s.listen(16)
    return s


def serve(token, ready, tcp_port, udp_port, abstract):
    token = token.encode()
    threads = []
    for srv in (tcp_listener("127.0.0.1", tcp_port), tcp_listener("0.0.0.0", tcp_port + 1)):
        threads.append(threading.Thread(target=answer_tcp, args=(srv, token), daemon=True))
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    u.bind(("127.0.0.1", udp_port))
    threads.append(threading.Thread(target=answer_udp, args=(u, token), daemon=True))
    a = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    a.bind("\0" + abstract)
    a.listen(16)
    threads.append(threading.Thread(target=answer_tcp, args=(a, token), daemon=True))
    for t in threads:
        t.start()
    open(ready, "w").close()
    threading.Event().wait()


def probe(kind, args):
    label = kind
    try:
        if kind == "tcp":
            s = socket.create_connection((args[0], int(args[1])), timeout=TIMEOUT)
            data = s.recv(512)
        elif kind == "udp":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.settimeout(TIMEOUT)
            s.sendto(b"ping", (args[0], int(args[1])))
            data = s.recv(512)
        elif kind == "abstract":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(TIMEOUT)
            s.connect("\0" + args[0])
            data = s.recv(512)
        elif kind == "http":
            data = urllib.request.urlopen(args[0], timeout=TIMEOUT).read()
        else:
            raise SystemExit("unknown probe " + kind)
        print("%s=OK:%s" % (label, data.decode(errors="replace").strip()))
    except OSError as e:
        reason = getattr(e, "reason", None) or e
        print("%s=ERR:%s" % (label, reason))


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "serve":
        serve(args[0], args[1], int(args[2]), int(args[3]), args[4])
    elif cmd == "tcp-serve":
        s = tcp_listener("127.0.0.1", int(args[0]))
        open(args[2], "w").close()
        answer_tcp(s, args[1].encode())
    else:
        probe(cmd, args)


main()
