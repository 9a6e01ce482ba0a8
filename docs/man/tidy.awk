# Drop the empty paragraphs scdoc emits, which mandoc -Tlint reports as
# "skipping paragraph macro": a .P right after .TH/.SH/.SS or another .P,
# right before a heading, or right before .RE (there it moves after the .RE,
# where it still separates the list items).  Nothing else changes.
function is_heading(l) { return l ~ /^\.(TH|SH|SS)( |$)/ }
function is_para(l) { return l ~ /^\.(P|PP|LP)$/ }
{
  if (is_para($0)) {
    if (!is_heading(last) && !is_para(last)) pending = 1
    next
  }
  if (pending && $0 ~ /^\.RE( |$)/) { print; last = $0; next }
  if (pending && !is_heading($0)) print ".P"
  pending = 0
  print
  if ($0 !~ /^\.\\"/) last = $0
}
