/* fs: small file-system helpers shared by the CLI and the local rooms. */
#ifndef JX_FS_H
#define JX_FS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* mkdir -p: missing parents 0755, the last directory `mode` (e.g. 0700).  0, or a negative
 * errno (-ENAMETOOLONG past PATH_MAX). */
int fs_mkdir_p(const char *path, mode_t mode);

/* Creates `path` as a new directory with `mode`, or takes an existing directory that is empty
 * and not a symbolic link.  0; -EEXIST when it exists and is not empty (or not a directory);
 * another negative errno. */
int fs_dir_new_or_empty(const char *path, mode_t mode);

/* Writes all `len` bytes of `data` to `fd`, again after EINTR and after a short write.  0, or
 * the negative errno of the write that failed (-EIO when one wrote nothing). */
int fs_write_all(int fd, const char *data, size_t len);

/* Writes `len` bytes to `path` as a new file of mode 0600 replacing the old one atomically
 * (a temporary file opened with O_EXCL | O_NOFOLLOW, then rename).  0 or a negative errno. */
int fs_write_private(const char *path, const char *data, size_t len);

#endif
