/* The runner's side of volumes (local/volumes.h): set up once per run, before anything
 * starts. */
#include "local/runner_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "local/nsroot.h"
#include "local/rundir.h"
#include "obj/ferr.h"
#include "obj/jx.h"
#include "obj/sbuf.h"

/* Whether the job's pods mount claim `claim`: a persistentVolumeClaim volume of a pod
 * template, or a claim of spec.volumeClaimPolicies ("<template>-<jobset>"). */
static bool job_claims(const struct manifest *m, const char *claim, size_t len)
{
    for (size_t r = 0; r < m->view.n_rj; r++) {
        size_t i;
        const json_t *v;
        json_array_foreach (jx_arr(jx_path(m->view.rj[r].tmpl, "spec.template.spec"), "volumes"),
                            i, v) {
            const char *c = jx_str(jx_obj(v, "persistentVolumeClaim"), "claimName");
            if (c && strlen(c) == len && !strncmp(c, claim, len))
                return true;
        }
    }
    size_t i, k;
    const json_t *pol, *t;
    size_t nl = strlen(m->view.name);
    json_array_foreach (jx_arr(jx_obj(m->jobset, "spec"), "volumeClaimPolicies"), i, pol)
        json_array_foreach (jx_arr(pol, "templates"), k, t) {
            const char *n = jx_str(jx_obj(t, "metadata"), "name");
            size_t tl = n ? strlen(n) : 0;
            if (n && tl + 1 + nl == len && !strncmp(claim, n, tl) && claim[tl] == '-' &&
                !strncmp(claim + tl + 1, m->view.name, nl))
                return true;
        }
    return false;
}

static int check_pvc_flags(const struct run *r, struct err *err)
{
    for (size_t i = 0; i < r->o->n_pvc; i++) {
        const char *a = r->o->pvc[i], *eq = strchr(a, '=');
        int rc = vol_pvc_check(a, err);
        if (rc < 0)
            return rc;
        if (!job_claims(r->m, a, (size_t)(eq - a)))
            return err_set(err, -EINVAL, "--pvc %s: no pod of the job mounts a claim named "
                                         "\"%.*s\"", a, (int)(eq - a), a);
    }
    return 0;
}

int run__volumes_setup(struct run *r, struct err *err)
{
    char what[FPATH_MAX + 512];
    struct err why = {{0}};
    r->vr = (struct vol_run){.objects = r->m->objects, .pvc = r->o->pvc, .n_pvc = r->o->n_pvc};
    char *dir = realpath(r->o->run_dir, NULL);
    if (!dir)
        return err_set(err, -errno, "%s: %s", r->o->run_dir, strerror(errno));
    r->vr.run_dir = dir;
    int rc = check_pvc_flags(r, err);
    if (rc < 0 || r->o->volumes == RUNNER_VOLUMES_SKIP || !vol_first_mount(r->m, what, sizeof(what)))
        return rc;
    if ((rc = nsr_probe(&why)) < 0)
        return err_set(err, rc, "%s: the pods' volumes are mounted in a mount namespace of "
                                "each pod, which this machine does not allow: %s "
                                "(--volumes=skip runs the pods without their volumes)",
                       what, why.msg);
    return 0;
}

static void note_skipped(void *ctx, const char *what)
{
    run__note(ctx, "%s is not mounted (--volumes=skip): the processes see this machine's own "
                   "files there", what);
}

void run__volumes_notes(struct run *r)
{
    if (r->o->volumes == RUNNER_VOLUMES_SKIP)
        vol_each_mount(r->m, note_skipped, r);
}

void run__volumes_release(struct run *r)
{
    char *dir = r->vr.run_dir ? sb_fmt("%s/" RD_POD_VOLUMES, r->vr.run_dir) : NULL;
    if (dir)
        rmdir(dir); /* every pod's were removed with it: no trace unless one is left */
    free(dir);
    free((char *)r->vr.run_dir);
    r->vr.run_dir = NULL;
}
