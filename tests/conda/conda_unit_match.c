/* conda_unit_match.c — versions/conda match specs: the examples of conda's
 * MatchSpec documentation and of its version+build splitting (CEP 29's
 * match spec forms), each field as conda's MatchSpec reports it, and the
 * refusals with their columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "condaspec.h"

static conda_matchspec *ms(const char *t)
{
    conda_error e = {0, NULL};
    conda_matchspec *m = conda_matchspec_parse(t, strlen(t), &e);
    if (!m)
        fail_msg("`%s`: column %zu: %s", t, e.column, e.message);
    return m;
}

static void eq(const char *want, const char *got)
{
    if (!want)
        assert_null(got);
    else {
        assert_non_null(got);
        assert_string_equal(want, got);
    }
}

/* spec, channel, subdir, name, version, build (as conda's MatchSpec keeps them) */
static void fields(void **state)
{
    (void)state;
    static const char *cases[][6] = {
        {"numpy", NULL, NULL, "numpy", NULL, NULL},
        {"NumPy", NULL, NULL, "numpy", NULL, NULL},
        {"numpy 1.8*", NULL, NULL, "numpy", "1.8*", NULL},
        {"numpy 1.8.1", NULL, NULL, "numpy", "1.8.1", NULL},
        {"numpy >=1.8,<2|1.9", NULL, NULL, "numpy", ">=1.8,<2|1.9", NULL},
        {"numpy >=1.8 , < 2.0 py34_0", NULL, NULL, "numpy", ">=1.8,<2.0", "py34_0"},
        {"numpy >=1.8 , < 2.0 =py34_0", NULL, NULL, "numpy", ">=1.8,<2.0", "py34_0"},
        {"numpy=1.8.1=py27_0", NULL, NULL, "numpy", "1.8.1", "py27_0"},
        {"numpy=1.8", NULL, NULL, "numpy", "1.8*", NULL},
        {"numpy >= 1.2", NULL, NULL, "numpy", ">=1.2", NULL},
        {"numpy==1.8", NULL, NULL, "numpy", "1.8", NULL},
        {"numpy =1.2.3 0", NULL, NULL, "numpy", "1.2.3", "0"},
        {"numpy * openblas_0", NULL, NULL, "numpy", "*", "openblas_0"},
        {"numpy * *", NULL, NULL, "numpy", "*", "*"},
        {"conda-forge::numpy", "conda-forge", NULL, "numpy", NULL, NULL},
        {"conda-forge/linux-64::numpy 1.8", "conda-forge", "linux-64", "numpy", "1.8", NULL},
        {"https://conda.anaconda.org/conda-forge::numpy", "https://conda.anaconda.org/conda-forge",
         NULL, "numpy", NULL, NULL},
        {"numpy[version='>=1.8,<2', build=py27*]", NULL, NULL, "numpy", ">=1.8,<2", "py27*"},
        {"numpy 1.7 py27_0[build=py38*]", NULL, NULL, "numpy", "1.7", "py38*"},
        {"numpy[version=\"(1.2|1.4),!=1.4\"]", NULL, NULL, "numpy", "(1.2|1.4),!=1.4", NULL},
        {"numpy[channel=conda-forge/noarch]", "conda-forge", "noarch", "numpy", NULL, NULL},
        {"__glibc >=2.17", NULL, NULL, "__glibc", ">=2.17", NULL},
        {"_libgcc_mutex 0.1 conda_forge", NULL, NULL, "_libgcc_mutex", "0.1", "conda_forge"},
        {"python  # the interpreter", NULL, NULL, "python", NULL, NULL},
        {"*[md5=d7c89558ba9fa0495403155b64376d81]", NULL, NULL, "*", NULL, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        conda_matchspec *m = ms(cases[i][0]);
        eq(cases[i][1], m->channel);
        eq(cases[i][2], m->subdir);
        eq(cases[i][3], m->name);
        eq(cases[i][4], m->version);
        eq(cases[i][5], m->build);
        conda_matchspec_free(m);
    }
}

static void matching(void **state)
{
    (void)state;
    static const struct { const char *spec, *name, *version, *build; uint64_t bn; bool want; } c[] = {
        {"numpy", "numpy", "1.0", "py_0", 0, true},
        {"numpy", "scipy", "1.0", "py_0", 0, false},
        {"NUMPY 1.8*", "numpy", "1.8.2", "0", 0, true},
        {"numpy 1.8*", "numpy", "1.9", "0", 0, false},
        {"numpy 1.8.1", "numpy", "1.8.1.0", "0", 0, true},
        {"numpy=1.8", "numpy", "1.8.5", "0", 0, true},
        {"numpy==1.8", "numpy", "1.8.5", "0", 0, false},
        {"numpy >=1.2,<2|==3", "numpy", "3.0", "0", 0, true},
        {"numpy 1.2 py3*", "numpy", "1.2", "py39h1234_0", 0, true},
        {"numpy 1.2 py3*", "numpy", "1.2", "py27h1234_0", 0, false},
        {"numpy[build='^py3(9|10)_0$']", "numpy", "1.2", "py39_0", 0, true},
        {"numpy[build='^py3(9|10)_0$']", "numpy", "1.2", "py39_1", 0, false},
        {"numpy[build_number='>=3']", "numpy", "1.2", "x", 3, true},
        {"numpy[build_number='>=3']", "numpy", "1.2", "x", 2, false},
        {"numpy[build_number=2]", "numpy", "1.2", "x", 2, true},
        {"num*", "numpy", "1.2", "x", 0, true},
        {"*", "anything", "1.2", "x", 0, true},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        conda_matchspec *m = ms(c[i].spec);
        if (conda_matchspec_match(m, c[i].name, c[i].version, c[i].build, c[i].bn) != c[i].want)
            fail_msg("`%s` against %s %s %s", c[i].spec, c[i].name, c[i].version, c[i].build);
        conda_matchspec_free(m);
    }
}

static void refusals(void **state)
{
    (void)state;
    static const struct { const char *spec; size_t column; } bad[] = {
        {"", 1},
        {"   # only a comment", 4},
        {">=1.2", 1},
        {"numpy >=", 7},
        {"numpy[version=1.2", 6},
        {"numpy]", 6},
        {"numpy[foo=1]", 7},
        {"numpy[version=1, version=2]", 18},
        {"numpy[version=]", 15},
        {"numpy[]", 6},
        {"numpy[version=1] 2", 18},
        {"numpy (1.2|1.4)", 7},
        {"numpy 1.2 if python", 11},
        {"mkl@", 4},
        {"numpy-1.2-py_0.tar.bz2", 1},
        {"https://u:p@example.org/ch::numpy", 1},
        {"https://conda.anaconda.org/t/abc123/ch::numpy", 1},
        {"Num$py", 1},
        {"a__b", 1},
        {"numpy ~=1", 7},
        {"numpy[build_number=x]", 1},
        {"numpy 1..2", 9},
        /* conda skips a pair with blanks around `=`, cuts brackets at a
         * `[` inside a value, finds no name after a leading blank */
        {"numpy[version = '1.2']", 14},
        {"numpy[version= '1.2']", 15},
        {"numpy[build='^py3[0-9]_0$']", 18},
        {" numpy", 1},
        {"numpy\t1.2", 6},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        conda_error e = {0, NULL};
        conda_matchspec *m = conda_matchspec_parse(bad[i].spec, strlen(bad[i].spec), &e);
        if (m)
            fail_msg("`%s` parsed", bad[i].spec);
        assert_non_null(e.message);
        if (e.column != bad[i].column)
            fail_msg("`%s`: column %zu (%s), want %zu", bad[i].spec, e.column, e.message,
                     bad[i].column);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fields),
        cmocka_unit_test(matching),
        cmocka_unit_test(refusals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
