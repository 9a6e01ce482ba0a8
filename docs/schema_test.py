#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""conf/config.schema.json against what bwsh accepts and refuses.

Usage: schema_test.py SCHEMA EXAMPLE

The schema is for editors; these cases keep it honest: every document bwsh's
parser and path rules refuse outright must fail the schema, and the shipped
example and the seed format must pass.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("python3-jsonschema is missing (apt-get install python3-jsonschema)")
    sys.exit(1)

schema = json.load(open(sys.argv[1]))
example = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
v = jsonschema.Draft202012Validator(schema)


def mounts(**kw):
    return {"preferences": {"sandboxBwrapMounts": kw}}


valid = {
    "shipped example": example,
    "seed format": mounts(additionalROBinds=["/extra/data"],
                          additionalBinds=["/home/user/writable-project"],
                          disabledDefaultBinds=["/home/user"]),
    "src/dst object": mounts(additionalBinds=[{"src": "/home/u/a", "dst": "/home/u/b"}]),
    "src only object": mounts(additionalROBinds=[{"src": "/opt/x"}]),
    "project dir": {"preferences": {"sandboxProjectDir": "/home/u/work"}},
    "empty": {},
    "other top-level keys are ignored by bwsh": {"editor": "vim", "preferences": {}},
    "dotfile is not dotdot": mounts(additionalROBinds=["/home/u/..hidden", "/home/u/.config"]),
    "/devices is not /dev": mounts(additionalROBinds=["/devices", "/system", "/process"]),
}
invalid = {
    "not an object": [],
    "preferences not an object": {"preferences": []},
    "mounts not an object": {"preferences": {"sandboxBwrapMounts": []}},
    "misspelt key": mounts(additionalRoBinds=["/opt"]),
    "list is a string": mounts(additionalBinds="/home/u/x"),
    "relative path": mounts(additionalROBinds=["opt/tools"]),
    "empty path": mounts(additionalROBinds=[""]),
    "dotdot escape": mounts(additionalBinds=["/home/u/../../etc"]),
    "trailing dotdot": mounts(additionalBinds=["/home/u/.."]),
    "root": mounts(additionalROBinds=["/"]),
    "double slash root": mounts(additionalROBinds=["//"]),
    "proc": mounts(additionalROBinds=["/proc"]),
    "under proc": mounts(additionalROBinds=["/proc/1/root"]),
    "under dev": mounts(additionalBinds=["/dev/sda"]),
    "sys": mounts(additionalROBinds=["//sys/kernel"]),
    "newline in path": mounts(additionalROBinds=["/opt/a\nb"]),
    "tab in path": mounts(additionalROBinds=["/opt/a\tb"]),
    "NUL in path": mounts(additionalROBinds=["/opt/a\u0000b"]),
    "over-long path": mounts(additionalROBinds=["/" + "a" * 4095]),
    "object with unknown key": mounts(additionalBinds=[{"src": "/home/u/a", "mode": "rw"}]),
    "object without src": mounts(additionalBinds=[{"dst": "/home/u/a"}]),
    "object dst into proc": mounts(additionalROBinds=[{"src": "/opt/a", "dst": "/proc/sys"}]),
    "disabled as object": mounts(disabledDefaultBinds=[{"src": "/home/u"}]),
    "number entry": mounts(additionalROBinds=[7]),
    "project dir relative": {"preferences": {"sandboxProjectDir": "work"}},
    "project dir number": {"preferences": {"sandboxProjectDir": 1}},
}

failed = 0
for name, doc in valid.items():
    errors = list(v.iter_errors(doc))
    if errors:
        failed += 1
        print(f"FAIL: {name}: refused: {errors[0].message}")
for name, doc in invalid.items():
    if v.is_valid(doc):
        failed += 1
        print(f"FAIL: {name}: accepted")
print(f"{len(valid)} valid and {len(invalid)} invalid documents, {failed} failures")
sys.exit(1 if failed else 0)
