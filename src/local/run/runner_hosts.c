/* Pod hostnames that resolve on one machine.  Every pod of the run is written to
 * <run dir>/hosts as 127.0.0.1 under its short name, <host>.<subdomain> and the cluster FQDN;
 * when Debian's libnss-wrapper is installed, each process gets it preloaded with
 * NSS_WRAPPER_HOSTS pointing at that file, so getaddrinfo("<js>-<rj>-0-0.<subdomain>") finds
 * the local process as cluster DNS would.  Without the library, names do not resolve and
 * programs rely on the JAX variables, which carry 127.0.0.1 and the real port. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local/store/rundir.h"
#include "obj/tree/jx.h"

static const char *const nss_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so", "/usr/lib/aarch64-linux-gnu/libnss_wrapper.so",
    "/usr/lib64/libnss_wrapper.so", "/usr/lib/libnss_wrapper.so",
};

/* Only DNS names go into the hosts file: a control character or a blank in a name (which
 * validation refuses anyway) would add lines of its own. */
static bool dns_chars(const char *s)
{
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '.'))
            return false;
    return true;
}

static FILE *hosts_create(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f && fd >= 0)
        close(fd);
    return f;
}

int runner__hosts_setup(struct run *r, struct err *err)
{
    const struct js_view *v = &r->m->view;
    char path[PATH_MAX], host[RUN_NAME_MAX]; /* run dir: at most RD_DIR_MAX (rundir.h) */
    if (!dns_chars(v->subdomain) || !dns_chars(v->ns))
        return err_set(err, -EINVAL, "the subdomain and namespace must be DNS names");
    FILE *f = *rd_file(path, sizeof(path), r->o->run_dir, RD_HOSTS) ? hosts_create(path) : NULL;
    if (!f)
        return err_set(err, -errno, "%s: %s", path, strerror(errno));
    fprintf(f, "127.0.0.1 localhost\n");
    for (size_t i = 0; i < v->n_rj; i++)
        for (long long j = 0; j < v->rj[i].replicas; j++)
            for (long long p = 0; p < v->rj[i].pods_per_job; p++) {
                js_pod_hostname(v, i, j, p, host, sizeof(host));
                if (!dns_chars(host)) {
                    fclose(f);
                    return err_set(err, -EINVAL, "pod hostname %s is not a DNS name", host);
                }
                fprintf(f, "127.0.0.1 %s %s.%s %s.%s.%s.svc.cluster.local\n", host, host,
                        v->subdomain, host, v->subdomain, v->ns);
            }
    if (fclose(f) != 0)
        return err_set(err, -EIO, "%s: write failed", path);
    for (size_t i = 0; i < sizeof(nss_paths) / sizeof(nss_paths[0]); i++)
        if (access(nss_paths[i], R_OK) == 0) {
            r->nss_lib = nss_paths[i];
            break;
        }
    return 0;
}

/* The hosts file a container sets for nss_wrapper itself: the last literal NSS_WRAPPER_HOSTS
 * of its env, else jaxset's own; NULL when none. */
static const char *own_hosts_file(const json_t *container)
{
    const char *v = getenv("NSS_WRAPPER_HOSTS");
    const json_t *env = jx_arr(container, "env");
    for (size_t i = 0; i < json_array_size(env); i++) {
        const json_t *e = json_array_get(env, i);
        const char *name = jx_str(e, "name");
        if (name && !strcmp(name, "NSS_WRAPPER_HOSTS") && jx_str(e, "value"))
            v = jx_str(e, "value");
    }
    return v && *v ? v : NULL;
}

/* Appends the file `path` to f; 0 or -errno. */
static int append_file(FILE *f, const char *path)
{
    char buf[8192];
    size_t n;
    FILE *in = fopen(path, "re");
    if (!in)
        return -errno;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, n, f);
    fclose(in);
    return 0;
}

/* <run dir>/hosts followed by the container's own hosts file, in <run dir>/hosts.<hash>; the
 * merged file is written once per distinct file.  0 or -errno. */
static int merged_hosts(const struct run *r, const char *own, char *out, size_t n)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a of the path */
    for (const char *c = own; *c; c++)
        h = (h ^ (unsigned char)*c) * 1099511628211ull;
    snprintf(out, n, "%s/hosts.%016llx", r->o->run_dir, (unsigned long long)h);
    if (access(out, R_OK) == 0)
        return 0;
    char ours[PATH_MAX]; /* run dir: at most RD_DIR_MAX (rundir.h) */
    rd_file(ours, sizeof(ours), r->o->run_dir, RD_HOSTS);
    FILE *f = fopen(out, "we");
    if (!f)
        return -errno;
    int rc = append_file(f, ours);
    if (rc == 0)
        rc = append_file(f, own);
    if (fclose(f) != 0 && rc == 0)
        rc = -EIO;
    if (rc < 0)
        unlink(out);
    return rc;
}

int runner__hosts_env(const struct run *r, const json_t *container, json_t *extra)
{
    char hosts[PATH_MAX]; /* run dir: at most RD_DIR_MAX (rundir.h) */
    if (!r->nss_lib || r->o->images) /* in an image, /etc/hosts is the run's (runner_images.c) */
        return 0;
    const char *own = own_hosts_file(container);
    rd_file(hosts, sizeof(hosts), r->o->run_dir, RD_HOSTS);
    if (own && strcmp(own, hosts) != 0 && merged_hosts(r, own, hosts, sizeof(hosts)) < 0)
        return -EINVAL;
    json_t *pre = json_pack("{s:s,s:s,s:s}", "name", "LD_PRELOAD", "value", r->nss_lib, "join",
                            ":");
    if (!pre || json_array_append_new(extra, pre) < 0)
        return -ENOMEM;
    json_t *file = json_pack("{s:s,s:s}", "name", "NSS_WRAPPER_HOSTS", "value", hosts);
    return file && json_array_append_new(extra, file) == 0 ? 0 : -ENOMEM;
}
