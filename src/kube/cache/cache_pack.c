/* cache_pack: known substrings of compact JSON text as control-byte tokens (cache_pack.h).
 *
 * Token i (0-based) is the byte i + 1 for the first TOK_SHORT words, else TOK_LONG followed by
 * the byte i - TOK_SHORT + 1.  Packing takes, at each position, the longest word that starts
 * there (words are tried by first byte, longest first). */
#include "kube/cache/cache_pack.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define TOK_SHORT 30
#define TOK_LONG 0x1F

/* The most frequent first (one byte each): what a slim Job and Service are made of
 * (kube/ctl/ctl_slim.c), then a JobSet's, a Job template's and a pod template's keys. */
static const char *const words[] = {
    "{\"metadata\":{\"uid\":\"", "\",\"resourceVersion\":\"", "\",\"labels\":{",
    "\"jobset.sigs.k8s.io/", "replicatedjob-name\":\"", "restart-attempt\":\"", "job-index\":\"",
    "\",\"ownerReferences\":[{\"kind\":\"", "JobSet\",\"name\":\"", "\",\"uid\":\"",
    "\",\"controller\":true}]", "\"spec\":{\"suspend\":false,\"parallelism\":",
    ",\"completions\":", "\"status\":{\"conditions\":[]}}", "\"status\":{", "\"conditions\":[",
    "\"metadata\":{", "\"uid\":\"", "\"resourceVersion\":\"", "\"labels\":{",
    "{\"apiVersion\":\"v1\",\"kind\":\"Service\",",
    "{\"apiVersion\":\"jobset.x-k8s.io/v1alpha2\",\"kind\":\"JobSet\",",
    "\"creationTimestamp\":\"", ",\"generation\":", "\"spec\":{", "\"active\":", ",\"failed\":",
    ",\"ready\":", ",\"succeeded\":", ",\"suspended\":",
    /* two bytes each */
    "\"annotations\":{", "\"deletionTimestamp\":\"", "\"ownerReferences\":[{\"kind\":\"",
    "\"suspend\":", "\"parallelism\":", "\"completions\":", "\"startTime\":\"",
    "\"completionTime\":\"", "{\"type\":\"", "\",\"status\":\"True\"", "\",\"status\":\"False\"",
    "\",\"reason\":\"", "\",\"message\":\"", "\",\"lastTransitionTime\":\"",
    "\",\"lastProbeTime\":\"", "\"apiVersion\":\"", "\"kind\":\"", "\"replicatedJobs\":[{",
    "\"groupName\":\"default\",", "\"name\":\"", "\"replicas\":", "\"template\":{\"spec\":{",
    "\"template\":{", "\"backoffLimit\":", "\"containers\":[{", "\"command\":[", "\"args\":[",
    "\"image\":\"", "\"restartPolicy\":\"", "\"completionMode\":\"Indexed\"",
    "\"podReplacementPolicy\":\"", "\"resources\":{", "\"env\":[{", "\"value\":\"",
    "\"replicatedJobsStatus\":[{\"active\":", "\"restarts\":", "\"restartsCountTowardsMax\":",
    "\"terminalState\":\"", "\"network\":{\"enableDNSHostnames\":true",
    ",\"publishNotReadyAddresses\":true", "\"subdomain\":\"", "\"successPolicy\":{\"operator\":\"All\"",
    "\"startupPolicy\":{\"startupPolicyOrder\":\"AnyOrder\"}", "\"failurePolicy\":{\"maxRestarts\":",
    ",\"restartStrategy\":\"Recreate\"",
    "\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\"",
    "\"imagePullPolicy\":\"", "\"dnsPolicy\":\"ClusterFirst\"",
    "\"schedulerName\":\"default-scheduler\"", "\"securityContext\":{}",
    "\"terminationGracePeriodSeconds\":", "\"nodeSelector\":{", "\"jobset.sigs.k8s.io/jobset-name\":\"",
    "\"batch.kubernetes.io/", "\"alpha.jobset.sigs.k8s.io/",
};

#define N_WORDS (sizeof(words) / sizeof(words[0]))

_Static_assert(N_WORDS <= TOK_SHORT + 255, "a two-byte token holds at most 255 words");

/* Word indexes ordered by first byte, then longest first; first[c] .. first[c + 1] are those
 * that start with c.  Built on first use (the cache is used from one thread). */
static struct {
    bool ready;
    uint16_t order[N_WORDS];
    uint16_t first[257];
    uint16_t len[N_WORDS];
} ix;

static int by_first_then_longest(const void *a, const void *b)
{
    uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;
    unsigned char cx = (unsigned char)words[x][0], cy = (unsigned char)words[y][0];
    if (cx != cy)
        return cx < cy ? -1 : 1;
    return ix.len[x] > ix.len[y] ? -1 : ix.len[x] < ix.len[y];
}

static void index_words(void)
{
    if (ix.ready)
        return;
    for (uint16_t i = 0; i < N_WORDS; i++) {
        ix.order[i] = i;
        ix.len[i] = (uint16_t)strlen(words[i]);
    }
    qsort(ix.order, N_WORDS, sizeof(ix.order[0]), by_first_then_longest);
    size_t k = 0;
    for (int c = 0; c < 256; c++) {
        ix.first[c] = (uint16_t)k;
        while (k < N_WORDS && (unsigned char)words[ix.order[k]][0] == c)
            k++;
    }
    ix.first[256] = (uint16_t)k;
    ix.ready = true;
}

/* The longest word at t, or -1 (every word is two bytes or more: the second is compared
 * first, most words starting with a quote). */
static int word_at(const char *t)
{
    unsigned char c = (unsigned char)*t;
    for (uint16_t k = ix.first[c]; k < ix.first[c + 1]; k++) {
        uint16_t w = ix.order[k];
        if (words[w][1] == t[1] && !strncmp(t, words[w], ix.len[w]))
            return w;
    }
    return -1;
}

char *cache_pack(const char *text)
{
    index_words();
    size_t n = strlen(text), o = 0;
    char *out = malloc(n + 1); /* a token is never longer than its word */
    if (!out)
        return NULL;
    for (size_t i = 0; i < n;) {
        if ((unsigned char)text[i] < 0x20) { /* not compact JSON */
            free(out);
            return NULL;
        }
        int w = word_at(text + i);
        if (w < 0) {
            out[o++] = text[i++];
            continue;
        }
        if (w >= TOK_SHORT)
            out[o++] = TOK_LONG;
        out[o++] = (char)(w < TOK_SHORT ? w + 1 : w - TOK_SHORT + 1);
        i += ix.len[w];
    }
    out[o] = 0;
    char *fit = realloc(out, o + 1);
    return fit ? fit : out;
}

/* The index of the word whose token is at p (advancing *p past it), or -1 when no word has
 * that token. */
static long token(const unsigned char **p)
{
    unsigned c = *(*p)++;
    size_t w = c - 1;
    if (c == TOK_LONG) {
        unsigned d = **p;
        if (!d)
            return -1;
        (*p)++;
        w = TOK_SHORT + d - 1;
    }
    return w < N_WORDS ? (long)w : -1;
}

/* The length of the text `packed` stands for, or -1 when it holds a token no word has. */
static long unpacked_len(const char *packed)
{
    long n = 0;
    for (const unsigned char *p = (const unsigned char *)packed; *p;) {
        if (*p >= 0x20) {
            p++;
            n++;
            continue;
        }
        long w = token(&p);
        if (w < 0)
            return -1;
        n += ix.len[w];
    }
    return n;
}

char *cache_unpack(const char *packed, size_t *len)
{
    index_words();
    long n = unpacked_len(packed);
    char *out = n < 0 ? NULL : malloc((size_t)n + 1), *o = out;
    if (!out)
        return NULL;
    for (const unsigned char *p = (const unsigned char *)packed; *p;) {
        if (*p >= 0x20) {
            *o++ = (char)*p++;
            continue;
        }
        long w = token(&p);
        memcpy(o, words[w], ix.len[w]);
        o += ix.len[w];
    }
    *o = 0;
    if (len)
        *len = (size_t)n;
    return out;
}
