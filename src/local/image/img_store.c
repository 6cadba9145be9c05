/* img: images from the local containers store, through podman (see img.h).  podman runs with
 * the store's configured driver unless JAXSET_PODMAN_ARGS adds options (the tests' and these
 * machines' "--storage-driver vfs --runtime runc"). */
#include "local/image/img.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "obj/base/fs.h"
#include "obj/base/sbuf.h"
#include "obj/tree/jx.h"

extern char **environ;

#define PODMAN_ARGS_MAX 8

/* argv = podman, JAXSET_PODMAN_ARGS' words, args...; `words` holds the copy split. */
static int podman_argv(const char *const *args, char *words, const char **argv, size_t cap)
{
    size_t n = 0;
    argv[n++] = "podman";
    char *save = NULL;
    for (char *tok = strtok_r(words, " \t", &save); tok && n < PODMAN_ARGS_MAX + 1;
         tok = strtok_r(NULL, " \t", &save))
        argv[n++] = tok;
    for (; *args && n + 1 < cap; args++)
        argv[n++] = *args;
    argv[n] = NULL;
    return *args ? -E2BIG : 0;
}

/* Reads fd to its end into b (NULL: discarded).  podman's stderr is read after its stdout:
 * what it says there (an error, a warning) fits in the pipe. */
static void read_all(struct sbuf *b, int fd)
{
    char buf[8192];
    ssize_t n;
    while ((n = read(fd, buf, sizeof(buf))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (b)
            sb_append(b, buf, (size_t)n);
    }
}

/* Runs podman with args; its stdout into *out (may be NULL: discarded), its stderr into
 * *errout (NULL: discarded).  The exit status, or a negative errno. */
static int podman(const char *const *args, struct sbuf *out, struct sbuf *errout)
{
    const char *env = getenv("JAXSET_PODMAN_ARGS");
    char words[512];
    const char *argv[32];
    int po[2] = {-1, -1}, pe[2] = {-1, -1}, status = 0, rc;
    snprintf(words, sizeof(words), "%s", env ? env : "");
    if ((rc = podman_argv(args, words, argv, 32)) < 0)
        return rc;
    if (pipe2(po, O_CLOEXEC) < 0 || pipe2(pe, O_CLOEXEC) < 0) {
        rc = -errno;
        goto out;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, po[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pe[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    rc = -posix_spawnp(&pid, "podman", &fa, NULL, (char *const *)argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(po[1]);
    close(pe[1]);
    po[1] = pe[1] = -1;
    if (rc < 0)
        goto out;
    read_all(out, po[0]);
    read_all(errout, pe[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
out:
    for (int i = 0; i < 2; i++) {
        if (po[i] >= 0)
            close(po[i]);
        if (pe[i] >= 0)
            close(pe[i]);
    }
    return rc;
}

static bool on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char buf[PATH_MAX];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t n = strcspn(p, ":");
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, p, prog);
        if (access(buf, X_OK) == 0)
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

int img_check_host(struct err *err)
{
    if (!on_path("podman"))
        return err_set(err, -ENOTSUP, "--images needs podman, to find and unpack the images of "
                       "the local containers store: apt-get install podman runc");
    if (geteuid() != 0)
        return err_set(err, -ENOTSUP, "--images needs root here (each container's root is an "
                       "overlay mount of its image): run jaxset as root");
    return 0;
}

/* The store's config of ref (inspect's first element), or NULL when it has no such image. */
static json_t *inspect(const char *ref)
{
    struct sbuf out = {0};
    const char *args[] = {"image", "inspect", "--format", "json", ref, NULL};
    json_t *all = NULL, *one = NULL;
    if (podman(args, &out, NULL) == 0 && !sb_failed(&out) && out.len)
        all = json_loadb(out.s, out.len, 0, NULL);
    if (json_is_array(all) && json_is_object(json_array_get(all, 0)))
        one = json_incref(json_array_get(all, 0));
    json_decref(all);
    sb_free(&out);
    return one;
}

/* `podman pull`; on failure -ENOENT with podman's last line and the remedy (`present`: the
 * store has the image, which policy Always does not take without a pull). */
static int pull(const char *ref, bool present, struct err *err)
{
    struct sbuf e = {0};
    const char *args[] = {"pull", "--quiet", ref, NULL};
    int rc = podman(args, NULL, &e);
    if (rc != 0) {
        const char *s = sb_str(&e);
        size_t n = strlen(s);
        while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
            n--;
        size_t from = n; /* podman's last line */
        while (from && s[from - 1] != '\n')
            from--;
        if (present)
            err_set(err, -ENOENT, "image %s: imagePullPolicy is Always and the pull failed "
                    "(%.*s): set IfNotPresent or Never to run the image the local store has, "
                    "or pull it where a registry answers", ref,
                    (int)(n - from > 300 ? 300 : n - from), s + from);
        else
            err_set(err, -ENOENT, "image %s: not in the local containers store and not pulled "
                    "(%.*s): `podman pull %s` where a registry answers, or `podman load -i "
                    "ARCHIVE`", ref, (int)(n - from > 300 ? 300 : n - from), s + from, ref);
    }
    sb_free(&e);
    return rc == 0 ? 0 : -ENOENT;
}

/* Copies the image's root filesystem out of the store into dir (made; it must not exist):
 * `podman image mount`, cp -a, `podman image unmount`. */
static int unpack(const char *ref, const char *dir, struct err *err)
{
    struct sbuf out = {0};
    const char *mnt[] = {"image", "mount", ref, NULL}, *umnt[] = {"image", "unmount", ref, NULL};
    int rc = podman(mnt, &out, NULL);
    char *src = NULL;
    if (rc != 0 || sb_failed(&out) || !out.len) {
        sb_free(&out);
        return err_set(err, -EIO, "image %s: podman image mount failed (exit %d)", ref, rc);
    }
    while (out.len && (out.s[out.len - 1] == '\n'))
        out.s[--out.len] = '\0';
    src = sb_fmt("%s/.", out.s);
    sb_free(&out);
    pid_t pid;
    const char *cp[] = {"cp", "-a", "--reflink=auto", src, dir, NULL};
    int status = 0;
    if (!src || mkdir(dir, 0755) < 0)
        rc = -errno;
    else if ((rc = -posix_spawnp(&pid, "cp", NULL, NULL, (char *const *)cp, environ)) == 0) {
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
        rc = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EIO;
    }
    podman(umnt, NULL, NULL);
    free(src);
    if (rc < 0)
        return err_set(err, rc, "image %s: copying its root filesystem into %s failed", ref, dir);
    return 0;
}

/* <cache>/<id>/rootfs, unpacked when missing (into a temporary name, then renamed, so that a
 * run killed while it copies leaves no half root behind a good name). */
static int cached_rootfs(const char *ref, const char *id, const char *cache, char **out,
                         struct err *err)
{
    char *base = sb_fmt("%s/%s", cache, id), *root = sb_fmt("%s/%s/rootfs", cache, id);
    char *tmp = sb_fmt("%s/%s/rootfs.%ld", cache, id, (long)getpid());
    struct stat st;
    int rc = !base || !root || !tmp ? err_set(err, -ENOMEM, "out of memory") : 0;
    if (rc == 0 && stat(root, &st) != 0) {
        if ((rc = fs_mkdir_p(base, 0755)) < 0)
            err_set(err, rc, "%s: %s", base, strerror(-rc));
        else if ((rc = unpack(ref, tmp, err)) == 0 && rename(tmp, root) < 0 && errno != EEXIST &&
                 errno != ENOTEMPTY)
            rc = err_set(err, -errno, "%s: %s", root, strerror(errno));
    }
    free(base);
    free(tmp);
    if (rc < 0) {
        free(root);
        return rc;
    }
    *out = root;
    return 0;
}

int img_resolve(const char *ref, const char *policy, const char *cache, struct img *out,
                struct err *err)
{
    json_t *info = NULL;
    struct img im = {0};
    int rc = 0;
    if (!policy)
        policy = img_default_policy(ref);
    if (strcmp(policy, "Always") == 0) {
        json_t *had = inspect(ref);
        rc = pull(ref, had != NULL, err);
        json_decref(had);
    }
    if (rc == 0 && !(info = inspect(ref))) {
        if (strcmp(policy, "Never") == 0)
            rc = err_set(err, -ENOENT, "image %s: not in the local containers store and "
                         "imagePullPolicy is Never: `podman load -i ARCHIVE` or `podman pull "
                         "%s`", ref, ref);
        else if (strcmp(policy, "IfNotPresent") == 0 && (rc = pull(ref, false, err)) == 0 &&
                 !(info = inspect(ref)))
            rc = err_set(err, -ENOENT, "image %s: pulled but not found in the store", ref);
    }
    if (rc < 0)
        goto out;
    const char *id = jx_str(info, "Id");
    im.ref = strdup(ref);
    im.id = id ? strdup(id) : NULL;
    im.config = json_incref(jx_obj(info, "Config"));
    if (!im.config)
        im.config = json_object();
    if (!im.ref || !im.id || !im.config) {
        rc = err_set(err, -ENOMEM, "image %s: no id in podman's inspect", ref);
        goto out;
    }
    if ((rc = cached_rootfs(ref, im.id, cache, &im.rootfs, err)) < 0)
        goto out;
    *out = im;
    memset(&im, 0, sizeof(im));
out:
    img_release(&im);
    json_decref(info);
    return rc;
}

void img_release(struct img *im)
{
    if (!im)
        return;
    free(im->ref);
    free(im->id);
    free(im->rootfs);
    json_decref(im->config);
    memset(im, 0, sizeof(*im));
}
