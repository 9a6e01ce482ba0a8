#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One system call per subcommand, for the Landlock suite (#9).

Client subcommands print one line LABEL=RESULT, where RESULT is OK or the
errno name (EPERM, EACCES, ESRCH, ...), and exit 0: the test decides.  A
client never retries and never waits more than a few seconds.

  connect-abstract LABEL NAME   connect() to the abstract unix socket @NAME
  abstract-pair LABEL NAME      bind/listen on @NAME, then a forked child
                                connects and sends a line the parent reads
  kill LABEL PID                kill(PID, 0)
  tcp-connect LABEL PORT        connect() to 127.0.0.1:PORT
  tcp-bind LABEL PORT           bind() to 127.0.0.1:PORT
  abi                           print the kernel's Landlock ABI (0: none)
  free-ports N                  print N distinct TCP ports of 127.0.0.1 that
                                were free a moment ago (bound to 0, closed)

Servers, run on the host (outside any sandbox) in the background:

  serve-abstract NAME READY     listen on @NAME; create READY once listening
  serve-tcp READY               listen on two free ports of 127.0.0.1 and
                                write "P Q" to READY once listening
  Both accept (and close) connections until killed or 120 s have passed.
"""
import ctypes
import errno
import os
import select
import socket
import sys
import time


def result(label, fn):
    try:
        fn()
    except OSError as e:
        print(f"{label}={errno.errorcode.get(e.errno, str(e.errno))}", flush=True)
        return
    print(f"{label}=OK", flush=True)


def abstract(name):
    return "\0" + name


def connect_abstract(name):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(abstract(name))


def abstract_pair(name):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as srv:
        srv.bind(abstract(name))
        srv.listen(1)
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as c:
                    c.settimeout(5)
                    c.connect(abstract(name))
                    c.sendall(b"ping\n")
                code = 0
            except OSError as e:
                print(f"child: {errno.errorcode.get(e.errno, e.errno)}", file=sys.stderr)
            os._exit(code)
        srv.settimeout(5)
        try:
            conn, _ = srv.accept()
            with conn:
                conn.settimeout(5)
                data = conn.recv(16)
        finally:
            _, status = os.waitpid(pid, 0)
        if data != b"ping\n" or os.waitstatus_to_exitcode(status) != 0:
            raise OSError(errno.EPROTO, "the child's connection failed")


def kill0(pid):
    os.kill(int(pid), 0)


def tcp_connect(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(("127.0.0.1", int(port)))


def tcp_bind(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", int(port)))


def landlock_abi():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    # landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION):
    # 444 in the generic syscall table every architecture shares here.
    abi = libc.syscall(ctypes.c_long(444), None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    print(abi if abi > 0 else 0)


def free_ports(n):
    socks = []
    for _ in range(int(n)):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    print(" ".join(str(s.getsockname()[1]) for s in socks))
    for s in socks:
        s.close()


def serve(socks, ready, text):
    for s in socks:
        s.listen(16)
    tmp = ready + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.rename(tmp, ready)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        rd, _, _ = select.select(socks, [], [], 1)
        for s in rd:
            conn, _ = s.accept()
            conn.close()


def serve_abstract(name, ready):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(abstract(name))
    serve([s], ready, name + "\n")


def serve_tcp(ready):
    socks = []
    for _ in range(2):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    serve(socks, ready, " ".join(str(s.getsockname()[1]) for s in socks) + "\n")


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "connect-abstract" and len(argv) == 4:
        result(argv[2], lambda: connect_abstract(argv[3]))
    elif cmd == "abstract-pair" and len(argv) == 4:
        result(argv[2], lambda: abstract_pair(argv[3]))
    elif cmd == "kill" and len(argv) == 4:
        result(argv[2], lambda: kill0(argv[3]))
    elif cmd == "tcp-connect" and len(argv) == 4:
        result(argv[2], lambda: tcp_connect(argv[3]))
    elif cmd == "tcp-bind" and len(argv) == 4:
        result(argv[2], lambda: tcp_bind(argv[3]))
    elif cmd == "abi" and len(argv) == 2:
        landlock_abi()
    elif cmd == "free-ports" and len(argv) == 3:
        free_ports(argv[2])
    elif cmd == "serve-abstract" and len(argv) == 4:
        serve_abstract(argv[2], argv[3])
    elif cmd == "serve-tcp" and len(argv) == 3:
        serve_tcp(argv[2])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
