/*
 * User-space context switches between the controlled threads of an
 * execution.
 *
 * Every controlled thread is backed by a real pthread of the pool, which
 * owns a stack and a thread control block (TLS, errno, pthread_self) and
 * then parks with all signals blocked. The threads of an execution all run
 * on one kernel thread, the controller's: a handoff saves the callee-saved
 * registers and the stack pointer of one context, loads the other's, and
 * points the FS base (the thread pointer) at the other thread's control
 * block, so each controlled thread keeps its own TLS and pthread_self()
 * (thread 0 runs on the controller's control block, which the controller
 * does not use while an execution runs: switching between the two moves
 * no FS base at all, lu__ctx_switch_keep).
 * That costs tens of nanoseconds where a futex handoff between kernel
 * threads costs microseconds (two kernel context switches), and it leaves
 * no kernel scheduling in the loop at all.
 *
 * x86-64 only: FSGSBASE (wrfsbase) where the CPU and kernel enable it,
 * arch_prctl(ARCH_SET_FS) otherwise.
 */
#define _GNU_SOURCE
#include "lu_sched_int.h"

#include <sys/auxv.h>

#if !defined(__x86_64__)
#error "lineup's scheduler switches contexts with x86-64 code: port lu_sched_ctx.c first"
#endif

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif

/*
 * void lu__ctx_switch_fsbase(void **save_sp, void *new_sp, uintptr_t new_fs)
 * void lu__ctx_switch_prctl(void **save_sp, void *new_sp, uintptr_t new_fs)
 * void lu__ctx_switch_keep(void **save_sp, void *new_sp, uintptr_t new_fs)
 *
 * Frame of a suspended context, from its saved stack pointer up:
 *   [0] MXCSR (4 bytes) and x87 control word (2 bytes): callee-saved by the ABI
 *   [1] r15 [2] r14 [3] r13 [4] r12 [5] rbx [6] rbp [7] return address
 *
 * LU__CTX_SAVE pushes the callee-saved state of the running context and stores its
 * stack pointer at *save_sp (%rdi): the first half of every switch.
 */
#define LU__CTX_SAVE                                                                                         \
    "  pushq %rbp\n"                                                                                         \
    "  pushq %rbx\n"                                                                                         \
    "  pushq %r12\n"                                                                                         \
    "  pushq %r13\n"                                                                                         \
    "  pushq %r14\n"                                                                                         \
    "  pushq %r15\n"                                                                                         \
    "  subq $8, %rsp\n"                                                                                      \
    "  stmxcsr (%rsp)\n"                                                                                     \
    "  fnstcw 4(%rsp)\n"                                                                                     \
    "  movq %rsp, (%rdi)\n"

__asm__(".text\n"
        ".globl lu__ctx_switch_fsbase\n"
        ".hidden lu__ctx_switch_fsbase\n"
        ".type lu__ctx_switch_fsbase,@function\n"
        "lu__ctx_switch_fsbase:\n"
        "  .cfi_startproc\n" LU__CTX_SAVE "  wrfsbase %rdx\n"
        "  movq %rsi, %rsp\n"
        "  jmp lu__ctx_resume\n"
        "  .cfi_endproc\n"
        ".size lu__ctx_switch_fsbase, .-lu__ctx_switch_fsbase\n"

        /* the same FS base on both sides (thread 0 runs on the
         * controller's thread pointer, and under a shared TLS every
         * controlled thread does): no write at all */
        ".globl lu__ctx_switch_keep\n"
        ".hidden lu__ctx_switch_keep\n"
        ".type lu__ctx_switch_keep,@function\n"
        "lu__ctx_switch_keep:\n"
        "  .cfi_startproc\n" LU__CTX_SAVE "  movq %rsi, %rsp\n"
        "  jmp lu__ctx_resume\n"
        "  .cfi_endproc\n"
        ".size lu__ctx_switch_keep, .-lu__ctx_switch_keep\n"

        ".globl lu__ctx_switch_prctl\n"
        ".hidden lu__ctx_switch_prctl\n"
        ".type lu__ctx_switch_prctl,@function\n"
        "lu__ctx_switch_prctl:\n"
        "  .cfi_startproc\n" LU__CTX_SAVE "  movq %rsi, %r8\n"
        "  movl $158, %eax\n"    /* SYS_arch_prctl */
        "  movl $0x1002, %edi\n" /* ARCH_SET_FS */
        "  movq %rdx, %rsi\n"
        "  syscall\n"
        "  movq %r8, %rsp\n"
        "lu__ctx_resume:\n"
        "  ldmxcsr (%rsp)\n"
        "  fldcw 4(%rsp)\n"
        "  addq $8, %rsp\n"
        "  popq %r15\n"
        "  popq %r14\n"
        "  popq %r13\n"
        "  popq %r12\n"
        "  popq %rbx\n"
        "  popq %rbp\n"
        "  ret\n"
        "  .cfi_endproc\n"
        ".size lu__ctx_switch_prctl, .-lu__ctx_switch_prctl\n"

        /* First entry of a fresh context: r12 holds the thread. The stack
         * pointer is 16-byte aligned here, as before a call. */
        ".globl lu__ctx_entry\n"
        ".hidden lu__ctx_entry\n"
        ".type lu__ctx_entry,@function\n"
        "lu__ctx_entry:\n"
        "  .cfi_startproc\n"
        "  .cfi_undefined rip\n"
        "  xorl %ebp, %ebp\n"
        "  movq %r12, %rdi\n"
        "  call lu__thread_main\n"
        "  ud2\n"
        "  .cfi_endproc\n"
        ".size lu__ctx_entry, .-lu__ctx_entry\n");

void lu__ctx_switch_fsbase(void **save_sp, void *new_sp, uintptr_t new_fs);
void lu__ctx_switch_prctl(void **save_sp, void *new_sp, uintptr_t new_fs);
void lu__ctx_entry(void);

lu__ctx_switch_fn lu__ctx_switch = lu__ctx_switch_prctl;

void lu__ctx_setup(void)
{
    lu__ctx_switch = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) ? lu__ctx_switch_fsbase : lu__ctx_switch_prctl;
}

const char *lu__ctx_name(void)
{
    return lu__ctx_switch == lu__ctx_switch_fsbase ? "wrfsbase" : "arch_prctl";
}

void *lu__ctx_make(uintptr_t stack_top, struct lu__thread *t)
{
    uintptr_t *sp = (uintptr_t *)(stack_top & ~(uintptr_t)15) - 8;
    /* default MXCSR (all exceptions masked, round to nearest) and x87
     * control word (extended precision, exceptions masked) */
    sp[0] = 0x1f80u | ((uintptr_t)0x037fu << 32);
    sp[1] = sp[2] = sp[3] = 0;        /* r15 r14 r13 */
    sp[4] = (uintptr_t)t;             /* r12 */
    sp[5] = sp[6] = 0;                /* rbx rbp */
    sp[7] = (uintptr_t)lu__ctx_entry; /* ret: entry with rsp = stack_top */
    return sp;
}
