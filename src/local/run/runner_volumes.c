/* The runner's side of volumes (local/vol/volumes.h): set up once per run, before anything
 * starts. */
#include "local/run/runner_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/child/construct.h"
#include "local/ns/nsroot.h"
#include "local/store/rundir.h"
#include "obj/tree/ferr.h"
#include "obj/tree/jx.h"
#include "obj/base/sbuf.h"

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

/* The pod spec child Jobs of replicated job i give their pods: the template's, with the
 * volumes of spec.volumeClaimPolicies (constructJob).  A new reference, NULL on OOM. */
static json_t *child_pod_spec(const struct manifest *m, size_t i)
{
    json_t *ps = json_deep_copy(jx_path(m->view.rj[i].tmpl, "spec.template.spec"));
    if (ps && construct_pvc_volumes(m->jobset, &m->view, ps) < 0) {
        json_decref(ps);
        return NULL;
    }
    return ps;
}

/* Every replicated job's namespace, and once that a container can enter one. */
static int build_templates(struct run *r, struct err *err)
{
    const struct manifest *m = r->m;
    bool probed = false;
    r->vol_tmpl = calloc(m->view.n_rj + 1, sizeof(*r->vol_tmpl));
    if (!r->vol_tmpl)
        return err_oom(err);
    for (size_t i = 0; i < m->view.n_rj; i++) {
        char what[FPATH_MAX + 512];
        struct err why = {{0}};
        json_t *ps = child_pod_spec(m, i);
        /* the hostPaths made first: what fails there is no namespace's fault */
        fpath_fmt(what, "spec.replicatedJobs[%zu].template.spec.template.spec", i);
        int rc = ps ? vol_host_paths(ps, what, err) : 0;
        if (rc < 0) {
            json_decref(ps);
            return rc;
        }
        rc = ps ? vol_tmpl_new(&r->vr, ps, m->view.ns, &r->vol_tmpl[i], &why) : err_oom(&why);
        json_decref(ps);
        if (rc == 0 && r->vol_tmpl[i] && !probed) {
            rc = vol_tmpl_probe(r->vol_tmpl[i], &why);
            probed = true;
        }
        if (rc < 0 && vol_first_mount(m, i, what, sizeof(what)))
            return err_set(err, rc, "%s: the pods' volumes cannot be mounted here (jaxset "
                                    "mounts them in a mount namespace of each pod): %s; "
                                    "--volumes=skip runs the pods without them",
                           what, why.msg);
        if (rc < 0)
            return err_set(err, rc, "%s", why.msg);
    }
    return 0;
}

int runner__volumes_setup(struct run *r, struct err *err)
{
    r->vr = (struct vol_run){.objects = r->m->objects, .pvc = r->o->pvc, .n_pvc = r->o->n_pvc};
    char *dir = realpath(r->o->run_dir, NULL);
    if (!dir)
        return err_set(err, -errno, "%s: %s", r->o->run_dir, strerror(errno));
    r->vr.run_dir = dir;
    int rc = check_pvc_flags(r, err);
    if (rc < 0 || r->o->volumes == RUNNER_VOLUMES_SKIP)
        return rc;
    return build_templates(r, err);
}

static void note_skipped(void *ctx, const char *what)
{
    runner__note(ctx, "%s is not mounted (--volumes=skip): the processes see this machine's own "
                      "files there", what);
}

void runner__volumes_notes(struct run *r)
{
    if (r->o->volumes == RUNNER_VOLUMES_SKIP)
        vol_each_mount(r->m, SIZE_MAX, note_skipped, r);
}

void runner__volumes_release(struct run *r)
{
    char *dir = r->vr.run_dir ? store_pod_volumes(r->vr.run_dir, NULL) : NULL;
    if (dir)
        rmdir(dir); /* every pod's were removed with it: no trace unless one is left */
    free(dir);
    free((char *)r->vr.run_dir);
    r->vr.run_dir = NULL;
    for (size_t i = 0; r->vol_tmpl && i < r->m->view.n_rj; i++)
        vol_tmpl_free(r->vol_tmpl[i]);
    free(r->vol_tmpl);
    r->vol_tmpl = NULL;
}
