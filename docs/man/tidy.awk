# Two fixes to what scdoc emits, nothing else:
# - drop the empty paragraphs that mandoc -Tlint reports as "skipping
#   paragraph macro": a .P right after .TH/.SH/.SS or another .P, right
#   before a heading, or right before .RE (there it moves after the .RE,
#   where it still separates the list items);
# - a page with a table (.TS) starts with the '\" t line that tells man(1)
#   to run tbl; without it groff warns "tbl preprocessor failed" (lintian's
#   groff-message on Debian 13).
function is_heading(l) { return l ~ /^\.(TH|SH|SS)( |$)/ }
function is_para(l) { return l ~ /^\.(P|PP|LP)$/ }
function out(l) { lines[n++] = l }
{
  if ($0 ~ /^\.TS( |$)/) table = 1
  if (is_para($0)) {
    if (!is_heading(last) && !is_para(last)) pending = 1
    next
  }
  if (pending && $0 ~ /^\.RE( |$)/) { out($0); last = $0; next }
  if (pending && !is_heading($0)) out(".P")
  pending = 0
  out($0)
  if ($0 !~ /^\.\\"/) last = $0
}
END {
  if (table) print "'\\\" t"
  for (i = 0; i < n; i++) print lines[i]
}
