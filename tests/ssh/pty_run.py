#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Run a command on a new pty, as a person at a terminal would, print everything.

usage: pty_run.py PASSWORD CMD [ARG...]
         answer one password prompt
       pty_run.py --type LINE... -- CMD [ARG...]
         type each LINE after a shell prompt, then "exit" (what is typed
         before a prompt may be flushed when a program on the way sets its
         terminal up, as tlog-rec does); a command that never prompts gets
         its next line after 15 s
exit status: the command's
"""
import os
import pty
import re
import select
import sys
import time

password, lines = None, []
if sys.argv[1] == "--type":
    sep = sys.argv.index("--")
    lines, argv = sys.argv[2:sep] + ["exit"], sys.argv[sep + 1:]
else:
    password, argv = sys.argv[1], sys.argv[2:]
prompt = re.compile(rb"[$#] (\x1b\[[0-9;?]*[a-zA-Z])*$")

pid, fd = pty.fork()
if pid == 0:
    os.execvp(argv[0], argv)
out = b""
seen = 0
last = time.monotonic()
deadline = last + 60
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
    if password is not None and b"assword:" in out:
        time.sleep(0.2)
        os.write(fd, password.encode() + b"\n")
        password = None
    if lines and (prompt.search(out[seen:]) or time.monotonic() - last > 15):
        time.sleep(0.1)
        os.write(fd, lines.pop(0).encode() + b"\n")
        seen = len(out)
        last = time.monotonic()
wpid, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
