/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* unit_skip(): a skip, unless CI=true, where it is a failure.  CTest runs
 * this twice: as is (passes, skipped) and with CI=true (must fail). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "unit.h"

static void
test_skip_is_a_failure_only_in_ci (void **state)
{
  (void) state;
  unit_skip ("this test always skips");
}

int
main (void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test (test_skip_is_a_failure_only_in_ci),
  };
  return cmocka_run_group_tests_name ("unit_skip", tests, NULL, NULL);
}
