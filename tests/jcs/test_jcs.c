/* test_jcs.c — unit tests for spec_jcs.c: RFC 8785 Appendix B's number
 * vectors (IEEE-754 bit patterns and the text ECMAScript prints for them),
 * the canonical output of the RFC's §3.2.2 sample and the §3.2.3 member
 * ordering, and edge cases at the 2^53 and exponent-form boundaries, string
 * escapes and refused input. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "spec_internal.h"

static double from_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static void expect_number(double d, const char *want)
{
    char out[32];
    assert_true(spec_jcs_number(d, out));
    assert_string_equal(out, want);
}

/* Serializes a value (taking ownership) and compares with `want`. */
static void expect_canon(struct json_object *v, const char *want)
{
    char *err = NULL;
    char *got = spec_jcs_serialize(v, &err);
    if (!got)
        fail_msg("refused: %s", err ? err : "(no message)");
    assert_null(err);
    assert_string_equal(got, want);
    free(got);
    json_object_put(v);
}

static void expect_refused(struct json_object *v, const char *err_part)
{
    char *err = NULL;
    char *got = spec_jcs_serialize(v, &err);
    assert_null(got);
    assert_non_null(err);
    if (!strstr(err, err_part))
        fail_msg("error `%s` does not mention `%s`", err, err_part);
    free(err);
    json_object_put(v);
}

static struct json_object *parse(const char *text)
{
    struct json_object *v = json_tokener_parse(text);
    assert_non_null(v);
    return v;
}

/* ---- numbers ---- */

static void appendix_b_vectors(void **state)
{
    (void)state;
    static const struct {
        uint64_t bits;
        const char *text;
    } vec[] = {
        { 0x0000000000000000ull, "0" },
        { 0x8000000000000000ull, "0" },
        { 0x0000000000000001ull, "5e-324" },
        { 0x8000000000000001ull, "-5e-324" },
        { 0x7fefffffffffffffull, "1.7976931348623157e+308" },
        { 0xffefffffffffffffull, "-1.7976931348623157e+308" },
        { 0x4340000000000000ull, "9007199254740992" },
        { 0xc340000000000000ull, "-9007199254740992" },
        { 0x4430000000000000ull, "295147905179352830000" },
        { 0x44b52d02c7e14af5ull, "9.999999999999997e+22" },
        { 0x44b52d02c7e14af6ull, "1e+23" },
        { 0x44b52d02c7e14af7ull, "1.0000000000000001e+23" },
        { 0x444b1ae4d6e2ef4eull, "999999999999999700000" },
        { 0x444b1ae4d6e2ef4full, "999999999999999900000" },
        { 0x444b1ae4d6e2ef50ull, "1e+21" },
        { 0x3eb0c6f7a0b5ed8cull, "9.999999999999997e-7" },
        { 0x3eb0c6f7a0b5ed8dull, "0.000001" },
        { 0x41b3de4355555553ull, "333333333.3333332" },
        { 0x41b3de4355555554ull, "333333333.33333325" },
        { 0x41b3de4355555555ull, "333333333.3333333" },
        { 0x41b3de4355555556ull, "333333333.3333334" },
        { 0x41b3de4355555557ull, "333333333.33333343" },
        { 0xbecbf647612f3696ull, "-0.0000033333333333333333" },
        { 0x43143ff3c1cb0959ull, "1424953923781206.2" },
    };
    for (size_t i = 0; i < sizeof vec / sizeof vec[0]; i++)
        expect_number(from_bits(vec[i].bits), vec[i].text);

    char out[32];
    assert_false(spec_jcs_number(from_bits(0x7fffffffffffffffull), out)); /* NaN */
    assert_false(spec_jcs_number(from_bits(0x7ff0000000000000ull), out)); /* +Infinity */
    assert_false(spec_jcs_number(from_bits(0xfff0000000000000ull), out)); /* -Infinity */
}

static void number_layout_boundaries(void **state)
{
    (void)state;
    expect_number(1e21, "1e+21");
    expect_number(1e20, "100000000000000000000");
    expect_number(123456789012345680000.0, "123456789012345680000");
    expect_number(1e-7, "1e-7");
    expect_number(1.5e-7, "1.5e-7");
    expect_number(0.000001, "0.000001");
    expect_number(0.0000015, "0.0000015");
    expect_number(-0.0, "0");
    expect_number(5e-324, "5e-324");
    expect_number(1.7976931348623157e308, "1.7976931348623157e+308");
    expect_number(2.0, "2");
    expect_number(-1.5, "-1.5");
    expect_number(0.1, "0.1");
    expect_number(0.1 + 0.2, "0.30000000000000004");
    expect_number(100.0, "100");
    expect_number(1e100, "1e+100");
    expect_number(1.25e-100, "1.25e-100");
    expect_number(9007199254740993.0, "9007199254740992"); /* not representable: rounds */
    expect_number(2.2250738585072014e-308, "2.2250738585072014e-308");
    expect_number(4.9406564584124654e-324 * 3, "1.5e-323");
    /* powers of two, where the spacing of doubles changes */
    expect_number(ldexp(1, 60), "1152921504606847000");
    expect_number(ldexp(1, 70), "1.1805916207174113e+21");
    expect_number(ldexp(1, -20), "9.5367431640625e-7");
    expect_number(ldexp(1, -1022), "2.2250738585072014e-308");
}

static void integers_and_the_2_53_bound(void **state)
{
    (void)state;
    expect_canon(json_object_new_int64(9007199254740992LL), "9007199254740992");
    expect_canon(json_object_new_int64(-9007199254740992LL), "-9007199254740992");
    expect_canon(json_object_new_int64(0), "0");
    expect_canon(json_object_new_int64(-42), "-42");
    expect_refused(json_object_new_int64(9007199254740993LL), "2^53");
    expect_refused(json_object_new_int64(-9007199254740993LL), "2^53");
    expect_refused(json_object_new_int64(INT64_MAX), "2^53");
    expect_refused(json_object_new_int64(INT64_MIN), "2^53");
    expect_refused(json_object_new_uint64(UINT64_MAX), "2^53");
    expect_refused(parse("[1, 18446744073709551615]"), "2^53");
    /* doubles beyond 2^53 are fine: they are what they are */
    expect_canon(json_object_new_double(1e300), "1e+300");
    expect_refused(json_object_new_double(NAN), "NaN");
    expect_refused(json_object_new_double(INFINITY), "Infinity");
    expect_refused(json_object_new_double(-INFINITY), "Infinity");
}

/* ---- strings ---- */

static void control_characters_and_escapes(void **state)
{
    (void)state;
    char raw[33];
    for (int c = 1; c < 32; c++)
        raw[c - 1] = (char)c;
    raw[31] = 0x7f;
    raw[32] = '\0';
    expect_canon(json_object_new_string(raw),
                 "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
                 "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
                 "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f\x7f\"");
    /* U+0000 inside a string survives (json-c keeps the length) */
    expect_canon(json_object_new_string_len("a\0b", 3), "\"a\\u0000b\"");
    expect_canon(json_object_new_string("\""), "\"\\\"\"");
    expect_canon(json_object_new_string("\\"), "\"\\\\\"");
    expect_canon(json_object_new_string("/"), "\"/\"");
    expect_canon(json_object_new_string(""), "\"\"");
    /* non-ASCII stays literal UTF-8, including non-BMP and U+2028 */
    expect_canon(json_object_new_string("\xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8"),
                 "\"\xe2\x82\xac \xf0\x9f\x98\x80 \xe2\x80\xa8\"");
    expect_canon(parse("\"\\u00e9\\ud83d\\ude00\""), "\"\xc3\xa9\xf0\x9f\x98\x80\"");
}

static void invalid_utf8_refused(void **state)
{
    (void)state;
    static const char *bad[] = {
        "\xff",             /* never valid */
        "a\x80",            /* stray continuation */
        "\xc0\xaf",         /* overlong '/' */
        "\xe0\x80\xaf",     /* overlong, three bytes */
        "\xed\xa0\x80",     /* a surrogate, UTF-8 encoded */
        "\xe2\x82",         /* truncated */
        "\xf4\x90\x80\x80", /* past U+10FFFF */
        "\xf8\x88\x80\x80\x80",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_refused(json_object_new_string(bad[i]), "UTF-8");
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "ok\xfe", json_object_new_int(1));
    expect_refused(o, "UTF-8");
    struct json_object *a = json_object_new_array();
    json_object_array_add(a, json_object_new_string("fine"));
    json_object_array_add(a, json_object_new_string("\xc3"));
    expect_refused(a, "UTF-8");
}

/* ---- structure ---- */

static void literals_arrays_objects(void **state)
{
    (void)state;
    expect_canon(NULL, "null");
    expect_canon(json_object_new_boolean(1), "true");
    expect_canon(json_object_new_boolean(0), "false");
    expect_canon(parse("[]"), "[]");
    expect_canon(parse("{}"), "{}");
    expect_canon(parse(" [ 3 , [ 2 , { } ] , 1 , null ] "), "[3,[2,{}],1,null]");
    expect_canon(parse("{ \"b\" : { \"z\": 1, \"a\": [ true ] }, \"a\" : \"x\" }"),
                 "{\"a\":\"x\",\"b\":{\"a\":[true],\"z\":1}}");
    /* prefix sorts first; byte order for ASCII */
    expect_canon(parse("{\"ab\":1,\"a\":2,\"B\":3,\"_\":4}"), "{\"B\":3,\"_\":4,\"a\":2,\"ab\":1}");
}

/* RFC 8785 §3.2.2: the sample object with numbers, a string of escapes and
 * literals. Input written here with the same values. */
static void rfc_sample_document(void **state)
{
    (void)state;
    const char *in =
        "{\n"
        "  \"numbers\": [333333333.33333329, 1E30, 4.50,\n"
        "              2e-3, 0.000000000000000000000000001],\n"
        "  \"string\": \"\\u20ac$\\u000F\\u000aA'\\u0042\\u0022\\u005c\\\\\\\"\\/\",\n"
        "  \"literals\": [null, true, false]\n"
        "}";
    expect_canon(parse(in),
                 "{\"literals\":[null,true,false],"
                 "\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],"
                 "\"string\":\"\xe2\x82\xac$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}");
}

/* RFC 8785 §3.2.3: members ordered by UTF-16 code units, so U+1F600 (high
 * surrogate D83D) sorts before U+FB33 although its code point is larger. */
static void rfc_sorting_example(void **state)
{
    (void)state;
    const char *in = "{\"\\u20ac\": \"Euro Sign\", \"\\r\": \"Carriage Return\","
                     " \"\\ufb33\": \"Hebrew Letter Dalet With Dagesh\", \"1\": \"One\","
                     " \"\\ud83d\\ude00\": \"Emoji: Grinning Face\", \"\\u0080\": \"Control\","
                     " \"\\u00f6\": \"Latin Small Letter O With Diaeresis\"}";
    expect_canon(parse(in), "{\"\\r\":\"Carriage Return\","
                            "\"1\":\"One\","
                            "\"\xc2\x80\":\"Control\","
                            "\"\xc3\xb6\":\"Latin Small Letter O With Diaeresis\","
                            "\"\xe2\x82\xac\":\"Euro Sign\","
                            "\"\xf0\x9f\x98\x80\":\"Emoji: Grinning Face\","
                            "\"\xef\xac\xb3\":\"Hebrew Letter Dalet With Dagesh\"}");
    /* the same two keys the other way round, and a non-BMP against U+FFFF */
    expect_canon(parse("{\"\\uffff\":1,\"\\ud800\\udc00\":2,\"\\ue000\":3}"),
                 "{\"\xf0\x90\x80\x80\":2,\"\xee\x80\x80\":3,\"\xef\xbf\xbf\":1}");
}

static void null_err_pointer_allowed(void **state)
{
    (void)state;
    struct json_object *v = json_object_new_double(NAN);
    assert_null(spec_jcs_serialize(v, NULL));
    json_object_put(v);
    v = parse("[1]");
    char *s = spec_jcs_serialize(v, NULL);
    assert_string_equal(s, "[1]");
    free(s);
    json_object_put(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appendix_b_vectors),
        cmocka_unit_test(number_layout_boundaries),
        cmocka_unit_test(integers_and_the_2_53_bound),
        cmocka_unit_test(control_characters_and_escapes),
        cmocka_unit_test(invalid_utf8_refused),
        cmocka_unit_test(literals_arrays_objects),
        cmocka_unit_test(rfc_sample_document),
        cmocka_unit_test(rfc_sorting_example),
        cmocka_unit_test(null_err_pointer_allowed),
    };
    return cmocka_run_group_tests_name("jcs", tests, NULL, NULL);
}
