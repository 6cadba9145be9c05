/* Pod hostnames that resolve on one machine.  Every pod of the run is written to
 * <run dir>/hosts as 127.0.0.1 under its short name, <host>.<subdomain> and the cluster FQDN;
 * when Debian's libnss-wrapper is installed, each process gets it preloaded with
 * NSS_WRAPPER_HOSTS pointing at that file, so getaddrinfo("<js>-<rj>-0-0.<subdomain>") finds
 * the local process as cluster DNS would.  Without the library, names do not resolve and
 * programs rely on the JAX variables, which carry 127.0.0.1 and the real port. */
#include "local/runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local/rundir.h"

static const char *const nss_paths[] = {
    "/usr/lib/x86_64-linux-gnu/libnss_wrapper.so", "/usr/lib/aarch64-linux-gnu/libnss_wrapper.so",
    "/usr/lib64/libnss_wrapper.so", "/usr/lib/libnss_wrapper.so",
};

int run__hosts_setup(struct run *r, struct err *err)
{
    const struct js_view *v = &r->m->view;
    char path[1024], host[RUN_NAME_MAX];
    FILE *f = fopen(rd_file(path, sizeof(path), r->o->run_dir, RD_HOSTS), "we");
    if (!f)
        return err_set(err, -errno, "%s: %s", path, strerror(errno));
    fprintf(f, "127.0.0.1 localhost\n");
    for (size_t i = 0; i < v->n_rj; i++)
        for (long long j = 0; j < v->rj[i].replicas; j++)
            for (long long p = 0; p < v->rj[i].pods_per_job; p++) {
                js_pod_hostname(v, i, j, p, host, sizeof(host));
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

int run__hosts_env(const struct run *r, json_t *extra)
{
    char hosts[1024], preload[2048];
    if (!r->nss_lib)
        return 0;
    const char *old = getenv("LD_PRELOAD");
    rd_file(hosts, sizeof(hosts), r->o->run_dir, RD_HOSTS);
    snprintf(preload, sizeof(preload), "%s%s%s", r->nss_lib, old && *old ? ":" : "",
             old ? old : "");
    int rc = run__env_add(extra, "LD_PRELOAD", preload);
    return rc ? rc : run__env_add(extra, "NSS_WRAPPER_HOSTS", hosts);
}
