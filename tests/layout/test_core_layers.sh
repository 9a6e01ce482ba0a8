#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# core/'s headers and layers (issue 34):
#   - every function a file of core/ exports is declared in the header named
#     for that file (X.c: X.h); the files of a module of several share its
#     face: plan/*.c plan.h or plan_internal.h, policy/policy*.c policy.h
#     or policy_internal.h;
#   - no file of core/ includes bwshcore.h (the front ends' umbrella);
#   - core/ is five folders in layers, base < policy < plan < launch <
#     session: a file includes headers of its own folder and those below,
#     never one above, and no source sits outside them;
#   - docs/design.md's "Files" map names every source of core/, shell/,
#     pam_module/ and helpers/ (a header may go under its file's name).
# Control: each rule is broken once in a copy of the tree, and the check
# must say so; then the real tree must pass.
#
#   test_core_layers.sh SOURCE_DIR
set -eu
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

layers='base policy plan launch session'

rank() {
  n=1
  for l in $layers; do
    [ "$l" = "$1" ] && { echo "$n"; return; }
    n=$((n + 1))
  done
  echo 0
}

# What a .c file defines with external linkage: a line that starts with a
# name and " (" (GNU style puts the type on the line above) after a line
# that is not "static", blank, a preprocessor line or a declaration.  A
# name in capitals is a macro's use (policy.c's ENUM_NAMES), not a definition.
defs_of() {
  awk 'prev !~ /^static/ && prev !~ /;[[:space:]]*$/ && prev !~ /^[[:space:]]*$/ && prev !~ /^#/ \
       && /^[A-Za-z_][A-Za-z0-9_]* \(/ && !/^[A-Z_][A-Z0-9_]* \(/ { name = $0; sub(/ \(.*/, "", name); print name }
       { prev = $0 }' "$1"
}

# check ROOT: 0 when ROOT keeps every rule, else 1 with one line per break.
check() {
  root=$1
  bad=0

  # -------------------------------------------- no source outside a layer
  for f in "$root"/core/*.c "$root"/core/*.h; do
    [ -e "$f" ] || continue
    [ "${f##*/}" = bwshcore.h ] && continue
    echo "FAIL: ${f#"$root"/} is in no layer of core/ ($layers)"
    bad=1
  done
  for d in "$root"/core/*/; do
    d=${d%/}
    if [ "$(rank "${d##*/}")" = 0 ]; then
      echo "FAIL: core/${d##*/}/ is not a layer of core/ ($layers)"
      bad=1
    fi
  done

  # --------------------------------- each export declared in its header
  # One awk over every header (what each declares) and every .c (what it
  # exports, as defs_of() finds it).
  awk -v root="$root/" '
    function dir_of(p) { sub(/\/[^\/]*$/, "", p); return p }
    function layer_of(p) { p = dir_of(p); sub(/.*\//, "", p); return p }
    function stem(p) { sub(/.*\//, "", p); sub(/\.[ch]$/, "", p); return p }
    FNR == 1 { prev = "" }
    FILENAME ~ /\.h$/ {
      s = $0
      while (match(s, /[A-Za-z_][A-Za-z0-9_]* \(/)) {
        decl[substr(s, RSTART, RLENGTH - 2), FILENAME] = 1
        where[substr(s, RSTART, RLENGTH - 2)] = where[substr(s, RSTART, RLENGTH - 2)] " " substr(FILENAME, length(root) + 1)
        s = substr(s, RSTART + RLENGTH)
      }
      next
    }
    prev !~ /^static/ && prev !~ /;[[:space:]]*$/ && prev !~ /^[[:space:]]*$/ && prev !~ /^#/ \
      && /^[A-Za-z_][A-Za-z0-9_]* \(/ && !/^[A-Z_][A-Z0-9_]* \(/ {
      name = $0; sub(/ \(.*/, "", name)
      d = dir_of(FILENAME); l = layer_of(FILENAME); b = stem(FILENAME)
      if (!(l "/" b "/" name == "launch/seccomp_gen/main")) {
        ok = ((name, d "/" b ".h") in decl)
        if (l == "plan") ok = ok || ((name, d "/plan.h") in decl) || ((name, d "/plan_internal.h") in decl)
        if (l == "policy" && b ~ /^policy(_|$)/)
          ok = ok || ((name, d "/policy.h") in decl) || ((name, d "/policy_internal.h") in decl)
        if (!ok) {
          w = where[name]; sub(/^ /, "", w)
          printf "FAIL: %s, exported by core/%s/%s.c, is declared in %s, not in core/%s/%s.h\n", \
                 name, l, b, (w == "" ? "no header" : w), l, b
          bad = 1
        }
      }
    }
    { prev = $0 }
    END { exit bad }
  ' "$root"/core/*.h "$root"/core/*/*.h "$root"/core/*/*.c || bad=1

  # ------------------------------- includes: no umbrella, never upwards
  for h in "$root"/core/*/*.h; do
    hdir=${h%/*}
    echo "${h##*/} ${hdir##*/} $(rank "${hdir##*/}")"
  done >"$tmp/headers"
  for l in $layers; do echo "$l $(rank "$l")"; done >"$tmp/ranks"
  awk -v root="$root/" -v layers="$layers" '
    FILENAME == ARGV[1] { hl[$1] = $2; hr[$1] = $3; next }
    FILENAME == ARGV[2] { lr[$1] = $2; next }
    /^[[:space:]]*#[[:space:]]*include[[:space:]]*"/ {
      inc = $0; sub(/^[^"]*"/, "", inc); sub(/".*/, "", inc); sub(/.*\//, "", inc)
      if (inc == "config.h") next
      f = substr(FILENAME, length(root) + 1)
      l = f; sub(/^core\//, "", l); sub(/\/.*/, "", l)
      if (inc == "bwshcore.h") { printf "FAIL: %s includes bwshcore.h: include the headers it uses\n", f; bad = 1; next }
      if (!(inc in hl)) { printf "FAIL: %s includes \"%s\", no header of core/\n", f, inc; bad = 1; next }
      if (hr[inc] > lr[l]) {
        printf "FAIL: %s (%s/) includes core/%s/%s, a layer above it (%s)\n", f, l, hl[inc], inc, layers
        bad = 1
      }
    }
    END { exit bad }
  ' "$tmp/headers" "$tmp/ranks" "$root"/core/*/*.c "$root"/core/*/*.h || bad=1

  # ------------------------------------ docs/design.md's map is complete
  map=$(sed -n '/^## Files/,/^## /p' "$root/docs/design.md")
  for f in "$root"/core/*.h "$root"/core/*/*.[ch] "$root"/shell/*.[ch] "$root"/pam_module/*.[ch] \
           "$root"/helpers/*.[ch]; do
    [ -e "$f" ] || continue
    rel=${f#"$root"/}
    printf '%s\n' "$map" | grep -Eq "(^|[[:space:]])$rel([[:space:]]|$)" && continue
    case $rel in
      *.h) printf '%s\n' "$map" | grep -Eq "(^|[[:space:]])${rel%.h}\\.c([[:space:]]|$)" && [ -e "${f%.h}.c" ] \
             && continue ;;
    esac
    echo "FAIL: docs/design.md's \"Files\" map does not name $rel"
    bad=1
  done
  return "$bad"
}

# A copy of what the check reads, for the controls.
copy() {
  rm -rf "$tmp/tree"
  mkdir -p "$tmp/tree/docs"
  cp -R "$src/core" "$src/shell" "$src/pam_module" "$src/helpers" "$tmp/tree/"
  cp "$src/docs/design.md" "$tmp/tree/docs/"
}

# control WHAT EXPECTED: the check fails on the planted copy and says EXPECTED.
control() {
  if check "$tmp/tree" >"$tmp/out"; then
    echo "FAIL: control ($1): the check passes a tree that breaks the rule" >&2
    exit 1
  fi
  if ! grep -qF "$2" "$tmp/out"; then
    cat "$tmp/out" >&2
    echo "FAIL: control ($1): the check does not say \"$2\"" >&2
    exit 1
  fi
  echo "ok: control ($1) caught: $(grep -F "$2" "$tmp/out" | head -n 1)"
}

copy
printf '\nint\nbwsh_planted (void)\n{\n  return 0;\n}\n' >>"$tmp/tree/core/base/path.c"
printf '\nint bwsh_planted (void);\n' >>"$tmp/tree/core/base/errors.h"
control "an export declared in another file's header" \
  "bwsh_planted, exported by core/base/path.c, is declared in core/base/errors.h, not in core/base/path.h"

copy
sed -i 's/^#include "path.h"$/#include "bwshcore.h"/' "$tmp/tree/core/base/path.c"
control "a core file includes the umbrella" "core/base/path.c includes bwshcore.h"

copy
sed -i 's/^#include "path.h"$/#include "path.h"\n#include "session.h"/' "$tmp/tree/core/base/path.c"
control "an include of a layer above" "core/base/path.c (base/) includes core/session/session.h, a layer above it"

copy
cp "$src/core/base/grow.c" "$tmp/tree/core/planted.c"
control "a source outside the layers" "core/planted.c is in no layer of core/"

copy
sed -i '\|^core/base/procstat.c |d' "$tmp/tree/docs/design.md"
control "a file missing from the map" "docs/design.md's \"Files\" map does not name core/base/procstat.c"

if ! check "$src" >"$tmp/out"; then
  cat "$tmp/out" >&2
  echo "FAIL: core/'s headers or layers, or docs/design.md's map (see above)" >&2
  exit 1
fi
echo "ok: each export declared in its file's header, no umbrella in core/, no include upwards ($layers), docs/design.md maps every source"
