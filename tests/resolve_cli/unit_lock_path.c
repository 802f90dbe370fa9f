/* unit_lock_path.c — el_default_lock_path(): each spec gets its own lock
 * beside it, named after it (docs/cli.md, resolve). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "envlock/resolve.h"

static void expect(const char *spec, const char *want)
{
    char *got = el_default_lock_path(spec);
    assert_string_equal(got, want);
    el_free(got);
}

static void test_named_after_the_spec(void **state)
{
    (void)state;
    expect("geo.yaml", "geo.lock");
    expect("specs/geo.yml", "specs/geo.lock");
    expect("/abs/dir/env.json", "/abs/dir/env.lock");
    expect("a/ml.v2.yaml", "a/ml.v2.lock");  /* only the last extension goes */
    expect("dir.d/spec", "dir.d/spec.lock"); /* a dot in the directory is no extension */
    expect("noext", "noext.lock");
    expect(".env.yaml", ".env.lock");
    expect("d/.hidden", "d/.hidden.lock"); /* a leading dot starts the name */
    expect("envlock.yaml", "envlock.lock");
}

static void test_no_file(void **state)
{
    (void)state;
    expect(NULL, "envlock.lock");
    expect("-", "envlock.lock");
    expect("/dev/stdin", "envlock.lock");
    expect("/dev/fd/3", "envlock.lock");
    expect("dir/", "dir/envlock.lock");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_named_after_the_spec),
        cmocka_unit_test(test_no_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
