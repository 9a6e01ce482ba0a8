#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Type lines into a command on a new pty, each after a shell prompt, as a
person would (what is typed before a prompt may be flushed when a program
on the way sets its terminal up, which is true of tlog-rec).

usage: pty_type.py LINE... -- CMD [ARG...]
Prints everything the pty showed; exit status: the command's.  After the
last line, "exit" is typed; a command that never prompts gets its lines
after 15 s.
"""
import os
import pty
import re
import select
import sys
import time

sep = sys.argv.index("--")
lines, argv = sys.argv[1:sep] + ["exit"], sys.argv[sep + 1:]
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
    if lines and (prompt.search(out[seen:]) or time.monotonic() - last > 15):
        time.sleep(0.1)
        os.write(fd, lines.pop(0).encode() + b"\n")
        seen = len(out)
        last = time.monotonic()
wpid, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(st))
