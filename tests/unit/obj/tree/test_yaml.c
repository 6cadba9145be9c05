/* yaml: kubectl's YAML 1.1 typing (go-yaml v2 + sigs.k8s.io/yaml), documents, anchors and
 * merges, errors with line and column, and decode(encode(v)) == v. */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "obj/tree/yaml.h"

/* ---- decoding: input text -> JSON array of documents ------------------------------------- */

struct dcase {
    const char *name;
    const char *in;
    const char *want; /* JSON text of the documents array */
};

static const struct dcase dcases[] = {
    {"null forms", "a: ~\nb: null\nc: Null\nd: NULL\ne:\n",
     "[{\"a\":null,\"b\":null,\"c\":null,\"d\":null,\"e\":null}]"},
    {"true forms", "[y, Y, yes, Yes, YES, true, True, TRUE, on, On, ON]",
     "[[true,true,true,true,true,true,true,true,true,true,true]]"},
    {"false forms", "[n, N, no, No, NO, false, False, FALSE, off, Off, OFF]",
     "[[false,false,false,false,false,false,false,false,false,false,false]]"},
    {"bool lookalikes stay strings", "[yES, tRUE, nULL, yes please, 'yes', \"no\"]",
     "[[\"yES\",\"tRUE\",\"nULL\",\"yes please\",\"yes\",\"no\"]]"},
    {"decimal integers", "[0, 12, -7, +12, 1_000, -0, 1_]", "[[0,12,-7,12,1000,0,1]]"},
    {"octal integers", "[0755, 0o755, 0O17, -017, 00]", "[[493,493,15,-15,0]]"},
    {"hex and binary integers", "[0x1F, 0X1f, -0x10, +0x10, 0b101, -0b11, 0x_1F]",
     "[[31,31,-16,16,5,-3,31]]"},
    {"int64 limits", "[9223372036854775807, -9223372036854775808]",
     "[[9223372036854775807,-9223372036854775808]]"},
    {"beyond int64 becomes real",
     "[9223372036854775808, -9223372036854775809, 18446744073709551615, 1" "00000000000000000000000]",
     "[[9223372036854775808.0,-9223372036854775809.0,18446744073709551615.0,1e23]]"},
    {"hex beyond uint64 stays string", "[0x1FFFFFFFFFFFFFFFF, 0b]",
     "[[\"0x1FFFFFFFFFFFFFFFF\",\"0b\"]]"},
    {"floats", "[1.5, -2e3, .5, 1., 1e3, +.5, 0.0, 1_0.5, 6.02E+23, -.5e-2]",
     "[[1.5,-2000.0,0.5,1.0,1000.0,0.5,0.0,10.5,6.02e23,-0.005]]"},
    {"float out of range stays text, underflow is zero", "[1e400, -1e400, 1e-400]",
     "[[\"1e400\",\"-1e400\",0.0]]"},
    /* go-yaml: not octal, but its float pattern matches (kubectl gives 8) */
    {"08 and 09 are floats as in kubectl", "[08, 09, 09.5]", "[[8.0,9.0,9.5]]"},
    {"number lookalikes stay strings",
     "[1.2.3, 12:30, 0x, ._5, 1e, 2001-12-14, +, 1-2, 0xZ, .inf., 1e5e5]",
     "[[\"1.2.3\",\"12:30\",\"0x\",\"._5\",\"1e\",\"2001-12-14\",\"+\",\"1-2\",\"0xZ\","
     "\".inf.\",\"1e5e5\"]]"},
    {"quoted scalars stay strings", "[\"1\", '2', \"true\", 'null', \"\", '~', \"1.5\"]",
     "[[\"1\",\"2\",\"true\",\"null\",\"\",\"~\",\"1.5\"]]"},
    {"block scalars stay strings", "a: |\n  12\nb: >\n  true\nc: |-\n  x\n  y\nd: >-\n  p\n  q\n",
     "[{\"a\":\"12\\n\",\"b\":\"true\\n\",\"c\":\"x\\ny\",\"d\":\"p q\"}]"},
    {"tags force the type",
     "[!!str 12, !!str true, !!int \"12\", !!float 3, !!float \"1.5\", !!bool \"yes\","
     " !!null \"\", !!binary aGk=, !custom 12, ! 12, !!str, !!int 0x10]",
     "[[\"12\",\"true\",12,3.0,1.5,true,null,\"aGk=\",\"12\",\"12\",\"\",16]]"},
    {"verbatim tag", "!<tag:yaml.org,2002:int> '7'", "[7]"},
    {"keys of every scalar type become strings",
     "{on: a, 1: b, 1.5: c, ~: d, no: e, 0x10: f, 1e6: g, 3.14159265: h, 0.00001: i, -0: j}",
     "[{\"true\":\"a\",\"1\":\"b\",\"1.5\":\"c\",\"null\":\"d\",\"false\":\"e\",\"16\":\"f\","
     "\"1e+06\":\"g\",\"3.1415927\":\"h\",\"1e-05\":\"i\",\"0\":\"j\"}]"},
    {"non-finite keys are named", "{.inf: a, -.Inf: b, .nan: c}",
     "[{\".inf\":\"a\",\"-.inf\":\"b\",\".nan\":\"c\"}]"},
    {"quoted keys keep their text", "{\"on\": a, '1': b, \"\": c}",
     "[{\"on\":\"a\",\"1\":\"b\",\"\":\"c\"}]"},
    {"several documents", "a: 1\n---\nb: 2\n---\n- 3\n", "[{\"a\":1},{\"b\":2},[3]]"},
    {"empty documents are skipped", "---\n---\na: 1\n---\n# only a comment\n---\n",
     "[{\"a\":1}]"},
    {"null documents are skipped", "null\n---\n~\n---\nx\n", "[\"x\"]"},
    {"empty input", "", "[]"},
    {"comments only", "# nothing\n\n# here\n", "[]"},
    {"document end markers and directives", "%YAML 1.1\n---\na: 1 # c\n...\n---\nb: 2\n",
     "[{\"a\":1},{\"b\":2}]"},
    {"anchors and aliases", "base: &b {x: 1, z: [1, 2]}\nuse: *b\nlist: [&s str, *s]\n",
     "[{\"base\":{\"x\":1,\"z\":[1,2]},\"use\":{\"x\":1,\"z\":[1,2]},\"list\":[\"str\",\"str\"]}]"},
    {"key y is a boolean, as in kubectl", "{y: 1, n: 2}",
     "[{\"true\":1,\"false\":2}]"},
    {"alias of a scalar keeps its type", "a: &n 5\nb: *n\nc: &q '5'\nd: *q\n",
     "[{\"a\":5,\"b\":5,\"c\":\"5\",\"d\":\"5\"}]"},
    {"alias as a key", "k: &k name\n*k : v\n", "[{\"k\":\"name\",\"name\":\"v\"}]"},
    {"anchor redefined", "- &a 1\n- *a\n- &a 2\n- *a\n", "[[1,1,2,2]]"},
    {"anchors are per document", "a: &x 1\n---\nb: &x 2\nc: *x\n",
     "[{\"a\":1},{\"b\":2,\"c\":2}]"},
    {"merge key", "base: &b {a: 1, b: 2}\nx:\n  <<: *b\n  b: 3\n  c: 4\n",
     "[{\"base\":{\"a\":1,\"b\":2},\"x\":{\"a\":1,\"b\":3,\"c\":4}}]"},
    {"explicit key before merge wins", "base: &b {a: 1, z: 0}\nx:\n  a: 9\n  <<: *b\n",
     "[{\"base\":{\"a\":1,\"z\":0},\"x\":{\"a\":9,\"z\":0}}]"},
    {"merge of a sequence: earlier maps win",
     "p: &p {a: 1, b: 1}\nq: &q {b: 2, c: 2}\nx:\n  <<: [*p, *q]\n",
     "[{\"p\":{\"a\":1,\"b\":1},\"q\":{\"b\":2,\"c\":2},\"x\":{\"a\":1,\"b\":1,\"c\":2}}]"},
    {"merge of an inline map", "x: {<<: {a: 1}, b: 2}", "[{\"x\":{\"a\":1,\"b\":2}}]"},
    {"quoted << is an ordinary key", "{\"<<\": 1, a: <<}", "[{\"<<\":1,\"a\":\"<<\"}]"},
    {"JSON input",
     "{\"apiVersion\": \"v1\", \"n\": [1, 2.5, true, false, null, \"s\\n\\u00e9\\/\"],\n"
     " \"o\": {}, \"a\": [], \"big\": -1e-3}",
     "[{\"apiVersion\":\"v1\",\"n\":[1,2.5,true,false,null,\"s\\n\\u00e9/\"],\"o\":{},"
     "\"a\":[],\"big\":-0.001}]"},
    {"flow style", "{a: [1, {b: c}], d: [], e: {}, f: [x, 'y z']}",
     "[{\"a\":[1,{\"b\":\"c\"}],\"d\":[],\"e\":{},\"f\":[\"x\",\"y z\"]}]"},
    {"escapes and unicode", "a: \"\\t\\u00e9\\x41\\0\"\nb: é ✓\nc: 'it''s'\n",
     "[{\"a\":\"\\t\\u00e9A\\u0000\",\"b\":\"\\u00e9 \\u2713\",\"c\":\"it's\"}]"},
    {"complex key syntax", "? a\n: b\n? 2\n: c\n", "[{\"a\":\"b\",\"2\":\"c\"}]"},
    {"timestamps stay strings", "t: 2001-12-14t21:59:43.10-05:00\nd: 2002-12-14\n",
     "[{\"t\":\"2001-12-14t21:59:43.10-05:00\",\"d\":\"2002-12-14\"}]"},
    {"folded top-level scalar", ">-\n  a\n  b\n", "[\"a b\"]"},
    {"kubernetes manifest",
     "apiVersion: jobset.x-k8s.io/v1alpha2\nkind: JobSet\nmetadata:\n  name: demo\n"
     "  labels:\n    app: train\nspec:\n  replicatedJobs:\n  - name: workers\n    replicas: 2\n"
     "    template:\n      spec:\n        template:\n          spec:\n            containers:\n"
     "            - name: main\n              image: python:3.11\n"
     "              command: [python, -c, 'print(1)']\n              env:\n"
     "              - {name: X, value: \"1\"}\n              ports:\n"
     "              - containerPort: 8476\n",
     "[{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",\"metadata\":{\"name\":"
     "\"demo\",\"labels\":{\"app\":\"train\"}},\"spec\":{\"replicatedJobs\":[{\"name\":"
     "\"workers\",\"replicas\":2,\"template\":{\"spec\":{\"template\":{\"spec\":{\"containers\":"
     "[{\"name\":\"main\",\"image\":\"python:3.11\",\"command\":[\"python\",\"-c\",\"print(1)\"],"
     "\"env\":[{\"name\":\"X\",\"value\":\"1\"}],\"ports\":[{\"containerPort\":8476}]}]}}}}}]}}]"},
};

static void test_decode_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(dcases) / sizeof(dcases[0]); i++) {
        const struct dcase *c = &dcases[i];
        json_t *docs = NULL;
        struct err e = {{0}};
        int rc = yaml_decode(c->in, strlen(c->in), &docs, &e);
        if (rc != 0)
            fail_msg("%s: rc=%d: %s", c->name, rc, e.msg);
        json_error_t je;
        json_t *want = json_loads(c->want, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!want)
            fail_msg("%s: bad JSON in test: %s", c->name, je.text);
        if (!json_equal(docs, want)) {
            char *got = json_dumps(docs, JSON_ENCODE_ANY | JSON_COMPACT);
            fail_msg("%s:\n got %s\nwant %s", c->name, got, c->want);
        }
        json_decref(want);
        json_decref(docs);
    }
}

/* Integers stay integers and floats stay reals (json_equal already tells 1 from 1.0). */
static void test_decode_number_types(void **state)
{
    (void)state;
    json_t *v = tu_yaml("[1, 1.0, 1e0, !!float 1, 0x7fffffffffffffff]");
    assert_true(json_is_integer(json_array_get(v, 0)));
    assert_true(json_is_real(json_array_get(v, 1)));
    assert_true(json_is_real(json_array_get(v, 2)));
    assert_true(json_is_real(json_array_get(v, 3)));
    assert_int_equal(json_integer_value(json_array_get(v, 4)), INT64_MAX);
    json_decref(v);
}

/* ---- decoding errors: exact messages with line and column --------------------------------- */

struct ecase {
    const char *name;
    const char *in;
    int rc;
    const char *want; /* exact message */
};

static const struct ecase ecases[] = {
    {"bad indentation", "metadata:\n  name: x\n   bad: 1\n", -EINVAL,
     "line 3, column 7: mapping values are not allowed in this context"},
    {"unclosed quote", "metadata:\n  name: \"x\n", -EINVAL,
     "line 3, column 1: found unexpected end of stream while scanning a quoted scalar"},
    {"tab indentation", "metadata:\n\tname: x\n", -EINVAL,
     "line 2, column 1: found character that cannot start any token while scanning for the "
     "next token"},
    {"duplicate key", "a: 1\nb:\n  c: 2\n  c: 3\n", -EINVAL,
     "line 4, column 3: duplicate key \"c\""},
    {"duplicate key after typing", "{on: 1, true: 2}", -EINVAL,
     "line 1, column 9: duplicate key \"true\""},
    {"duplicate key in flow", "x: {a: 1, a: 2}", -EINVAL, "line 1, column 11: duplicate key \"a\""},
    {"unclosed flow sequence", "a: [1, 2\n", -EINVAL,
     "line 2, column 1: did not find expected ',' or ']' while parsing a flow sequence"},
    {"stray closing brace", "a: {b: 1}}\n", -EINVAL,
     "line 1, column 10: did not find expected key while parsing a block mapping"},
    {"unknown alias", "a: *x\n", -EINVAL, "line 1, column 4: unknown anchor \"x\""},
    {"alias inside its own anchor", "a: &a [*a]\n", -EINVAL,
     "line 1, column 8: unknown anchor \"a\""},
    {"sequence as key", "[1]: a\n", -EINVAL, "line 1, column 1: mapping key must be a scalar"},
    {"mapping as key", "? {a: 1}\n: b\n", -EINVAL,
     "line 1, column 3: mapping key must be a scalar"},
    {"alias of a mapping as key", "a: &m {x: 1}\n*m : 2\n", -EINVAL,
     "line 2, column 1: mapping key must be a scalar"},
    {"merge of a scalar", "a: 1\n<<: 5\n", -EINVAL,
     "line 2, column 1: map merge requires map or sequence of maps as the value"},
    {"merge of a list of scalars", "<<: [{a: 1}, 2]\n", -EINVAL,
     "line 1, column 1: map merge requires map or sequence of maps as the value"},
    {"tag !!int on text", "a: !!int abc\n", -EINVAL,
     "line 1, column 4: cannot decode !!str `abc` as a !!int"},
    {"tag !!bool on a number", "- !!bool 1\n", -EINVAL,
     "line 1, column 3: cannot decode !!int `1` as a !!bool"},
    {"tag !!null on text", "- !!null x\n", -EINVAL,
     "line 1, column 3: cannot decode !!str `x` as a !!null"},
    {"tag !!int on a float", "- !!int 1.5\n", -EINVAL,
     "line 1, column 3: cannot decode !!float `1.5` as a !!int"},
    {"infinity", "a: .inf\n", -EINVAL,
     "line 1, column 4: non-finite number not representable in JSON"},
    {"NaN", "a:\n- 1\n- .NaN\n", -EINVAL,
     "line 3, column 3: non-finite number not representable in JSON"},
    {"negative infinity through !!float", "- !!float -.inf\n", -EINVAL,
     "line 1, column 3: non-finite number not representable in JSON"},
    {"invalid UTF-8", "a: 1\nb: \xff\n", -EINVAL, "line 2, column 4: invalid leading UTF-8 octet"},
    {"error in a later document", "a: 1\n---\nb: [\n", -EINVAL,
     "line 4, column 1: did not find expected node content while parsing a flow node"},
};

static void test_decode_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(ecases) / sizeof(ecases[0]); i++) {
        const struct ecase *c = &ecases[i];
        json_t *docs = (json_t *)c; /* must stay untouched */
        struct err e = {{0}};
        int rc = yaml_decode(c->in, strlen(c->in), &docs, &e);
        if (rc != c->rc || strcmp(e.msg, c->want) != 0)
            fail_msg("%s: rc=%d msg \"%s\"\nwant rc=%d msg \"%s\"", c->name, rc, e.msg, c->rc,
                     c->want);
        assert_ptr_equal(docs, (json_t *)c);
    }
}

/* Nine levels of ten aliases each would be 10^9 nodes. */
static void test_alias_bomb(void **state)
{
    (void)state;
    static const char bomb[] =
        "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
        "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
        "d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
        "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n"
        "f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
        "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f, *f]\n"
        "h: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g, *g]\n"
        "i: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h, *h]\n";
    json_t *docs = NULL;
    struct err e = {{0}};
    assert_int_equal(yaml_decode(bomb, strlen(bomb), &docs, &e), -EINVAL);
    assert_null(docs);
    /* go-yaml's alias ratio (99% below 400,000 bytes) refuses the first alias of level c */
    assert_string_equal(e.msg, "line 4, column 8: document contains excessive aliasing");

    /* the first three levels (1,110 nodes) are fine */
    json_t *v = tu_yaml("a: &a [x, x, x, x, x, x, x, x, x, x]\n"
                        "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                        "c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n");
    json_t *c = json_object_get(v, "c");
    assert_int_equal(json_array_size(c), 10);
    assert_string_equal(json_string_value(json_array_get(json_array_get(json_array_get(c, 9), 9), 9)),
                        "x");
    json_decref(v);
}

/* A 1 MB scalar aliased 3,000 times counted 3,001 nodes and expanded to 3 GB: the ratio of
 * aliased bytes is go-yaml's allowedAliasRatio, so the second alias (3 MB, two thirds of it
 * aliased) is refused before it is copied, while one alias (half of 2 MB) is fine. */
/* "a: &a <n x's>\nb: [*a, *a, ...]\n" with `aliases` aliases; caller frees. */
static char *big_scalar_aliased(size_t n, size_t aliases)
{
    char *t = malloc(n + 4 * aliases + 16);
    assert_non_null(t);
    size_t at = (size_t)sprintf(t, "a: &a ");
    memset(t + at, 'x', n);
    at += n + (size_t)sprintf(t + at + n, "\nb: [*a");
    for (size_t i = 1; i < aliases; i++)
        at += (size_t)sprintf(t + at, ", *a");
    strcpy(t + at, "]\n");
    return t;
}

/* A 1 MB scalar aliased 3,000 times counted 3,001 nodes and expanded to 3 GB: the share of
 * aliased bytes is held to go-yaml's allowedAliasRatio, so the second alias (3 MB, two thirds
 * of it aliased) is refused before it is copied, while one alias (half of 2 MB) is fine. */
static void test_a_large_scalar_aliased_thousands_of_times_is_refused(void **state)
{
    (void)state;
    const size_t big = 1024 * 1024;
    char *text = big_scalar_aliased(big, 3000);
    json_t *docs = NULL;
    struct err e = {{0}};
    assert_int_equal(yaml_decode(text, strlen(text), &docs, &e), -EINVAL);
    assert_null(docs);
    assert_string_equal(e.msg, "line 2, column 9: document contains excessive aliasing");
    free(text);

    text = big_scalar_aliased(big, 1);
    json_t *v = tu_yaml(text);
    assert_int_equal(json_string_length(json_array_get(json_object_get(v, "b"), 0)), big);
    json_decref(v);
    free(text);
}

static void test_depth_limit(void **state)
{
    (void)state;
    char in[2100];
    json_t *docs = NULL;
    struct err e = {{0}};
    memset(in, '[', 1001);
    memset(in + 1001, ']', 1001);
    assert_int_equal(yaml_decode(in, 2002, &docs, &e), -EINVAL);
    assert_string_equal(e.msg, "line 1, column 1001: nesting deeper than 1000 levels");
    assert_int_equal(yaml_decode(in + 1, 2000, &docs, &e), 0); /* 1000 levels are fine */
    assert_int_equal(json_array_size(docs), 1);
    json_decref(docs);
}

static void test_too_large(void **state)
{
    (void)state;
    json_t *docs = NULL;
    struct err e = {{0}};
    /* the size is checked before the buffer is read */
    assert_int_equal(yaml_decode("a", (size_t)YAML_INPUT_MAX + 1, &docs, &e), -EFBIG);
    assert_null(docs);
    assert_non_null(strstr(e.msg, "too large"));
}

/* ---- files ---------------------------------------------------------------------------------- */

static char *write_temp(const char *text)
{
    const char *dir = getenv("TMPDIR");
    char *path = NULL;
    assert_true(asprintf(&path, "%s/test_yaml_XXXXXX", dir && *dir ? dir : "/tmp") > 0);
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* JSON input (first non-blank byte '{', as kubectl decides) reads \u escapes as JSON does:
 * UTF-16 surrogate pairs are one character, a lone surrogate is U+FFFD (Go's encoding/json);
 * an escaped backslash before 'u' is no escape; YAML input keeps YAML's rules. */
static void test_json_surrogates(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want; /* want: the value of key "a", or NULL for a decode error */
    } cases[] = {
        {" {\"a\": \"\\ud83d\\ude00\"}", "\xf0\x9f\x98\x80"},
        {"{\"a\": \"x\\uD834\\uDD1Ey\"}", "x\xf0\x9d\x84\x9ey"},
        {"{\"a\": \"\\ud83d\"}", "\xef\xbf\xbd"},
        {"{\"a\": \"\\ude00\\ud83d!\"}", "\xef\xbf\xbd\xef\xbf\xbd!"},
        {"{\"a\": \"\\u00e9\\\\ud83d\"}", "\xc3\xa9\\ud83d"},
        {"{\"a\": \"q\\\"\\ud83d\\ude00\"}", "q\"\xf0\x9f\x98\x80"},
        {"a: \"\\ud83d\\ude00\"", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *docs = NULL;
        struct err e = {{0}};
        int rc = yaml_decode(cases[i].in, strlen(cases[i].in), &docs, &e);
        if (!cases[i].want) {
            assert_int_equal(rc, -EINVAL);
            continue;
        }
        if (rc != 0)
            fail_msg("case %zu: %s", i, e.msg);
        const char *got = json_string_value(json_object_get(json_array_get(docs, 0), "a"));
        assert_non_null(got);
        assert_string_equal(got, cases[i].want);
        json_decref(docs);
    }
}

/* U+0085 (NEL), U+2028 and U+2029 are characters in a JSON string, kept byte for byte as Go's
 * encoding/json keeps them; a YAML double-quoted "\u0085" is the character too.  YAML's line
 * breaks fold only raw characters in YAML text, as go-yaml (a libyaml port) folds them. */
static void test_json_keeps_nel_byte_for_byte(void **state)
{
    (void)state;
    static const struct {
        const char *in, *want; /* want: the value of key "a" */
    } cases[] = {
        {"{\"a\": \"p\xc2\x85q\"}", "p\xc2\x85q"},
        {"{\"a\": \"\xc2\x85\"}", "\xc2\x85"},
        {"{\"a\": \"l\xe2\x80\xa8p\xe2\x80\xa9\"}", "l\xe2\x80\xa8p\xe2\x80\xa9"},
        {"{\"a\": \"\\\"\xc2\x85\\u0085\"}", "\"\xc2\x85\xc2\x85"},
        {"{\"b\": \"\xc2\x85\", \"a\": \"\xf0\x9f\x98\x80\\ud83d\\ude00\xc2\x85\"}",
         "\xf0\x9f\x98\x80\xf0\x9f\x98\x80\xc2\x85"},
        {"a: \"p\\u0085q\"\n", "p\xc2\x85q"},
        {"a: 'p\\u0085q'\n", "p\\u0085q"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *docs = NULL;
        struct err e = {{0}};
        if (yaml_decode(cases[i].in, strlen(cases[i].in), &docs, &e) != 0)
            fail_msg("case %zu: %s", i, e.msg);
        const char *got = json_string_value(json_object_get(json_array_get(docs, 0), "a"));
        assert_non_null(got);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("case %zu: got \"%s\", want \"%s\"", i, got, cases[i].want);
        json_decref(docs);
    }
}

static void test_decode_file(void **state)
{
    (void)state;
    json_t *docs = NULL;
    struct err e = {{0}};
    char want[600];

    assert_int_equal(yaml_decode_file("/nonexistent/job.yaml", &docs, &e), -ENOENT);
    assert_string_equal(e.msg, "/nonexistent/job.yaml: No such file or directory");

    char *bad = write_temp("a: 1\nb: [\n");
    assert_int_equal(yaml_decode_file(bad, &docs, &e), -EINVAL);
    snprintf(want, sizeof(want),
             "%s: line 3, column 1: did not find expected node content while parsing a flow node",
             bad);
    assert_string_equal(e.msg, want);
    assert_null(docs);

    char *good = write_temp("a: 1\n---\nb: 2\n");
    assert_int_equal(yaml_decode_file(good, &docs, &e), 0);
    assert_int_equal(json_array_size(docs), 2);
    json_decref(docs);
    docs = NULL;

    /* "-" is standard input */
    int saved = dup(STDIN_FILENO), fd = open(good, O_RDONLY);
    assert_true(saved >= 0 && fd >= 0);
    assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    assert_int_equal(yaml_decode_file("-", &docs, &e), 0);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    assert_int_equal(json_array_size(docs), 2);
    json_decref(docs);

    unlink(bad);
    unlink(good);
    free(bad);
    free(good);
}

/* json_equal, but object keys may hold NUL bytes (json_equal looks keys up as C strings). */
static int tree_equal(const json_t *a, const json_t *b)
{
    if (!json_is_object(a) || !json_is_object(b)) {
        if (!json_is_array(a) || !json_is_array(b))
            return json_equal(a, b);
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!tree_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_object_size(a) != json_object_size(b))
        return 0;
    for (void *it = json_object_iter((json_t *)a); it; it = json_object_iter_next((json_t *)a, it)) {
        const json_t *bv = json_object_getn(b, json_object_iter_key(it), json_object_iter_key_len(it));
        if (!bv || !tree_equal(json_object_iter_value(it), bv))
            return 0;
    }
    return 1;
}

/* ---- encoding -------------------------------------------------------------------------------- */

static void assert_roundtrip(const json_t *v, const char *what)
{
    char *text = yaml_encode(v);
    assert_non_null(text);
    json_t *docs = NULL;
    struct err e = {{0}};
    if (yaml_decode(text, strlen(text), &docs, &e) != 0)
        fail_msg("%s: encoded text does not decode: %s\n%s", what, e.msg, text);
    /* a null document is skipped on decoding, like an empty one */
    size_t want_docs = json_is_null(v) ? 0 : 1;
    if (json_array_size(docs) != want_docs || (want_docs && !tree_equal(json_array_get(docs, 0), v))) {
        char *want = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
        char *got = json_dumps(docs, JSON_ENCODE_ANY | JSON_COMPACT);
        fail_msg("%s: round trip differs\nwant %s\n got %s\ntext:\n%s", what, want, got, text);
    }
    json_decref(docs);
    free(text);
}

/* kubectl -o yaml layout: 2 spaces, sequences flush under their key, `- key:` items. */
static void test_encode_layout(void **state)
{
    (void)state;
    json_t *v = tu_json(
        "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\",\"labels\":{}},"
        "\"spec\":{\"containers\":[{\"name\":\"c\",\"args\":[\"--x=1\",\"-v\",\"true\"],"
        "\"env\":[],\"ports\":[{\"containerPort\":80}]}],\"grid\":[[1,2],[]],"
        "\"script\":\"set -e\\necho hi\\n\",\"ratio\":0.5,\"whole\":2.0,\"on\":null}}");
    char *text = yaml_encode(v);
    assert_string_equal(text, "apiVersion: v1\n"
                              "kind: Pod\n"
                              "metadata:\n"
                              "  name: p\n"
                              "  labels: {}\n"
                              "spec:\n"
                              "  containers:\n"
                              "  - name: c\n"
                              "    args:\n"
                              "    - --x=1\n"
                              "    - -v\n"
                              "    - \"true\"\n"
                              "    env: []\n"
                              "    ports:\n"
                              "    - containerPort: 80\n"
                              "  grid:\n"
                              "  - - 1\n"
                              "    - 2\n"
                              "  - []\n"
                              "  script: |\n"
                              "    set -e\n"
                              "    echo hi\n"
                              "  ratio: 0.5\n"
                              "  whole: 2.0\n"
                              "  \"on\": null\n");
    free(text);
    assert_roundtrip(v, "layout");
    json_decref(v);
}

struct scase {
    json_t *(*make)(void);
    const char *want;
};

static json_t *mk_empty_obj(void) { return json_object(); }
static json_t *mk_empty_arr(void) { return json_array(); }
static json_t *mk_str_yes(void) { return json_string("yes"); }
static json_t *mk_int(void) { return json_integer(-42); }
static json_t *mk_real(void) { return json_real(1e21); }
static json_t *mk_null(void) { return json_null(); }
static json_t *mk_multiline(void) { return json_string("a\nb"); }

static void test_encode_scalars(void **state)
{
    (void)state;
    static const struct scase cases[] = {
        {mk_empty_obj, "{}\n"}, {mk_empty_arr, "[]\n"},  {mk_str_yes, "\"yes\"\n"},
        {mk_int, "-42\n"},      {mk_real, "1e+21\n"},    {mk_null, "null\n"},
        {mk_multiline, "\"a\\nb\"\n"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = cases[i].make();
        char *text = yaml_encode(v);
        assert_string_equal(text, cases[i].want);
        free(text);
        json_decref(v);
    }
}

static const char *const tricky[] = {
    "", " ", "  lead", "trail ", "yes", "No", "on", "OFF", "y", "~", "null", "Null", "true",
    "12", "-7", "+12", "0755", "0o17", "0x1F", "0b101", "1_000", "1.5", ".5", "1.", "-2e3",
    ".inf", "-.Inf", ".NaN", "1e400", "08", "12:30", "2001-12-14", "- x", "-", "--flag=1", "-v",
    "---", "...", "--- x", "? x", "?", ":", ": x", "a:", "a: b", "a:b", "a #b", "a#b", "#c",
    "&a", "*a", "!t", "|", ">", "'q'", "\"d\"", "%p", "@a", "`b", "[x]", "{x}", ",", "<<",
    "=", "tab\there", "\t", "cr\r", "x\r\ny", "nul\0x", "é ✓", "\xc2\x85", "\xe2\x80\xa8",
    ("\xef\xbb\xbf" "bom"), "\x7f", "\xc2\x9f", "\n", "\n\n", "a\n", "a\nb", "a\n\n", "\na",
    " a\nb", "a\n b\n", "a \nb", "a\n  \n", "  \n  x", "a\tb\nc", "# not\n# comment",
    "key: value\n- item\n", "--- doc\n...", "x\n---\ny", "\"", "'", "\\", "\\n",
};

static json_t *tricky_string(size_t i)
{
    const char *s = tricky[i];
    size_t n = strcmp(s, "nul") == 0 ? 5 : strlen(s);
    return json_stringn(s, n);
}

/* Every tricky string as a value, a list item, a key and a whole document. */
static void test_encode_tricky_strings(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof(tricky) / sizeof(tricky[0]); i++) {
        json_t *s = tricky_string(i);
        json_t *obj = json_object(), *arr = json_array(), *nested = json_object();
        assert_non_null(s);
        json_object_set(obj, "k", s);
        json_object_setn(obj, json_string_value(s), json_string_length(s), s);
        json_array_append(arr, s);
        json_array_append(arr, obj);
        json_object_set(nested, "list", arr);
        assert_roundtrip(s, tricky[i]);
        assert_roundtrip(obj, tricky[i]);
        assert_roundtrip(nested, tricky[i]);
        json_decref(s);
        json_decref(obj);
        json_decref(arr);
        json_decref(nested);
    }
}

static void test_encode_numbers(void **state)
{
    (void)state;
    static const double reals[] = {0.0, -0.0, 1.0, -2.5, 0.1, 1.0 / 3.0, 1e15, 1e16, 1e-7,
                                   123456789.125, 1.7976931348623157e308, 5e-324, 1e21};
    static const json_int_t ints[] = {0, 1, -1, INT64_MAX, INT64_MIN, 493};
    for (size_t i = 0; i < sizeof(reals) / sizeof(reals[0]); i++) {
        json_t *v = json_pack("{s:f, s:[f]}", "r", reals[i], "l", reals[i]);
        assert_roundtrip(v, "real");
        json_decref(v);
    }
    for (size_t i = 0; i < sizeof(ints) / sizeof(ints[0]); i++) {
        json_t *v = json_pack("{s:I}", "i", ints[i]);
        assert_roundtrip(v, "int");
        json_decref(v);
    }
}

/* Keys too long for an implicit key are written `? key`. */
static void test_encode_long_key(void **state)
{
    (void)state;
    char key[1500];
    memset(key, 'k', sizeof(key) - 1);
    key[sizeof(key) - 1] = 0;
    json_t *v = json_pack("{s:[i,{s:i}], s:{s:{s:s}}, s:s}", key, 1, "a", 2, "n", key, "x",
                          "l1\nl2", "short", "v");
    char *text = yaml_encode(v);
    assert_memory_equal(text, "? \"kkk", 6);
    free(text);
    assert_roundtrip(v, "long key");
    json_decref(v);
}

static void test_encode_decoded_manifest(void **state)
{
    (void)state;
    json_t *v = tu_yaml(dcases[sizeof(dcases) / sizeof(dcases[0]) - 1].in);
    assert_roundtrip(v, "manifest");
    json_decref(v);
}

/* Pseudo-random nested values built from the tricky strings: decode(encode(v)) == v. */
static unsigned long rnd_state = 12345;

static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 6364136223846793005ul + 1442695040888963407ul;
    return (unsigned)(rnd_state >> 33) % n;
}

static json_t *rnd_value(int depth)
{
    size_t nt = sizeof(tricky) / sizeof(tricky[0]);
    unsigned kind = depth > 4 ? rnd(5) : rnd(7);
    static const double reals[] = {0.5, -1e-9, 3.0, 6.02e23};
    json_t *v;
    switch (kind) {
    case 0: return tricky_string(rnd((unsigned)nt));
    case 1: return json_integer((json_int_t)rnd(100000) - 50000);
    case 2: return json_real(reals[rnd(4)]);
    case 3: return json_boolean(rnd(2));
    case 4: return rnd(2) ? json_null() : tricky_string(rnd((unsigned)nt));
    case 5:
        v = json_array();
        for (unsigned i = rnd(4); i > 0; i--)
            json_array_append_new(v, rnd_value(depth + 1));
        return v;
    default:
        v = json_object();
        for (unsigned i = rnd(5); i > 0; i--) {
            json_t *k = tricky_string(rnd((unsigned)nt));
            json_object_setn_new(v, json_string_value(k), json_string_length(k),
                                 rnd_value(depth + 1));
            json_decref(k);
        }
        return v;
    }
}

static void test_encode_roundtrip_random(void **state)
{
    (void)state;
    for (int i = 0; i < 3000; i++) {
        json_t *v = rnd_value(0);
        char what[32];
        snprintf(what, sizeof(what), "random #%d", i);
        assert_roundtrip(v, what);
        json_decref(v);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode_table),
        cmocka_unit_test(test_decode_number_types),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_alias_bomb),
        cmocka_unit_test(test_a_large_scalar_aliased_thousands_of_times_is_refused),
        cmocka_unit_test(test_depth_limit),
        cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_json_surrogates),
        cmocka_unit_test(test_json_keeps_nel_byte_for_byte),
        cmocka_unit_test(test_decode_file),
        cmocka_unit_test(test_encode_layout),
        cmocka_unit_test(test_encode_scalars),
        cmocka_unit_test(test_encode_tricky_strings),
        cmocka_unit_test(test_encode_numbers),
        cmocka_unit_test(test_encode_long_key),
        cmocka_unit_test(test_encode_decoded_manifest),
        cmocka_unit_test(test_encode_roundtrip_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
