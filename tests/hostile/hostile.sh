# SPDX-License-Identifier: GPL-2.0-or-later
# shellcheck shell=bash
#
# Shared by the tests/hostile drivers: the integration harness
# (tests/integration/lib.sh: the installed bwsh, a real unprivileged user)
# plus one runner that puts a hostile user configuration in place and
# checks both front ends on it:
#   - `bwshctl check --user-config FILE`, as the user: exit code and message;
#   - a real session, `bwsh -c CHECK`, as the user: the same message on
#     stderr, and CHECK proves it ran inside the sandbox (a host-only marker
#     is invisible, /usr is not writable, / is a tmpfs).
# Every run is bounded by $H_TIMEOUT seconds: a hang is a failure.

. "$(dirname "${BASH_SOURCE[0]}")/../integration/lib.sh"

H_TIMEOUT=20

# h_setup: the harness, the user, and what the cases refer to.
h_setup()
{
  it_setup
  it_skip_unless_bwrap
  H_CTL=$IT_PREFIX/bin/bwshctl
  [ -x "$H_CTL" ] || { it_fail "$H_CTL is not installed"; exit 1; }
  H_CFG=$IT_HOME/.config/bwsh/config.json
  # On the host only: visible inside means the session was not sandboxed.
  H_MARKER=$IT_TMP/host-only-marker
  : >"$H_MARKER"
  chmod 644 "$H_MARKER"
  H_SANDBOX_CHECK="if test -e $H_MARKER || test -w /usr || test -w /etc || test \"\$(stat -f -c %T /)\" != tmpfs; then echo UNSANDBOXED; else echo SANDBOXED; fi"
  # Premise: outside the sandbox the check does say UNSANDBOXED.
  h_as_user bash -c "$H_SANDBOX_CHECK"
  [ "$IT_OUT" = UNSANDBOXED ] || { it_fail "the sandbox check does not detect the host ($IT_OUT)"; exit 1; }
  it_as_user mkdir -p "$IT_HOME/.config/bwsh" "$IT_HOME/.ssh" "$IT_HOME/a" "$IT_HOME/norm-rw" \
    "$IT_HOME/writable-project" "$IT_HOME/project"
  # "$HOME"2: a sibling whose name extends $HOME (/home/al against /home/a).
  mkdir -p "${IT_HOME}2/p" "${IT_HOME}2/a"
  it_defer rm -rf "${IT_HOME}2"
}

# h_as_user CMD...: like it_as_user with the shorter timeout; stdout and
# stderr stay apart in IT_OUT/IT_ERR.
h_as_user()
{
  IT_RC=0
  timeout -k 2 "$H_TIMEOUT" setpriv --reuid="$IT_UID" --regid="$IT_GID" --init-groups \
    "$@" </dev/null >"$IT_TMP/out" 2>"$IT_TMP/err" || IT_RC=$?
  it_collect
  # shellcheck disable=SC2015 # fails on either timeout status
  [ "$IT_RC" != 124 ] && [ "$IT_RC" != 137 ] || it_fail "timed out after $H_TIMEOUT s: $*"
}

# h_subst TEXT: the placeholders of the corpus.
h_subst()
{
  local s=$1
  s=${s//@HOME@/$IT_HOME}
  s=${s//@CFG@/$H_CFG}
  printf '%s' "$s"
}

# h_put_config FILE: copy FILE (placeholders replaced, bytes kept) to the
# user's config, owned by the user, mode 0644, one link.
h_put_config()
{
  it_as_user rm -rf "$H_CFG"
  LC_ALL=C sed -e "s|@HOME@|$IT_HOME|g" "$1" >"$IT_TMP/config.json"
  chmod 644 "$IT_TMP/config.json"
  it_as_user cp "$IT_TMP/config.json" "$H_CFG"
  [ "$IT_RC" = 0 ] || it_fail "cannot install the config: $IT_ERR"
}

# h_expect OUTCOME LINES...: run both front ends on what is at $H_CFG now
# and check them.  LINES are "key: value" as in configs/*.expect:
#   outcome: accepted | accepted-path | entry-refused | warning | ignored-file | refused-file | missing
#   message: S        S (placeholders replaced) in bwshctl's output and bwsh's stderr
#   check-message: S  only in bwshctl's output;  session-message: S  only in bwsh's stderr
#   absent: S         in neither;  absent-line: S  no output line starts with S
#   inside: CMD       run CMD in the session first;  inside-out: S  its output starts with S
h_expect()
{
  local outcome='' line key val ctl_out ses_err inside='' inside_out='' want_check_rc
  local -a messages=() check_messages=() session_messages=() absents=() absent_lines=()
  for line in "$@"; do
    key=${line%%:*}
    val=${line#*: }
    val=$(h_subst "$val")
    case $key in
      outcome) outcome=$val ;;
      message) messages+=("$val") ;;
      check-message) check_messages+=("$val") ;;
      session-message) session_messages+=("$val") ;;
      absent) absents+=("$val") ;;
      absent-line) absent_lines+=("$val") ;;
      inside) inside=$val ;;
      inside-out) inside_out=$val ;;
      '' | '#'*) ;;
      *) it_fail "unknown expectation '$line'" ;;
    esac
  done

  # 1. bwshctl check, as the user.
  h_as_user "$H_CTL" check --user-config "$H_CFG"
  ctl_out=$IT_OUT$'\n'$IT_ERR
  case $outcome in
    accepted | accepted-path) want_check_rc=0 ;;
    missing) want_check_rc=1 ;;
    *) want_check_rc=1 ;;
  esac
  [ "$IT_RC" = "$want_check_rc" ] || { it_fail "bwshctl check exited $IT_RC, expected $want_check_rc"; it_show; }
  if [ "$want_check_rc" = 0 ]; then
    case $IT_OUT in *"$H_CFG: user configuration valid"*) ;; *) it_fail "bwshctl check did not call it valid"; it_show ;; esac
  fi

  # 2. a real session, as the user.
  h_as_user "$IT_BWSH" -c "${inside:+$inside; }$H_SANDBOX_CHECK"
  ses_err=$IT_ERR
  [ "$IT_RC" = 0 ] || { it_fail "the session exited $IT_RC, expected 0 (refused entries never fail a login)"; it_show; }
  case $IT_OUT in
    *UNSANDBOXED*) it_fail "THE SESSION RAN UNSANDBOXED"; it_show ;;
    *SANDBOXED) ;;
    *) it_fail "the session did not run the check"; it_show ;;
  esac
  if [ -n "$inside_out" ]; then
    case $IT_OUT in "$inside_out"*) ;; *) it_fail "inside: '$inside' printed '${IT_OUT%%$'\n'*}', expected '$inside_out'"; it_show ;; esac
  fi
  case $outcome in
    accepted | accepted-path)
      case $ses_err in *"bwsh: warning"*) it_fail "an accepted config gave a warning"; it_show ;; esac ;;
    missing)
      case $ses_err in *"bwsh: warning"*) it_fail "a missing config gave a warning"; it_show ;; esac ;;
    ignored-file | refused-file)
      case $ses_err in *"; user configuration ignored"*) ;; *) it_fail "bwsh did not say the file was ignored"; it_show ;; esac ;;
    entry-refused | warning)
      case $ses_err in *"bwsh: warning: "*) ;; *) it_fail "bwsh gave no warning"; it_show ;; esac ;;
    *) it_fail "unknown outcome '$outcome'" ;;
  esac

  for val in "${messages[@]}" "${check_messages[@]}"; do
    case $ctl_out in *"$val"*) ;; *) it_fail "bwshctl check output lacks '$val'"; printf '    output: %s\n' "$ctl_out" >&2 ;; esac
  done
  for val in "${messages[@]}" "${session_messages[@]}"; do
    case $ses_err in *"bwsh: warning: "*"$val"*) ;; *) it_fail "bwsh's warnings lack '$val'"; printf '    stderr: %s\n' "$ses_err" >&2 ;; esac
  done
  for val in "${absents[@]}"; do
    case $ctl_out$ses_err in *"$val"*) it_fail "the hostile content '$val' leaked into a message"; printf '    %s\n%s\n' "$ctl_out" "$ses_err" >&2 ;; esac
  done
  for val in "${absent_lines[@]}"; do
    if printf '%s\n%s\n' "$ctl_out" "$ses_err" \
      | S=$val awk 'index($0, ENVIRON["S"]) == 1 { found = 1 } END { exit !found }'; then
      it_fail "a message line starts with '$val': a forged log line"
    fi
  done
}
