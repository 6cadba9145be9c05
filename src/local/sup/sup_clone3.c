/* clone3 with CLONE_VM and a stack of the child's own (with CLONE_VFORK, or CLONE_CHILD_CLEARTID
 * to be told when it has exec'd), the child born in its container's cgroup (CLONE_INTO_CGROUP,
 * Linux 5.7).  Joining a cgroup after the clone, by
 * writing cgroup.procs, takes the kernel's cgroup_threadgroup_rwsem for writing, and that
 * waits out an RCU grace period (kernel/cgroup/cgroup.c, cgroup_attach_lock; bench/README.md
 * measures it); a child cloned into the cgroup only takes the lock for reading
 * (cgroup_css_set_fork).  glibc 2.36 has no clone3 wrapper, and a child sharing our memory on a
 * stack of its own must not return through C code: it starts in a few instructions of assembly
 * (what glibc's clone does for clone(2), sysdeps/unix/sysv/linux/x86_64/clone3.S and
 * aarch64/clone3.S: call fn(arg), then exit with its result).  x86_64 and aarch64 only;
 * elsewhere sup__clone3 says ENOSYS and the caller joins the old way. */
#include "local/sup/sup_int.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>

#ifndef CLONE_INTO_CGROUP
#define CLONE_INTO_CGROUP 0x200000000ULL
#endif

/* struct clone_args of linux/sched.h up to `cgroup` (CLONE_ARGS_SIZE_VER2, 88 bytes). */
struct clone3_args {
    uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    uint64_t set_tid, set_tid_size, cgroup;
};

/* Returns the child's pid, or a negative errno, in the parent; the child runs fn(arg) on the
 * stack of args and exits with its result. */
long sup__clone3_raw(struct clone3_args *args, size_t size, int (*fn)(void *), void *arg);

#if defined(__x86_64__)
#define SUP_HAVE_CLONE3 1
/* rdi args, rsi size, rdx fn, rcx arg; the syscall keeps every register but rax, rcx and r11,
 * and the child starts with the parent's registers on its own (16-byte aligned) stack. */
__asm__(".text\n"
        ".globl sup__clone3_raw\n"
        ".hidden sup__clone3_raw\n"
        ".type sup__clone3_raw, @function\n"
        "sup__clone3_raw:\n"
        "    .cfi_startproc\n"
        "    endbr64\n"
        "    mov %rdx, %r8\n"
        "    mov %rcx, %r9\n"
        "    mov $435, %eax\n" /* __NR_clone3 */
        "    syscall\n"
        "    test %rax, %rax\n"
        "    jz 1f\n"
        "    ret\n"
        "1:  .cfi_undefined rip\n"
        "    xor %ebp, %ebp\n"
        "    mov %r9, %rdi\n"
        "    call *%r8\n"
        "    mov %eax, %edi\n"
        "    mov $60, %eax\n" /* __NR_exit */
        "    syscall\n"
        "    hlt\n"
        "    .cfi_endproc\n"
        ".size sup__clone3_raw, .-sup__clone3_raw\n");
#elif defined(__aarch64__)
#define SUP_HAVE_CLONE3 1
/* x0 args, x1 size, x2 fn, x3 arg; svc keeps every register but x0. */
__asm__(".text\n"
        ".globl sup__clone3_raw\n"
        ".hidden sup__clone3_raw\n"
        ".type sup__clone3_raw, %function\n"
        "sup__clone3_raw:\n"
        "    .cfi_startproc\n"
        "    mov x10, x2\n"
        "    mov x11, x3\n"
        "    mov x8, #435\n" /* __NR_clone3 */
        "    svc #0\n"
        "    cbz x0, 1f\n"
        "    ret\n"
        "1:  .cfi_undefined x30\n"
        "    mov x29, xzr\n"
        "    mov x30, xzr\n"
        "    mov x0, x11\n"
        "    blr x10\n"
        "    mov x8, #93\n" /* __NR_exit */
        "    svc #0\n"
        "    brk #0\n"
        "    .cfi_endproc\n"
        ".size sup__clone3_raw, .-sup__clone3_raw\n");
#else
#define SUP_HAVE_CLONE3 0
#endif

pid_t sup__clone3(int (*fn)(void *), void *arg, void *stack, size_t stack_size, int cg_dirfd,
                  pid_t *parent_tid, int *clear_tid)
{
#if SUP_HAVE_CLONE3
    struct clone3_args a;
    memset(&a, 0, sizeof(a));
    a.flags = CLONE_VM | CLONE_INTO_CGROUP | CLONE_PARENT_SETTID |
              (clear_tid ? CLONE_CHILD_CLEARTID : CLONE_VFORK);
    a.parent_tid = (uint64_t)(uintptr_t)parent_tid;
    a.child_tid = (uint64_t)(uintptr_t)clear_tid;
    a.exit_signal = SIGCHLD;
    a.stack = (uint64_t)(uintptr_t)stack;
    a.stack_size = stack_size;
    a.cgroup = (uint64_t)cg_dirfd;
    long rc = sup__clone3_raw(&a, sizeof(a), fn, arg);
    if (rc < 0) {
        errno = (int)-rc;
        return -1;
    }
    return (pid_t)rc;
#else
    (void)fn, (void)arg, (void)stack, (void)stack_size, (void)cg_dirfd, (void)parent_tid;
    (void)clear_tid;
    errno = ENOSYS;
    return -1;
#endif
}
