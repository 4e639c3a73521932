/* A library with a thread-local variable, loaded by test_sched_tls. */
static __thread int tls_module_value;

__attribute__((visibility("default"))) int *tls_module_var(void)
{
    return &tls_module_value;
}
