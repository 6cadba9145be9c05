/* kc (the REST client): the multi handle driven by curl_multi_socket_action (kc_int.h).
 *
 * curl_multi_perform walks every transfer and, for each one that was not told which of its
 * sockets is ready, polls that socket with a zero timeout: with fifty requests multiplexed on
 * one HTTP/2 connection the controller made ~40 poll(2) calls per loop turn (strace -c: 61,251
 * polls in 20 s beside 1,425 loop turns), a fifth of its CPU time under load.  With
 * socket_action curl says which sockets it waits on and when it wants its timeout, the loop
 * polls those once, and each readiness goes to the transfers of that socket with its bits. */
#include <errno.h>
#include <stdlib.h>

#include "kube/client/kc_int.h"
#include "obj/base/ktime.h"

static int on_socket(CURL *easy, curl_socket_t s, int what, void *userp, void *sockp)
{
    (void)easy;
    (void)sockp;
    struct kc *c = userp;
    size_t i = 0;
    while (i < c->n_socks && c->socks[i].fd != s)
        i++;
    if (what == CURL_POLL_REMOVE) {
        if (i < c->n_socks)
            c->socks[i] = c->socks[--c->n_socks];
        return 0;
    }
    if (i == c->n_socks) {
        if (c->n_socks == c->cap_socks) {
            size_t cap = c->cap_socks ? 2 * c->cap_socks : 16;
            struct pollfd *p = realloc(c->socks, cap * sizeof(*p));
            if (!p)
                return -1;
            c->socks = p;
            c->cap_socks = cap;
        }
        c->n_socks++;
    }
    c->socks[i] = (struct pollfd){.fd = s,
                                  .events = (short)(((what & CURL_POLL_IN) ? POLLIN : 0) |
                                                    ((what & CURL_POLL_OUT) ? POLLOUT : 0))};
    return 0;
}

static int on_timer(CURLM *m, long timeout_ms, void *userp)
{
    (void)m;
    struct kc *c = userp;
    c->timer_ms = timeout_ms;
    c->timer_at_ms = kt_mono_ms();
    return 0;
}

int kc__poll_setup(struct kc *c)
{
    c->timer_ms = -1;
    if (curl_multi_setopt(c->m, CURLMOPT_SOCKETFUNCTION, on_socket) != CURLM_OK ||
        curl_multi_setopt(c->m, CURLMOPT_SOCKETDATA, c) != CURLM_OK ||
        curl_multi_setopt(c->m, CURLMOPT_TIMERFUNCTION, on_timer) != CURLM_OK ||
        curl_multi_setopt(c->m, CURLMOPT_TIMERDATA, c) != CURLM_OK)
        return -ENOMEM;
    return 0;
}

int64_t kc__poll_timer_left(const struct kc *c)
{
    if (c->timer_ms < 0)
        return INT64_MAX;
    int64_t left = c->timer_at_ms + c->timer_ms - kt_mono_ms();
    return left < 0 ? 0 : left;
}

/* Runs curl's timeout once it is due (new transfers start there). */
void kc__poll_timer(struct kc *c)
{
    int running;
    if (c->timer_ms >= 0 && kc__poll_timer_left(c) == 0) {
        c->timer_ms = -1; /* curl sets it again from inside when it wants another */
        curl_multi_socket_action(c->m, CURL_SOCKET_TIMEOUT, 0, &running);
    }
}

void kc__poll_wait(struct kc *c, struct pollfd *extra, size_t n_extra, int timeout_ms)
{
    size_t n = c->n_socks + n_extra;
    if (n > c->cap_waitset) { /* grown once, reused every turn of the loop */
        struct pollfd *w = realloc(c->waitset, n * sizeof(*w));
        if (!w) { /* no memory for the set: wait on nothing, curl's timeout still runs */
            poll(NULL, 0, timeout_ms > 10 ? 10 : timeout_ms);
            return;
        }
        c->waitset = w;
        c->cap_waitset = n;
    }
    struct pollfd *p = c->waitset;
    for (size_t i = 0; i < n_extra; i++)
        p[i] = extra[i];
    for (size_t i = 0; i < c->n_socks; i++)
        p[n_extra + i] = c->socks[i];
    int k = poll(p, (nfds_t)n, timeout_ms);
    for (size_t i = 0; i < n_extra; i++)
        extra[i].revents = k > 0 ? p[i].revents : 0;
    int running;
    /* a copy: the actions change c->socks through on_socket */
    for (size_t i = n_extra; k > 0 && i < n; i++) {
        short r = p[i].revents;
        if (!r)
            continue;
        int ev = ((r & (POLLIN | POLLHUP)) ? CURL_CSELECT_IN : 0) |
                 ((r & POLLOUT) ? CURL_CSELECT_OUT : 0) |
                 ((r & (POLLERR | POLLNVAL)) ? CURL_CSELECT_ERR : 0);
        curl_multi_socket_action(c->m, p[i].fd, ev, &running);
    }
}
