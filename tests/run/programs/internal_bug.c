/*
 * lineup's own invariant failing inside an execution (the scheduler's
 * lu_sched_bug, called here directly to stand for one): an internal error
 * of lineup (exit 3), never a failure of the program.
 */
void lu_sched_bug(const char *file, int line, const char *what) __attribute__((noreturn));

int main(void)
{
    lu_sched_bug(__FILE__, __LINE__, "a test of lineup's internal errors");
}
