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
  net_tool.py hits LOG READY PORT [LINKLOCAL%IF]
      in "the host": TCP and UDP on [::]:PORT (dual stack) and, if given, on
      [LINKLOCAL%IF]:PORT+1; a line in LOG for every connection or datagram.
  net_tool.py spray PORT[:1] ADDR...
      from a sandbox: TCP connect and a UDP datagram to PORT and PORT+1 (or
      PORT only) of every ADDR; "LL:fe80::X" is fe80::X on every interface
      the sandbox has.
      Prints "spray=N" (attempts made).
  net_tool.py spray-until FILE PORT ADDR...
      the same, round after round, until FILE exists, then one round more.
"""
import os, socket, sys, threading, urllib.request

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


def log_hits(log, lock, srv, kind):
    while True:
        if kind == "tcp":
            c, peer = srv.accept()
            c.close()
        else:
            _, peer = srv.recvfrom(512)
        with lock:
            log.write("%s %s %s\n" % (kind, srv.getsockname()[0], peer[0]))
            log.flush()


def hits(logname, ready, port, linklocal=None):
    log, lock, socks = open(logname, "a"), threading.Lock(), []
    for kind, typ in (("tcp", socket.SOCK_STREAM), ("udp", socket.SOCK_DGRAM)):
        s = socket.socket(socket.AF_INET6, typ)
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("::", port))
        socks.append((s, kind))
        if linklocal:
            addr, ifname = linklocal.split("%")
            ll = socket.socket(socket.AF_INET6, typ)
            ll.bind((addr, port + 1, 0, socket.if_nametoindex(ifname)))
            socks.append((ll, kind))
    for s, kind in socks:
        if kind == "tcp":
            s.listen(64)
        threading.Thread(target=log_hits, args=(log, lock, s, kind), daemon=True).start()
    open(ready, "w").close()
    threading.Event().wait()


def destinations(addrs):
    for a in addrs:
        if a.startswith("LL:"):
            for _, name in socket.if_nameindex():
                yield (a[3:] + "%" + name)
        else:
            yield a


def spray(port, addrs):
    n = 0
    # "PORT:1": PORT only (a naive control need not wait out PORT+1).
    ports = (int(port[:-2]),) if port.endswith(":1") else (int(port), int(port) + 1)
    for a in destinations(addrs):
        for p in ports:
            try:
                info = socket.getaddrinfo(a, p, 0, socket.SOCK_STREAM)[0]
            except OSError:
                continue
            for typ in (socket.SOCK_STREAM, socket.SOCK_DGRAM):
                s = socket.socket(info[0], typ)
                s.settimeout(1.0)
                try:
                    if typ == socket.SOCK_STREAM:
                        s.connect(info[4])
                    else:
                        s.sendto(b"ping", info[4])
                except OSError:
                    pass
                finally:
                    s.close()
                n += 1
    return n


def main():
    if len(sys.argv) < 2:
        raise SystemExit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "serve":
        serve(args[0], args[1], int(args[2]), int(args[3]), args[4])
    elif cmd == "hits":
        hits(args[0], args[1], int(args[2]), args[3] if len(args) > 3 else None)
    elif cmd == "spray":
        print("spray=%d" % spray(args[0], args[1:]))
    elif cmd == "spray-until":
        rounds = 0
        while not os.path.exists(args[0]):
            spray(args[1], args[2:])
            rounds += 1
        spray(args[1], args[2:])
        print("rounds=%d" % (rounds + 1))
    elif cmd == "tcp-serve":
        s = tcp_listener("127.0.0.1", int(args[0]))
        open(args[2], "w").close()
        answer_tcp(s, args[1].encode())
    else:
        probe(cmd, args)


main()
