#!/usr/bin/python3
# doc_messages.py SOURCE_DIR REAL MODE
#
# Every message the documentation quotes must equal a line of REAL (what the
# program printed or logged, with the test's names already put back to the
# documents' examples).  "..." and _PLACEHOLDER_ in a quote stand for any
# text.  MODE "bwsh": every quoted line starting with "bwsh: " in
# docs/man/*.scd and docs/admin-guide.md, except the guide's pam_bwsh table;
# MODE "pam": every quote in the first column of that table.  Prints "ok N",
# or one line per quote nothing matched.
import glob
import os
import re
import sys

src, real, mode = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.rstrip("\n") for l in open(real, encoding="utf-8", errors="replace")]
guide = os.path.join(src, "docs/admin-guide.md")
quoted = []
for path in sorted(glob.glob(os.path.join(src, "docs/man/*.scd"))) + [guide]:
    section = ""
    for n, l in enumerate(open(path, encoding="utf-8"), 1):
        if l.startswith("#"):
            section = l
        in_pam = path == guide and "pam_bwsh" in section
        if mode == "pam":
            if in_pam and l.startswith("| `") or (in_pam and l.startswith("| syslog")):
                first = l.split(" | ")[0]
                quoted += [(path, n, q) for q in re.findall(r"`([^`]*)`", first)]
            continue
        if in_pam:
            continue
        if path == guide:
            quoted += [(path, n, q) for q in re.findall(r"`(bwsh: [^`]*)`", l)]
        s = l.strip()
        if s.startswith("bwsh: ") and (path.endswith(".scd") or not l.startswith("|")):
            quoted.append((path, n, s.rstrip("+").rstrip()))

bad = []
for path, n, q in quoted:
    rx = re.escape(q.replace("\\\\", "\\"))
    rx = rx.replace(re.escape("..."), ".*")
    rx = re.sub(r"_[A-Za-z]+_", ".+", rx)
    if not any(re.fullmatch(rx, l) for l in lines):
        bad.append("%s:%d: %s" % (os.path.relpath(path, src), n, q))
if not quoted:
    bad.append("no quoted message found: the extraction is broken")
print("\n".join(bad) if bad else "ok %d" % len(quoted))
