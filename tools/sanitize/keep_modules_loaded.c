// Preloaded (LD_PRELOAD) into every process of the sanitizer stage: dlclose() does nothing.
// Open MPI loads its components (mca_*.so) with dlopen and unloads them in MPI_Finalize, before
// LeakSanitizer looks at the heap at exit; the allocations they leaked then come from an
// "<unknown module>" that no suppression can name. Kept loaded, those frames are symbolized
// and lsan.supp can suppress exactly the MPI leaks. Built without sanitizers (tools/sanitize/env.sh).
int dlclose(void* handle) {
    (void)handle;
    return 0;
}
