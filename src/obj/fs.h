/* fs: small file-system helpers shared by the CLI and the local runner. */
#ifndef JX_FS_H
#define JX_FS_H

/* mkdir -p with mode 0755: 0, or a negative errno. */
int fs_mkdir_p(const char *path);

#endif
