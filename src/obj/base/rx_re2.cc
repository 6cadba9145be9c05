// The RE2 module of rx.h (obj/base/rx.c loads it on first use, so that a run without patterns
// never maps libre2 and libstdc++).  A C interface over libre2; no exception leaves this file:
// allocation uses std::nothrow and RE2 reports errors through ok()/error(), never by throwing.
#include "obj/base/rx_module.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <new>

#include <re2/re2.h>

struct rx {
    RE2 re;
    rx(const char *pattern, const RE2::Options &o) : re(pattern, o) {}
};

static RE2::Options go_options()
{
    RE2::Options o;
    o.set_encoding(RE2::Options::EncodingUTF8);
    o.set_log_errors(false);
    o.set_longest_match(false); // Go's default leftmost-first semantics
    return o;
}

extern "C" int rxm_compile(const char *pattern, struct rx **out, char **errmsg)
{
    if (errmsg)
        *errmsg = nullptr;
    rx *r = new (std::nothrow) rx(pattern ? pattern : "", go_options());
    if (!r)
        return -ENOMEM;
    if (!r->re.ok()) {
        if (errmsg)
            *errmsg = strdup(r->re.error().c_str());
        delete r;
        return -EINVAL;
    }
    *out = r;
    return 0;
}

extern "C" bool rxm_search(const struct rx *r, const char *text, size_t len)
{
    return RE2::PartialMatch(re2::StringPiece(text ? text : "", text ? len : 0), r->re);
}

extern "C" void rxm_free(struct rx *r)
{
    delete r;
}
