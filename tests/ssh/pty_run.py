#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run a command on a new pty, answer one password prompt, print everything.

usage: pty_run.py PASSWORD CMD [ARG...]   exit status: the command's
"""
import os
import pty
import select
import sys
import time

password, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b""
sent = False
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    r, _, _ = select.select([fd], [], [], 0.2)
    if r:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        out += data
        if not sent and b"assword:" in out:
            time.sleep(0.2)
            os.write(fd, password.encode() + b"\n")
            sent = True
wpid, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
