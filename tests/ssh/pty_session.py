#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Drive `ssh -tt` through a real pty, like a person at a terminal.

usage: pty_session.py SSH_CONFIG HOME

Checks, each printed as "ok: ..." or "FAIL: ...": a prompt; `tty` names a
/dev/pts device; the initial window size and a resize (SIGWINCH) reach the
inner shell; job control (Ctrl-Z, jobs, bg, fg); Ctrl-C interrupts a
foreground sleep; the session is the sandbox; the login says once where
work is kept ($BWSH_PTY_NOTICE, or the kept state's line); ~/notes.txt is
written; exit ends ssh with status 0.
"""
import fcntl
import os
import pty
import re
import select
import struct
import sys
import termios
import time

cfg, home = sys.argv[1], sys.argv[2]
failed = False
buf = b""


def winsize(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


pid, fd = pty.fork()
if pid == 0:
    winsize(0, 24, 80)
    os.execvp("ssh", ["ssh", "-tt", "-F", cfg, "t"])


def expect(pattern, timeout=15.0):
    """Read until the regex matches what arrived since the last match."""
    global buf
    deadline = time.monotonic() + timeout
    rx = re.compile(pattern.encode())
    while True:
        m = rx.search(buf)
        if m:
            buf = buf[m.end():]
            return m
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        r, _, _ = select.select([fd], [], [], left)
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:
                data = b""
            if not data:
                m = rx.search(buf)
                return m
            buf += data


def send(s):
    os.write(fd, s.encode() if isinstance(s, str) else s)


def foreground_sleep(timeout=15.0):
    """Wait until the user's `sleep 300` is the foreground job of its
    terminal (its process group is the terminal's): only then do Ctrl-Z and
    Ctrl-C reach it rather than the shell that is starting it."""
    uid = os.stat(home).st_uid
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for p in os.listdir("/proc"):
            if not p.isdigit():
                continue
            try:
                if os.stat("/proc/" + p).st_uid != uid:
                    continue
                with open("/proc/%s/cmdline" % p, "rb") as f:
                    if f.read() != b"sleep\0" + b"300\0":
                        continue
                with open("/proc/%s/stat" % p) as f:
                    st = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # Fields 5 and 8 of stat: pgrp and tpgid (st[0] is field 3).
            if st[0] != "Z" and st[2] == st[5]:
                return True
        time.sleep(0.05)
    return False


def check(name, ok, detail=""):
    global failed
    print(("ok: " if ok else "FAIL: ") + name + ("" if ok else f" ({detail!r}; pending output {buf[-400:]!r})"))
    sys.stdout.flush()
    if not ok:
        failed = True


# The marker trick: the command line echoes "M$((1+N))M", only the shell's
# evaluation prints "M<N+1>M", so a match is the shell's answer, not the echo.
seq = [0]


def run(cmd, timeout=15.0):
    seq[0] += 1
    n = seq[0] * 1000
    send(f"{cmd}; echo M$(({n}+1))M\r")
    m = expect(rf"([\s\S]*?)M{n + 1}M", timeout)
    return None if m is None else m.group(1).decode(errors="replace")


m = expect(r"([\s\S]*?)[$#] $", 20)
check("a prompt appears", m is not None)
# Where work is kept, once, at login (issue 38).
greeting = m.group(1).decode(errors="replace") if m is not None else ""
# The shipped state = "persistent"; BWSH_PTY_NOTICE names another state's line.
notice = os.environ.get("BWSH_PTY_NOTICE") or (
    f"bwsh: what you save in the home is kept for your next login (in {home}/.local/state/bwsh); "
    f"{home}/project is the real directory, the rest of your real home is read-only")
check("the login says once where work is kept", greeting.count(notice) == 1, greeting)
send("PS1='P> '; PROMPT_COMMAND=; set +o history\r")
check("the prompt can be set", expect(r"P> $") is not None)

# bwrap --dev gives the sandbox its own devpts, where the host's /dev/pts/N
# does not exist, and binds the session's terminal at /dev/console: that is
# the name tty finds.  What matters is that it answers, and with the very
# device that is the shell's stdin.  SSH_TTY says the same.
out = run("t=$(tty); echo tty-rc=$? name=$t; [ \"$SSH_TTY\" = \"$t\" ] && echo ssh-tty-agrees; "
          "[ \"$(stat -L -c %t:%T:%i \"$t\")\" = \"$(stat -L -c %t:%T:%i /dev/stdin)\" ] && echo same-device")
check("tty answers with the session's terminal",
      out is not None and "tty-rc=0 name=/dev/" in out and "same-device" in out and "ssh-tty-agrees" in out, out)

out = run("cat /proc/1/comm; test -w ~/.ssh && echo ssh-writable || echo ssh-ro")
check("the interactive session is the sandbox", out is not None and "bwrap" in out and "ssh-ro" in out, out)

# No silent loss in the home (#38): what the session saves there succeeds
# and is kept (the caller looks at the next login), or the login said it
# is not (the notice above).
out = run("echo saved-at-the-terminal > ~/notes.txt; echo write-rc=$?")
check("~/notes.txt is written (status 0)", out is not None and "write-rc=0" in out, out)

out = run("stty size")
check("the initial window size reaches the shell", out is not None and "24 80" in out, out)
winsize(fd, 40, 123)
# The resize travels to sshd beside what is typed, not before it: ask until
# the new size is there (a state), not once after a delay.
deadline = time.monotonic() + 15
out = run("stty size")
while out is not None and "40 123" not in out and time.monotonic() < deadline:
    out = run("stty size")
check("a window resize reaches the shell", out is not None and "40 123" in out, out)
out = run("echo lines=$LINES cols=$COLUMNS")
check("bash saw SIGWINCH ($LINES/$COLUMNS)", out is not None and "lines=40 cols=123" in out, out)

send("sleep 300\r")
check("sleep 300 becomes the foreground job", foreground_sleep())
send(b"\x1a")
check("Ctrl-Z stops the foreground job", expect(r"Stopped\s+sleep 300") is not None)
out = run("jobs")
check("jobs lists it stopped", out is not None and re.search(r"\[1\]\+\s+Stopped\s+sleep 300", out) is not None, out)
out = run("bg")
check("bg resumes it in the background", out is not None and "sleep 300 &" in out, out)
out = run("jobs")
check("jobs lists it running", out is not None and re.search(r"\[1\]\+\s+Running\s+sleep 300", out) is not None, out)
send("fg\r")
check("fg brings it back", expect(r"sleep 300\r?\n") is not None)
check("... into the foreground", foreground_sleep())
t0 = time.monotonic()
send(b"\x03")
check("Ctrl-C ends the job fg brought back", expect(r"P> $", 10) is not None)
out = run("echo status=$?")
check("... with SIGINT (status 130)", out is not None and "status=130" in out, out)

send("sleep 300\r")
check("sleep 300 becomes the foreground job again", foreground_sleep())
t0 = time.monotonic()
send(b"\x03")
back = expect(r"P> $", 10)
check("Ctrl-C interrupts a foreground sleep", back is not None and time.monotonic() - t0 < 5)
out = run("echo status=$?")
check("... with SIGINT (status 130)", out is not None and "status=130" in out, out)

send("exit\r")
deadline = time.monotonic() + 15
status = None
while time.monotonic() < deadline:
    try:
        os.read(fd, 65536)
    except OSError:
        pass
    wpid, st = os.waitpid(pid, os.WNOHANG)
    if wpid == pid:
        status = os.waitstatus_to_exitcode(st)
        break
    time.sleep(0.1)
if status is None:
    os.kill(pid, 9)
    os.waitpid(pid, 0)
check("exit ends the session with status 0", status == 0, status)
sys.exit(1 if failed else 0)
