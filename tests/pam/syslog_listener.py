#!/usr/bin/python3
# A stand-in for the syslog daemon: receive datagrams on SOCKET (bound in a
# private mount namespace over /dev/log) and append each to LOGFILE as one
# line.  Started and stopped (by its pid) by lib.sh.
import os
import socket
import sys

sock_path, log_path = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sock_path)
os.chmod(sock_path, 0o666)  # bwsh logs as the unprivileged user
with open(log_path, "ab", buffering=0) as log:
    open(log_path + ".ready", "w").close()
    while True:
        data = s.recv(65536)
        log.write(data.replace(b"\n", b"\\n") + b"\n")
