// The C interface of rx.h over libre2.  No exception leaves this file: allocation uses
// std::nothrow and RE2 itself reports errors through ok()/error(), never by throwing.
#include "obj/rx.h"

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

extern "C" int rx_compile(const char *pattern, struct rx **out, char **errmsg)
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

extern "C" bool rx_search(const struct rx *r, const char *text, size_t len)
{
    return RE2::PartialMatch(re2::StringPiece(text ? text : "", text ? len : 0), r->re);
}

extern "C" void rx_free(struct rx *r)
{
    delete r;
}

extern "C" int rx_match_once(const char *pattern, const char *text)
{
    struct rx *r = nullptr;
    int rc = rx_compile(pattern, &r, nullptr);
    if (rc < 0)
        return rc;
    bool hit = rx_search(r, text, text ? strlen(text) : 0);
    rx_free(r);
    return hit ? 1 : 0;
}
