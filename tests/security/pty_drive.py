#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run a command on a fresh pseudo-terminal, driven by a small script.

    pty_drive.py SCRIPT ARGV...

The child is a session leader whose controlling terminal is the pty slave,
as a login on a real terminal would be: TIOCSTI, job control and Ctrl-C all
act on it.  SCRIPT holds one directive per line:

    send TEXT      write TEXT to the terminal (Python escapes: \\n, \\x03)
    expect REGEX   wait (20 s at most) until the output after the previous
                   match matches REGEX
    wait-file PATH wait (20 s at most) until PATH exists: a state another
                   writer to the terminal reached (its typing is over)
    sleep SECONDS
    # ...          a comment

When the script ends, pty_drive.py waits for the child to exit (30 s at most),
prints the whole transcript on stdout and exits with the child's status
(128+N for a signal).  A timeout prints the transcript and exits 124, and
the child's process group is killed.
"""
import codecs
import fcntl
import os
import pty
import re
import select
import signal
import struct
import sys
import termios
import time

out = bytearray()
pos = 0


def pump(fd, until):
    """Read output until the deadline; False when the child closed the pty."""
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return True
        r, _, _ = select.select([fd], [], [], min(left, 0.1))
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                return False
            if not data:
                return False
            out.extend(data)


def finish(code, pid):
    sys.stdout.write(out.decode("utf-8", "replace"))
    sys.stdout.flush()
    if code == 124:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    sys.exit(code)


def main():
    global pos
    if len(sys.argv) < 3:
        sys.stderr.write("usage: pty_drive.py SCRIPT ARGV...\n")
        sys.exit(2)
    with open(sys.argv[1], encoding="utf-8") as f:
        lines = f.read().splitlines()

    pid, fd = pty.fork()
    if pid == 0:
        os.environ["TERM"] = "dumb"
        try:
            os.execvp(sys.argv[2], sys.argv[2:])
        finally:
            os._exit(127)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))

    alive = True
    for line in lines:
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        word, _, arg = line.partition(" ")
        if word == "send":
            os.write(fd, codecs.decode(arg, "unicode_escape").encode("latin-1"))
        elif word == "wait-file":
            deadline = time.monotonic() + 20
            while not os.path.lexists(arg):
                if time.monotonic() >= deadline or not alive:
                    sys.stderr.write("pty_drive.py: timed out waiting for %s\n" % arg)
                    finish(124, pid)
                alive = pump(fd, min(deadline, time.monotonic() + 0.1))
        elif word == "sleep":
            alive = pump(fd, time.monotonic() + float(arg)) and alive
        elif word == "expect":
            rx = re.compile(arg.encode())
            deadline = time.monotonic() + 20
            while True:
                m = rx.search(bytes(out), pos)
                if m:
                    pos = m.end()
                    break
                if time.monotonic() >= deadline or not alive:
                    sys.stderr.write("pty_drive.py: timed out expecting %r\n" % arg)
                    finish(124, pid)
                alive = pump(fd, min(deadline, time.monotonic() + 0.2))
        else:
            sys.stderr.write("pty_drive.py: bad directive %r\n" % line)
            finish(2, pid)

    deadline = time.monotonic() + 30
    status = None
    while status is None:
        wpid, st = os.waitpid(pid, os.WNOHANG)
        if wpid == pid:
            status = st
            break
        if time.monotonic() >= deadline:
            sys.stderr.write("pty_drive.py: the child did not exit\n")
            finish(124, pid)
        pump(fd, time.monotonic() + 0.1)
    pump(fd, time.monotonic() + 0.2)
    finish(os.waitstatus_to_exitcode(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status), pid)


main()
