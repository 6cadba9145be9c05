/* module: the shared objects jaxset loads with dlopen instead of linking them, so that a run
 * maps only what it uses: libjaxset_rx.so (RE2, obj/base/rx.c) and libjaxset_cluster.so (the
 * commands that reach a cluster, with libcurl, libmicrohttpd and GnuTLS; cli/main.c).  They
 * are built beside the jaxset binary and installed into the library folder of GNUInstallDirs
 * (CMakeLists.txt). */
#ifndef JX_OBJ_MODULE_H
#define JX_OBJ_MODULE_H

/* Where the modules are installed, relative to the binary's folder (CMakeLists.txt defines it
 * from GNUInstallDirs); beside the binary in a build tree. */
#ifndef JAXSET_MODULES_FROM_BIN
#define JAXSET_MODULES_FROM_BIN "../lib/jaxset"
#endif

/* dlopen (RTLD_NOW | RTLD_LOCAL) of module `file` beside /proc/self/exe when it is there, else
 * in JAXSET_MODULES_FROM_BIN from there; NULL when it cannot be loaded (dlerror() says why). */
void *module_open(const char *file);

#endif
