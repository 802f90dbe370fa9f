/* unit_merge.c — verbs_merge_locks(): the locks of two targets joined into
 * one keep what a conda package is (its build, subdir and buildNumber, its
 * file's md5), and two builds of one conda version stay two packages
 * (docs/lock-format.md: a conda package is its name, version and build). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "base_request.h"
#include "verbs_internal.h"

static void add_conda(lock_doc *d, const char *build, uint64_t number, const char *md5)
{
    lock_package *p = lock_doc_add_package(d);
    p->ecosystem = "conda";
    p->name = "numpy";
    p->version = "2.3.0";
    p->build = build;
    p->subdir = "linux-64";
    p->build_number = number;
    p->requested_by = NULL;
    lock_artifact *a = lock_package_add_artifact(d, p);
    a->file = "numpy-2.3.0.conda";
    a->hash = "sha256:0000000000000000000000000000000000000000000000000000000000000000";
    a->md5 = md5;
}

static void test_conda_fields_survive(void **state)
{
    (void)state;
    lock_doc *a = lock_doc_new(), *b = lock_doc_new();
    add_conda(a, "py313h1_0", 0, "00000000000000000000000000000000");
    add_conda(b, "py313h1_0", 0, "00000000000000000000000000000000"); /* the same */
    add_conda(b, "py313h2_1", 1, "11111111111111111111111111111111"); /* another build */
    target_base t1 = { .python_version = "3.13.7", .arch = "amd64" };
    target_base t2 = { .python_version = "3.13.7", .arch = "amd64", .image = "img" };
    target_part parts[2] = { { .target = &t1 }, { .target = &t2 } };
    target_request tr = { .parts = parts, .n_parts = 2 };
    lock_doc *locks[2] = { a, b };
    lock_doc *d = verbs_merge_locks(&tr, locks);
    assert_int_equal(d->n_packages, 2);
    for (size_t i = 0; i < 2; i++) {
        const lock_package *p = &d->packages[i];
        assert_string_equal(p->subdir, "linux-64");
        assert_int_equal(p->build_number, i);
        assert_string_equal(p->build, i ? "py313h2_1" : "py313h1_0");
        assert_int_equal(p->n_artifacts, 1);
        assert_string_equal(p->artifacts[0].md5, i ? "11111111111111111111111111111111"
                                                   : "00000000000000000000000000000000");
    }
    lock_doc_free(a);
    lock_doc_free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conda_fields_survive),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
